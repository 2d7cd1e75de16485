package io.kscale.lab.scaleout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PartitionProgressTest {

    @Test
    void shouldCountAdvancesAndMeasureTheLongestStallOfEachPartition() {
        PartitionProgress progress = new PartitionProgress(10.0, Map.of(0, 100L, 1, 100L));

        progress.record(11.0, Map.of(0, 150L, 1, 100L));
        progress.record(12.0, Map.of(0, 200L, 1, 100L));
        progress.record(15.0, Map.of(0, 200L, 1, 130L));
        progress.record(16.0, Map.of(0, 260L, 1, 130L));

        assertThat(progress.advances()).containsEntry(0, 3).containsEntry(1, 1);
        // partition 0: 10 -> 11 -> 12 -> 16, longest 4 s; partition 1: 10 -> 15, then open 15 -> 16
        assertThat(progress.longestStallSeconds().get(0)).isCloseTo(4.0, within(1e-9));
        assertThat(progress.longestStallSeconds().get(1)).isCloseTo(5.0, within(1e-9));
        assertThat(progress.longestStallOfAnySeconds()).isCloseTo(5.0, within(1e-9));
        assertThat(progress.watchedSeconds()).isCloseTo(6.0, within(1e-9));
    }

    @Test
    void shouldCountAStallThatLastsToTheEnd() {
        PartitionProgress progress = new PartitionProgress(0.0, Map.of(0, 5L));

        progress.record(7.5, Map.of(0, 5L));

        assertThat(progress.advances()).containsEntry(0, 0);
        assertThat(progress.longestStallSeconds().get(0)).isCloseTo(7.5, within(1e-9));
    }
}
