package io.kscale.lab.scaleout;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScaleOutReportTest {

    private static final List<ScaleOutRun> RUNS = List.of(ScaleOutRuns.KSCALE, ScaleOutRuns.HIGH_AVAILABILITY,
            ScaleOutRuns.STICKY);

    @Test
    void shouldPrintTwoHeaderLinesOneRowPerRunAndEachProblem() {
        List<String> lines = ScaleOutReport.table(RUNS).lines().toList();

        assertThat(lines).hasSize(6);
        assertThat(lines.get(0)).contains("assignor", "balanced", "restoring", "max to", "warmups", "rebalances",
                "backlog", "wrong counts", "final tasks");
        assertThat(lines.get(2).split("\\s+")).containsExactly("WarmupTaskAssignor", "70.5", "0.1", "2", "1", "4",
                "4", "240", "0", "30", "0", "/", "20000", "2/2/2");
        assertThat(lines.get(3).split("\\s+")).containsExactly("HighAvailability", "(default)", ">150", "0.0", "0",
                "0", "2", "3", "500", "500", "30", "3", "/", "20000", "4/1/1");
        assertThat(lines.get(4)).startsWith("StickyTaskAssignor").contains(" 4.0 ", " 16673 ");
        assertThat(lines.get(5)).isEqualTo("HighAvailability (default) problem: not balanced within 150 s: actives"
                + " [4, 1, 1] <still warming>");
    }

    @Test
    void shouldDrawActivesAndWarmupsPerInstanceAndTheRate() {
        String svg = ScaleOutReport.timeline(ScaleOutRuns.KSCALE);

        assertThat(svg).containsOnlyOnce("<svg");
        // 3 instances' actives, 2 instances with warmups, and the processing rate.
        assertThat(count(svg, "<polyline")).isEqualTo(6);
        assertThat(count(svg, "stroke-dasharray=\"5 3\"")).isEqualTo(2);
        assertThat(svg).contains("<title>instance-0 active tasks</title>", "<title>instance-2 warmups</title>",
                "<title>records processed per second</title>", "<title>input: 500 records/s</title>",
                "balanced 70.5 s", "scale-out").doesNotContain("active tasks restoring</title>");
    }

    @Test
    void shouldStepThroughTheSamplesOnATimeAxisFromTheFirstSampleToTheLast() {
        String svg = ScaleOutReport.timeline(ScaleOutRuns.KSCALE);

        // Axis -1 .. 75 s over 640 px from x = 50; 6 tasks over 120 px from y = 30.
        // instance-0: 6 tasks until 65 s (x = 50 + 66 / 76 * 640 = 606), then 4, then 2 at 75 s (x = 690).
        assertThat(svg).contains("points=\"50,30 101,30 101,30 606,30 606,70 690,70 690,110\"");
        assertThat(svg).contains(">-1 s</text>", ">75 s</text>");
    }

    @Test
    void shouldDrawRestoringActiveTasksAsBarsOnTheTaskAxis() {
        String svg = ScaleOutReport.timeline(ScaleOutRuns.STICKY);

        // 4 of 6 tasks restoring at 5 s (x = 101) until the next sample at 65 s (x = 606): 80 px high.
        assertThat(svg).contains("<rect x=\"101\" y=\"70\" width=\"505\" height=\"80\" fill=\"#e15759\"")
                .contains("<title>5.0 s: 4 active tasks restoring</title>");
        assertThat(svg).doesNotContain("warmups</title>");
    }

    @Test
    void shouldDrawEachInstanceTwoPixelsAboveThePreviousOneAndKeepLabelsInside() {
        String svg = ScaleOutReport.timeline(ScaleOutRuns.STICKY);

        // instance-1: 0 tasks (y = 150 - 2) until 5 s (x = 101), then 2 of 6 tasks (y = 110 - 2).
        assertThat(svg).contains("points=\"50,148 101,148 101,108 ");
        // Balanced at 10.8 s of an axis from -1 to 75 s: x = 149, left of the last quarter, label to the right.
        assertThat(svg).contains("<text x=\"152\" y=\"22\" font-size=\"11\">balanced 10.8 s</text>");
        // KSCALE balanced at 70.5 s: x = 652, in the last quarter, label to the left of the line.
        assertThat(ScaleOutReport.timeline(ScaleOutRuns.KSCALE))
                .contains("<text x=\"649\" y=\"22\" font-size=\"11\" text-anchor=\"end\">balanced 70.5 s</text>");
    }

    @Test
    void shouldLeaveOutTheBalanceMarkerWhenNotBalanced() {
        assertThat(ScaleOutReport.timeline(ScaleOutRuns.HIGH_AVAILABILITY)).doesNotContain("balanced ")
                .contains("scale-out");
    }

    @Test
    void shouldWriteAnEscapedHtmlPageWithTheTableAndOneTimelinePerRun(@TempDir Path dir) throws Exception {
        Path file = ScaleOutReport.writeHtml(RUNS, "6 partitions & 1 -> 3 instances", dir.resolve("out"));

        assertThat(file.getFileName().toString()).startsWith("scale-out-").endsWith(".html");
        String html = Files.readString(file, StandardCharsets.UTF_8);
        assertThat(count(html, "<svg")).isEqualTo(3);
        assertThat(html).contains("6 partitions &amp; 1 -&gt; 3 instances", "<h2>WarmupTaskAssignor</h2>",
                "&lt;still warming&gt;", "&gt;150").doesNotContain("<still warming>");
    }

    private static int count(String text, String what) {
        Matcher matcher = Pattern.compile(Pattern.quote(what)).matcher(text);
        int count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }
}
