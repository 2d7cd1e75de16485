package io.kscale.lab.scaleout;

import static io.kscale.lab.HtmlPage.escape;

import io.kscale.lab.HtmlPage;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Renders scale-out runs: a text table for the terminal and an HTML page with one timeline per
 * assignor (inline SVG, no scripts). A timeline has two panels over the same time axis, seconds
 * since the scale-out: above, active tasks per instance (solid steps, one colour per instance),
 * standby copies being warmed up (dashed, same colour) and active tasks restoring (red bars, on the
 * task axis); below, records processed per second against the producer's pace (dashed). Vertical
 * lines mark the scale-out and the moment the assignment became balanced for good. With 6 tasks
 * the task panel is 120 px high, so one restoring task draws a bar of 20 px; instance {@code i}'s
 * lines are drawn {@code 2i} px higher, so that instances holding as many tasks stay apart.
 */
public final class ScaleOutReport {

    private static final String[] INSTANCE_COLORS = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#9c755f"};
    private static final String RESTORE_COLOR = "#e15759";
    private static final String RATE_COLOR = "#555555";
    private static final int LEFT = 50;
    private static final int PLOT_WIDTH = 640;
    private static final int TASKS_TOP = 30;
    private static final int TASKS_HEIGHT = 120;
    private static final int RATE_TOP = TASKS_TOP + TASKS_HEIGHT + 30;
    private static final int RATE_HEIGHT = 70;

    private ScaleOutReport() {
    }

    /** One line per run, then the problems of each run that had any. */
    public static String table(List<ScaleOutRun> runs) {
        StringBuilder out = new StringBuilder();
        String format = "%-26s %9s %9s %9s %10s %7s %10s %8s %7s %8s %13s %s%n";
        out.append(String.format(Locale.ROOT, format, "assignor", "balanced", "restoring", "restores", "max to",
                "warmups", "rebalances", "mean r/s", "min r/s", "backlog", "wrong counts", "final tasks"));
        out.append(String.format(Locale.ROOT, format, "", "after s", "actives s", "", "restore", "", "", "", "",
                "max", "", ""));
        for (ScaleOutRun run : runs) {
            out.append(String.format(Locale.ROOT, format, run.peer().label(), balanced(run),
                    String.format(Locale.ROOT, "%.1f", run.activeRestoreSeconds()), run.restores().size(),
                    run.maxRecordsToRestore(), run.warmupsStarted(), run.rebalances(),
                    String.format(Locale.ROOT, "%.0f", run.meanRecordsPerSecond()),
                    String.format(Locale.ROOT, "%.0f", run.minRecordsPerSecond()), run.maxBacklog(),
                    run.counts().wrongCounts() + " / " + run.counts().keys(), finalTasks(run)));
        }
        for (ScaleOutRun run : runs) {
            for (String problem : run.problems()) {
                out.append(String.format(Locale.ROOT, "%s problem: %s%n", run.peer().label(), problem));
            }
        }
        return out.toString();
    }

    /** Seconds until balanced, or {@code >150} when not balanced within a 150 s timeout. */
    static String balanced(ScaleOutRun run) {
        return run.balancedAfter().isPresent()
                ? String.format(Locale.ROOT, "%.1f", run.balancedAfter().getAsDouble())
                : String.format(Locale.ROOT, ">%.0f", run.balanceTimeoutSeconds());
    }

    /** Active tasks per instance as {@code 2/2/2}. */
    static String finalTasks(ScaleOutRun run) {
        return run.finalActives().stream().map(String::valueOf).collect(Collectors.joining("/"));
    }

    /** Writes {@code scale-out-<time>.html} into {@code dir} and returns its path. */
    public static Path writeHtml(List<ScaleOutRun> runs, String setup, Path dir) {
        StringBuilder body = new StringBuilder("<pre>").append(escape(table(runs))).append("</pre>\n");
        for (ScaleOutRun run : runs) {
            body.append("<h2>").append(escape(run.peer().label())).append("</h2>\n").append(timeline(run)).append('\n');
        }
        return HtmlPage.write(dir, "scale-out", "Kafka Streams scale-out: restore downtime and time to balance, per"
                + " assignor", setup, body.toString());
    }

    /** The two-panel timeline of one run (see the class comment). */
    public static String timeline(ScaleOutRun run) {
        List<Sample> samples = run.timeline();
        Axis time = Axis.of(samples, run);
        int tasks = Math.max(1, run.partitions());
        double maxRate = Math.max(run.recordsPerSecond(),
                samples.stream().mapToDouble(Sample::processedPerSecond).max().orElse(0)) * 1.1;
        int width = LEFT + PLOT_WIDTH + 20;
        int height = RATE_TOP + RATE_HEIGHT + 76;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">%n",
                width, height));
        svg.append(frame(TASKS_TOP, TASKS_HEIGHT, tasks + " tasks", "0"));
        svg.append(frame(RATE_TOP, RATE_HEIGHT, String.format(Locale.ROOT, "%.0f r/s", maxRate), "0"));
        svg.append(restoringBars(samples, time, tasks));
        for (int i = 0; i < run.instances(); i++) {
            int instance = i;
            String color = INSTANCE_COLORS[i % INSTANCE_COLORS.length];
            // Instance i is drawn 2i px higher, so that instances with as many tasks stay apart.
            int top = TASKS_TOP - 2 * i;
            svg.append(steps(samples, time, s -> s.actives().get(instance), tasks, top, TASKS_HEIGHT, color, false,
                    "instance-" + i + " active tasks"));
            if (samples.stream().anyMatch(s -> s.standbys().get(instance) > 0)) {
                svg.append(steps(samples, time, s -> s.standbys().get(instance), tasks, top, TASKS_HEIGHT, color,
                        true, "instance-" + i + " warmups"));
            }
        }
        svg.append(steps(samples, time, Sample::processedPerSecond, maxRate, RATE_TOP, RATE_HEIGHT, RATE_COLOR, false,
                "records processed per second"));
        int inputY = y(run.recordsPerSecond(), maxRate, RATE_TOP, RATE_HEIGHT);
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\""
                        + " stroke-dasharray=\"4 3\"><title>input: %d records/s</title></line>%n", LEFT, inputY,
                LEFT + PLOT_WIDTH, inputY, RATE_COLOR, run.recordsPerSecond()));
        svg.append(marker(time, 0, "scale-out", "#333333"));
        if (run.balancedAfter().isPresent()) {
            svg.append(marker(time, run.balancedAfter().getAsDouble(),
                    String.format(Locale.ROOT, "balanced %.1f s", run.balancedAfter().getAsDouble()), "#2ca02c"));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%.0f s</text>%n"
                        + "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.0f s</text>%n",
                LEFT, RATE_TOP + RATE_HEIGHT + 14, time.min, LEFT + PLOT_WIDTH, RATE_TOP + RATE_HEIGHT + 14, time.max));
        svg.append(legend(run.instances(), RATE_TOP + RATE_HEIGHT + 36));
        svg.append("</svg>");
        return svg.toString();
    }

    private static String frame(int top, int height, String maxLabel, String minLabel) {
        return String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\""
                        + " stroke=\"#ccc\"/>%n<text x=\"4\" y=\"%d\" font-size=\"11\">%s</text>%n"
                        + "<text x=\"4\" y=\"%d\" font-size=\"11\">%s</text>%n", LEFT, top, PLOT_WIDTH, height, top + 10,
                maxLabel, top + height, minLabel);
    }

    /** One red bar per sample with restoring active tasks, as tall as their count on the task axis. */
    private static String restoringBars(List<Sample> samples, Axis time, int tasks) {
        StringBuilder out = new StringBuilder();
        for (int k = 0; k < samples.size(); k++) {
            Sample sample = samples.get(k);
            if (sample.restoringActives() == 0) {
                continue;
            }
            double next = k + 1 < samples.size() ? samples.get(k + 1).seconds() : sample.seconds() + 1;
            int x0 = time.x(sample.seconds());
            int x1 = Math.max(x0 + 2, time.x(next));
            int top = y(sample.restoringActives(), tasks, TASKS_TOP, TASKS_HEIGHT);
            out.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\""
                            + " fill-opacity=\"0.6\"><title>%.1f s: %d active tasks restoring</title></rect>%n", x0, top,
                    x1 - x0, TASKS_TOP + TASKS_HEIGHT - top, RESTORE_COLOR, sample.seconds(), sample.restoringActives()));
        }
        return out.toString();
    }

    private static String steps(List<Sample> samples, Axis time, java.util.function.ToDoubleFunction<Sample> value,
                                double max, int top, int height, String color, boolean dashed, String title) {
        if (samples.isEmpty()) {
            return "";
        }
        StringBuilder points = new StringBuilder();
        int previousY = 0;
        for (int k = 0; k < samples.size(); k++) {
            int x = time.x(samples.get(k).seconds());
            int yk = y(value.applyAsDouble(samples.get(k)), max, top, height);
            if (k > 0) {
                points.append(x).append(',').append(previousY).append(' ');
            }
            points.append(x).append(',').append(yk).append(' ');
            previousY = yk;
        }
        return String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"%s\">"
                        + "<title>%s</title></polyline>%n", color, dashed ? " stroke-dasharray=\"5 3\"" : "",
                points.toString().trim(), escape(title));
    }

    private static String marker(Axis time, double seconds, String label, String color) {
        int x = time.x(seconds);
        boolean right = x > LEFT + PLOT_WIDTH * 3 / 4;
        return String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\""
                        + " stroke-dasharray=\"2 2\"/>%n<text x=\"%d\" y=\"%d\" font-size=\"11\"%s>%s</text>%n", x,
                TASKS_TOP - 4, x, RATE_TOP + RATE_HEIGHT, color, right ? x - 3 : x + 3, TASKS_TOP - 8,
                right ? " text-anchor=\"end\"" : "", escape(label));
    }

    private static String legend(int instances, int y) {
        StringBuilder out = new StringBuilder();
        int x = LEFT;
        for (int i = 0; i < instances; i++) {
            out.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                            + "<text x=\"%d\" y=\"%d\" font-size=\"11\">instance-%d</text>%n", x, y,
                    INSTANCE_COLORS[i % INSTANCE_COLORS.length], x + 14, y + 9, i));
            x += 85;
        }
        out.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                        + "<text x=\"%d\" y=\"%d\" font-size=\"11\">active tasks restoring</text>%n"
                        + "<text x=\"%d\" y=\"%d\" font-size=\"11\">solid: active tasks processing; dashed: warmups;"
                        + " grey: records/s (dashed: input)</text>%n", x, y, RESTORE_COLOR, x + 14, y + 9, LEFT, y + 26));
        return out.toString();
    }

    private static int y(double value, double max, int top, int height) {
        double share = max <= 0 ? 0 : Math.min(1, Math.max(0, value / max));
        return top + height - (int) Math.round(share * height);
    }


    /** The time axis of one timeline: from the first sample (or 0) to the last (or the balance moment). */
    private static final class Axis {
        final double min;
        final double max;

        private Axis(double min, double max) {
            this.min = min;
            this.max = max;
        }

        static Axis of(List<Sample> samples, ScaleOutRun run) {
            double min = Math.min(0, samples.stream().mapToDouble(Sample::seconds).min().orElse(0));
            double max = samples.stream().mapToDouble(Sample::seconds).max().orElse(1);
            max = Math.max(max, run.balancedAfter().orElse(0));
            return new Axis(Math.floor(min), Math.ceil(Math.max(max, min + 1)));
        }

        int x(double seconds) {
            return LEFT + (int) Math.round((seconds - min) / (max - min) * PLOT_WIDTH);
        }
    }
}
