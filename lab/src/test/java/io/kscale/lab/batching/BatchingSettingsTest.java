package io.kscale.lab.batching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.lab.partitioner.PartitionerPeer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BatchingSettingsTest {

    @Test
    void shouldRunTheMaxRateOncePerLingerAndEveryPacedRateOncePerPacingAndLinger() {
        List<BatchingCell> cells = BatchingSettings.builder().build().cells();

        assertThat(cells).hasSize(14);
        assertThat(cells.get(0)).hasToString("1000/s bursty, linger.ms=0");
        assertThat(cells.get(1)).hasToString("1000/s bursty, linger.ms=5");
        assertThat(cells.get(2)).hasToString("1000/s even, linger.ms=0");
        assertThat(cells.subList(12, 14)).extracting(BatchingCell::toString)
                .containsExactly("max, linger.ms=0", "max, linger.ms=5");
    }

    @Test
    void shouldEstimateTheDefaultMatrixAtAboutHalfAnHour() {
        // 90 s to start the cluster, then 14 cells x 3 peers x 2 rounds x (20 s + 1 s of overhead).
        assertThat(BatchingSettings.builder().build().estimatedRunTime()).isEqualTo(Duration.ofSeconds(90 + 84 * 21));
    }

    @Test
    void shouldAlternateThePeersOrderEveryRound() {
        BatchingScenario scenario = new BatchingScenario(BatchingSettings.builder().build());

        assertThat(scenario.order(0)).containsExactly(PartitionerPeer.KSCALE, PartitionerPeer.BUILT_IN,
                PartitionerPeer.ROUND_ROBIN);
        assertThat(scenario.order(1)).containsExactly(PartitionerPeer.ROUND_ROBIN, PartitionerPeer.BUILT_IN,
                PartitionerPeer.KSCALE);
    }

    @Test
    void shouldGiveEachBrokerTheLeadOfTenPartitions() {
        int[] leaders = BatchingScenario.leaders(3);

        assertThat(leaders).hasSize(30);
        for (int broker = 0; broker < 3; broker++) {
            int b = broker;
            assertThat(java.util.Arrays.stream(leaders).filter(l -> l == b).count()).isEqualTo(10);
        }
    }

    @Test
    void shouldRejectWhatTheScenarioCannotRun() {
        assertThatThrownBy(() -> BatchingSettings.builder().peers(List.of(PartitionerPeer.KIP_480)))
                .hasMessageContaining("kip-480");
        assertThatThrownBy(() -> SendRate.parse("fast")).hasMessageContaining("'fast'");
        assertThatThrownBy(() -> SendRate.parse("0")).hasMessageContaining("positive");
        assertThatThrownBy(() -> SendPacing.fromCliName("none")).hasMessageContaining("bursty or even");
        assertThatThrownBy(() -> BatchingSettings.builder().lingers(List.of(-1))).hasMessageContaining("-1");
        assertThatThrownBy(() -> BatchingSettings.builder().stickyBatchSize(-1)).hasMessageContaining("-1");
    }

    @Test
    void shouldGiveKscaleItsStintSizeAndNoOtherPeerWhenOneIsSet() {
        BatchingScenario scenario = new BatchingScenario(BatchingSettings.builder().stickyBatchSize(65_536).build());
        BatchingCell cell = new BatchingCell(SendRate.perSecond(5_000), SendPacing.BURSTY, 5);

        assertThat(scenario.producerProps(PartitionerPeer.KSCALE, cell, Map.of()))
                .containsEntry("partitioner.sticky.batch.size", 65_536);
        assertThat(scenario.producerProps(PartitionerPeer.BUILT_IN, cell, Map.of()))
                .doesNotContainKey("partitioner.sticky.batch.size");
    }

    @Test
    void shouldLeaveKscaleAtItsDefaultStintSizeUnlessOneIsSet() {
        BatchingScenario scenario = new BatchingScenario(BatchingSettings.builder().build());
        BatchingCell cell = new BatchingCell(SendRate.perSecond(5_000), SendPacing.BURSTY, 5);

        assertThat(scenario.producerProps(PartitionerPeer.KSCALE, cell, Map.of()))
                .doesNotContainKey("partitioner.sticky.batch.size");
    }
}
