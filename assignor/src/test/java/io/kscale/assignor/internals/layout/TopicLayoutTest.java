package io.kscale.assignor.internals.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TopicLayoutTest {

    @Test
    void shouldPutPartitionNineInTaskOneWhenFourTasksGrowToTwelvePartitions() {
        TopicLayout layout = TopicLayout.of(LayoutFixtures.ORDERS, 4, 12);

        assertThat(layout.taskOf(9)).isEqualTo(1);
        assertThat(layout.partitionsOf(1)).containsExactly(1, 5, 9);
        assertThat(layout.isAligned()).isTrue();
    }

    @Test
    void shouldGiveTasksBeyondThePartitionCountNoPartitions() {
        TopicLayout declaredAhead = TopicLayout.of(LayoutFixtures.ORDERS, 8, 4);

        assertThat(declaredAhead.partitionsOf(3)).containsExactly(3);
        assertThat(declaredAhead.partitionsOf(5)).isEmpty();
        assertThat(declaredAhead.isAligned()).isFalse();
    }

    @Test
    void shouldSpreadAnUnalignedCountOverTheFirstTasks() {
        TopicLayout kept = TopicLayout.of(LayoutFixtures.ORDERS, 4, 6);

        assertThat(kept.partitionsOf(0)).containsExactly(0, 4);
        assertThat(kept.partitionsOf(1)).containsExactly(1, 5);
        assertThat(kept.partitionsOf(2)).containsExactly(2);
        assertThat(kept.isAligned()).isFalse();
    }

    @Test
    void shouldAcceptExactlyKafkasLegalTopicNames() {
        assertThat(TopicLayout.isLegalName("orders.eu_west-1")).isTrue();
        assertThat(TopicLayout.isLegalName("a".repeat(249))).isTrue();
        assertThat(TopicLayout.isLegalName("a".repeat(250))).isFalse();
        assertThat(TopicLayout.isLegalName("")).isFalse();
        assertThat(TopicLayout.isLegalName(".")).isFalse();
        assertThat(TopicLayout.isLegalName("..")).isFalse();
        assertThat(TopicLayout.isLegalName("orders eu")).isFalse();
        assertThat(TopicLayout.isLegalName("ordérs")).isFalse();
        assertThat(TopicLayout.isLegalName(null)).isFalse();
    }

    @Test
    void shouldRejectCountsOutsideTheBoundsNamingTheValue() {
        assertThatThrownBy(() -> TopicLayout.of(LayoutFixtures.ORDERS, 0, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("task count 0");
        assertThatThrownBy(() -> TopicLayout.of(LayoutFixtures.ORDERS, 4, TopicLayout.MAX_COUNT + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition count " + (TopicLayout.MAX_COUNT + 1));
        assertThatThrownBy(() -> TopicLayout.of("bad name", 4, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'bad name'");
        assertThatThrownBy(() -> TopicLayout.of(LayoutFixtures.ORDERS, 4, 4).taskOf(-1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TopicLayout.of(LayoutFixtures.ORDERS, 4, 4).partitionsOf(4))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
