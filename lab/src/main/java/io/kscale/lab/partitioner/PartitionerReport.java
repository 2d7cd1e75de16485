package io.kscale.lab.partitioner;

import static io.kscale.lab.HtmlPage.escape;

import io.kscale.lab.HtmlPage;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Renders partitioner runs: a text table for the terminal and an HTML page with one bar chart
 * (inline SVG, no scripts) of bytes per partition per partitioner.
 */
public final class PartitionerReport {

    private static final String[] COLORS = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2"};

    private PartitionerReport() {
    }

    /** One line per run: totals per partition, skew, batching, speed. */
    public static String table(List<PartitionerRun> runs, PartitionerSettings settings) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-38s %5s %-26s %-26s %8s %9s %9s %9s %9s %8s%n",
                "partitioner", "round", "records per partition", "MB per partition", "max/mean",
                "slow/mean", "batch B", "rec/batch", "rec/s", "p99 ms"));
        for (PartitionerRun run : runs) {
            out.append(String.format(Locale.ROOT, "%-38s %5d %-26s %-26s %8.4f %9.4f %9.0f %9.2f %9.0f %8.1f%n",
                    run.peer().label(), run.round() + 1, join(run.recordsPerPartition()),
                    megabytes(run.bytesPerPartition()), run.maxOverMean(), run.shareOverMean(settings.slowBroker()
                            % run.bytesPerPartition().length), run.batchSizeAvg(), run.recordsPerBatch(),
                    run.recordsPerSecond(), run.p99LatencyMillis()));
        }
        return out.toString();
    }

    /** Writes {@code partitioner-<time>.html} into {@code dir} and returns its path. */
    public static Path writeHtml(List<PartitionerRun> runs, PartitionerSettings settings, String setup, Path dir) {
        return HtmlPage.write(dir, "partitioner", "Bytes per partition, per partitioner", setup,
                chart(runs) + "\n<pre>" + escape(table(runs, settings)) + "</pre>\n");
    }

    /** Grouped bars: one group per run, one bar per partition, scaled to the largest partition. */
    public static String chart(List<PartitionerRun> runs) {
        int partitions = runs.stream().mapToInt(r -> r.bytesPerPartition().length).max().orElse(1);
        long max = runs.stream().flatMapToLong(r -> Arrays.stream(r.bytesPerPartition())).max().orElse(1);
        int barWidth = 22;
        int groupWidth = partitions * barWidth + 40;
        int height = 260;
        int top = 20;
        int width = Math.max(300, runs.size() * groupWidth + 60);
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">%n",
                width, height + 90));
        for (int i = 0; i < runs.size(); i++) {
            PartitionerRun run = runs.get(i);
            long[] bytes = run.bytesPerPartition();
            int x0 = 40 + i * groupWidth;
            for (int p = 0; p < bytes.length; p++) {
                int h = (int) Math.round((double) bytes[p] / Math.max(1, max) * height);
                svg.append(String.format(Locale.ROOT,
                        "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>partition %d: %d bytes</title></rect>%n",
                        x0 + p * barWidth, top + height - h, barWidth - 2, h, COLORS[p % COLORS.length], p, bytes[p]));
            }
            svg.append(String.format(Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>%n<text x=\"%d\" y=\"%d\" font-size=\"11\">max/mean %.3f</text>%n",
                    x0, top + height + 16, escape(shortLabel(run)), x0, top + height + 32, run.maxOverMean()));
        }
        svg.append("</svg>");
        return svg.toString();
    }

    private static String shortLabel(PartitionerRun run) {
        return run.peer().cliName() + (run.round() > 0 ? " #" + (run.round() + 1) : "");
    }

    private static String join(long[] values) {
        return String.join("/", Arrays.stream(values).mapToObj(Long::toString).toArray(String[]::new));
    }

    private static String megabytes(long[] bytes) {
        return String.join("/", Arrays.stream(bytes).mapToObj(b -> String.format(Locale.ROOT, "%.2f", b / 1e6))
                .toArray(String[]::new));
    }

}
