package io.kscale.lab.partitioner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PartitionerRunTest {

    private static final ThrottledProducerRun.Result RESULT = new ThrottledProducerRun.Result(
            new long[] {100, 120, 80}, new long[] {51_200, 61_440, 40_960}, 300, 0, 2_000_000_000L,
            3_000_000L, 25_000_000L, Map.of("batch-size-avg", 2048.0, "record-size-avg", 512.0));

    @Test
    void shouldSurviveTheTripThroughAChildJvmsOutput() {
        List<String> lines = new ArrayList<>(List.of("SLF4J: No SLF4J providers were found."));
        lines.addAll(RESULT.toLines());

        ThrottledProducerRun.Result parsed = ThrottledProducerRun.Result.fromLines(lines);

        assertThat(parsed.records).containsExactly(100, 120, 80);
        assertThat(parsed.bytes).containsExactly(51_200, 61_440, 40_960);
        assertThat(parsed.acked).isEqualTo(300);
        assertThat(parsed.p99LatencyNanos).isEqualTo(25_000_000L);
        assertThat(parsed.metrics).containsEntry("batch-size-avg", 2048.0);
    }

    @Test
    void shouldNameTheMissingFieldOfATruncatedOutput() {
        assertThatThrownBy(() -> ThrottledProducerRun.Result.fromLines(List.of("records=1,2")))
                .hasMessageContaining("bytes");
    }

    @Test
    void shouldDeriveSkewSpeedAndBatching() {
        PartitionerRun run = new PartitionerRun(PartitionerPeer.KSCALE, 0, RESULT);

        assertThat(run.maxOverMean()).isCloseTo(1.2, within(1e-9));
        assertThat(run.shareOverMean(2)).isCloseTo(0.8, within(1e-9));
        assertThat(run.recordsPerSecond()).isCloseTo(150.0, within(1e-9));
        assertThat(run.p99LatencyMillis()).isCloseTo(25.0, within(1e-9));
        assertThat(run.recordsPerBatch()).isCloseTo(4.0, within(1e-9));
    }

    @Test
    void shouldDrawOneBarPerPartitionAndPrintOneRowPerRun() {
        PartitionerRun run = new PartitionerRun(PartitionerPeer.ROUND_ROBIN, 1, RESULT);
        PartitionerSettings settings = PartitionerSettings.builder().build();

        assertThat(PartitionerReport.chart(List.of(run))).containsOnlyOnce("<svg").contains("partition 2: 40960 bytes");
        assertThat(PartitionerReport.table(List.of(run), settings).lines()).hasSize(2)
                .last().asString().contains("RoundRobinPartitioner").contains("100/120/80");
    }

    @Test
    void shouldParseTheCommandLineNamesOfPartitioners() {
        assertThat(PartitionerPeer.fromCliName("kip-480")).isEqualTo(PartitionerPeer.KIP_480);
        assertThat(PartitionerPeer.fromCliName(" Built-In ")).isEqualTo(PartitionerPeer.BUILT_IN);
        assertThatThrownBy(() -> PartitionerPeer.fromCliName("default"))
                .hasMessageContaining("'default'").hasMessageContaining("kscale, built-in, round-robin or kip-480");
    }
}
