package io.kscale.lab.expansion;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExpansionReportTest {

    private static final List<Integer> STEPS = List.of(4, 8, 16);
    private static final ExpansionRun KSCALE = new ExpansionRun(ExpansionPeer.KSCALE, STEPS, new KeyOutcome(200, 0, 0),
            16_000, 16_000, 0, new OrderOutcome(0, 0), new OrderOutcome(0, 0), List.of(), List.of(), 21);
    private static final ExpansionRun RANGE = new ExpansionRun(ExpansionPeer.RANGE, STEPS, new KeyOutcome(200, 45, 30),
            16_000, 15_990, 10, new OrderOutcome(3, 7), new OrderOutcome(60, 900), List.of("after a member joined: t-3 owned by member-0 and member-3"),
            List.of(), 18);

    @Test
    void shouldPrintOneRowPerRunAndEachOwnershipProblem() {
        List<String> lines = ExpansionReport.table(List.of(KSCALE, RANGE)).lines().toList();

        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).contains("assignor", "partitions", "split (share)", "wrong", "missing", "assignments");
        assertThat(lines.get(1)).contains("KeyPreservingAssignor", "4->8->16", "0 (0.0%)")
                .endsWith(" 21");
        assertThat(lines.get(2).split("\\s+")).containsExactly("RangeAssignor", "4->8->16", "200", "45", "(22.5%)",
                "30", "16000", "15990", "10", "3", "k", "/", "7", "r", "60", "k", "/", "900", "r", "1", "18");
        assertThat(lines.get(3)).isEqualTo("RangeAssignor ownership problem: after a member joined: t-3 owned by"
                + " member-0 and member-3");
    }

    @Test
    void shouldDrawTwoBarsPerRunScaledToTheKeys() {
        String svg = ExpansionReport.chart(List.of(KSCALE, RANGE));

        assertThat(svg).containsOnlyOnce("<svg")
                .contains("split keys: 45 of 200 keys (22.5%)")
                .contains("wrong counts: 30 of 200 keys (15.0%)")
                .contains("split keys: 0 of 200 keys (0.0%)");
        // 260 px is 100%: 22.5% of the keys is a bar of 59 px.
        assertThat(svg).contains("height=\"59\" fill=\"#4e79a7\"><title>split keys: 45");
    }

    @Test
    void shouldWriteAnEscapedHtmlPageWithTheChartAndTheTable(@TempDir Path dir) throws Exception {
        Path file = ExpansionReport.writeHtml(List.of(KSCALE, RANGE), "Topic grows 4 -> 8 & more", dir.resolve("out"));

        assertThat(file.getFileName().toString()).startsWith("expansion-").endsWith(".html");
        String html = Files.readString(file, StandardCharsets.UTF_8);
        assertThat(html).contains("Topic grows 4 -&gt; 8 &amp; more").contains("<svg")
                .contains("KeyPreservingAssignor").contains("4-&gt;8-&gt;16").doesNotContain("4->8");
    }
}
