package io.kscale.lab.expansion;

import static io.kscale.lab.HtmlPage.escape;

import io.kscale.lab.HtmlPage;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Renders expansion runs: a text table for the terminal and an HTML page with one bar chart
 * (inline SVG, no scripts) of split keys and wrong counts per assignor, both as a share of the
 * keys so they share one axis: a run with 200 keys, 45 split and 30 wrong draws bars of 22.5%
 * and 15%.
 */
public final class ExpansionReport {

    private static final String SPLIT_COLOR = "#4e79a7";
    private static final String WRONG_COLOR = "#e15759";

    private ExpansionReport() {
    }

    /** One line per run, then the ownership problems of each run that had any. */
    public static String table(List<ExpansionRun> runs) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-26s %-14s %6s %13s %6s %8s %8s %7s %15s %15s %9s %11s%n",
                "assignor", "partitions", "keys", "split (share)", "wrong", "sent", "received", "missing",
                "tailing ooo", "catch-up ooo", "ownership", "assignments"));
        for (ExpansionRun run : runs) {
            KeyOutcome keys = run.keys();
            out.append(String.format(Locale.ROOT, "%-26s %-14s %6d %13s %6d %8d %8d %7d %15s %15s %9d %11d%n",
                    run.peer().label(), path(run.partitionSteps()), keys.keys(),
                    String.format(Locale.ROOT, "%d (%.1f%%)", keys.splitKeys(), 100 * keys.splitShare()),
                    keys.wrongCounts(), run.sent(), run.received(), run.missing(), outOfOrder(run.tailingOrder()),
                    outOfOrder(run.catchUpOrder()), run.ownershipProblems().size(), run.rebalances()));
        }
        for (ExpansionRun run : runs) {
            for (String problem : run.ownershipProblems()) {
                out.append(String.format(Locale.ROOT, "%s ownership problem: %s%n", run.peer().label(), problem));
            }
        }
        return out.toString();
    }

    /** Keys and records out of order, as {@code 12 k / 340 r}. */
    private static String outOfOrder(OrderOutcome order) {
        return order.keysOutOfOrder() + " k / " + order.recordsOutOfOrder() + " r";
    }

    /** The partition counts as {@code 4->8->16}. */
    public static String path(List<Integer> steps) {
        return steps.stream().map(String::valueOf).collect(Collectors.joining("->"));
    }

    /** Writes {@code expansion-<time>.html} into {@code dir} and returns its path. */
    public static Path writeHtml(List<ExpansionRun> runs, String setup, Path dir) {
        return HtmlPage.write(dir, "expansion", "Split keys and wrong counts while the topic grows, per assignor", setup,
                chart(runs) + "\n<pre>" + escape(table(runs)) + "</pre>\n");
    }

    /** Two bars per run, split keys and wrong counts, as a share of its keys (the full height is 100%). */
    public static String chart(List<ExpansionRun> runs) {
        int barWidth = 40;
        int groupWidth = 2 * barWidth + 80;
        int height = 260;
        int top = 20;
        int width = Math.max(300, runs.size() * groupWidth + 60);
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">%n",
                width, height + 90));
        svg.append(String.format(Locale.ROOT,
                "<text x=\"4\" y=\"%d\" font-size=\"11\">100%%</text>%n<line x1=\"36\" y1=\"%d\" x2=\"%d\" y2=\"%d\""
                        + " stroke=\"#ccc\"/>%n", top + 4, top, width, top));
        for (int i = 0; i < runs.size(); i++) {
            ExpansionRun run = runs.get(i);
            KeyOutcome keys = run.keys();
            int x0 = 40 + i * groupWidth;
            svg.append(bar(x0, barWidth, top, height, keys.splitKeys(), keys.keys(), SPLIT_COLOR, "split keys"));
            svg.append(bar(x0 + barWidth, barWidth, top, height, keys.wrongCounts(), keys.keys(), WRONG_COLOR,
                    "wrong counts"));
            svg.append(String.format(Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>%n<text x=\"%d\" y=\"%d\" font-size=\"11\">"
                            + "split %d, wrong %d</text>%n",
                    x0, top + height + 16, escape(run.peer().cliName()), x0, top + height + 32, keys.splitKeys(),
                    keys.wrongCounts()));
        }
        int legend = top + height + 56;
        svg.append(String.format(Locale.ROOT,
                "<rect x=\"40\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"54\" y=\"%d\" font-size=\"11\">"
                        + "split keys</text>%n<rect x=\"140\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                        + "<text x=\"154\" y=\"%d\" font-size=\"11\">wrong counts</text>%n",
                legend, SPLIT_COLOR, legend + 9, legend, WRONG_COLOR, legend + 9));
        svg.append("</svg>");
        return svg.toString();
    }

    private static String bar(int x, int barWidth, int top, int height, int count, int keys, String color, String what) {
        double share = keys == 0 ? 0 : (double) count / keys;
        int h = (int) Math.round(share * height);
        return String.format(Locale.ROOT,
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s: %d of %d keys (%.1f%%)</title>"
                        + "</rect>%n", x, top + height - h, barWidth - 2, h, color, what, count, keys, 100 * share);
    }

}
