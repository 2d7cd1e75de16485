package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClusterSpecTest {

    @Test
    void shouldAcceptOneToFiveBrokers() {
        assertThat(ClusterSpec.builder().brokers(1).build().brokers()).isEqualTo(1);
        assertThat(ClusterSpec.builder().brokers(5).build().brokers()).isEqualTo(5);
    }

    @Test
    void shouldRejectBrokerCountsOutsideOneToFive() {
        assertThatThrownBy(() -> ClusterSpec.builder().brokers(0)).hasMessageContaining("between 1 and 5, got 0");
        assertThatThrownBy(() -> ClusterSpec.builder().brokers(6)).hasMessageContaining("got 6");
    }

    @Test
    void shouldLetOverridesWinOverTheDefaultBrokerSettings() {
        ClusterSpec spec = ClusterSpec.builder()
                .brokers(1)
                .brokerProperty("group.initial.rebalance.delay.ms", "3000")
                .brokerProperty("log.segment.bytes", "1048576")
                .build();

        assertThat(ProcessKafkaCluster.brokerSettings(spec))
                .containsEntry("group.initial.rebalance.delay.ms", "3000")
                .containsEntry("log.segment.bytes", "1048576")
                .containsEntry("auto.create.topics.enable", "false")
                .containsEntry("offsets.topic.replication.factor", "1");
    }

    @Test
    void shouldCapInternalTopicReplicationAtThree() {
        assertThat(ProcessKafkaCluster.brokerSettings(ClusterSpec.builder().brokers(5).build()))
                .containsEntry("offsets.topic.replication.factor", "3");
    }

    @Test
    void shouldRejectAMalformedHeapOrTimeout() {
        assertThatThrownBy(() -> ClusterSpec.builder().brokerHeap("lots")).hasMessageContaining("lots");
        assertThatThrownBy(() -> ClusterSpec.builder().startupTimeout(Duration.ZERO)).hasMessageContaining("positive");
    }
}
