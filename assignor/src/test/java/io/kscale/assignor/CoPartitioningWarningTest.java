package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Co-partitioning made visible (issue 17, finding 4): {@code orders} has T=4 and was expanded to 8
 * partitions; a new {@code payments} topic with 8 partitions gets T=8, so key k's {@code orders}
 * unit (4:k%4) and its {@code payments} unit (8:k%8) were placed independently, with no word to
 * the operator. The leader now warns once per topic and shows the count in a gauge.
 */
class CoPartitioningWarningTest {

    private static final Map<String, Object> NO_STORE = Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);

    /** orders 4 -> 8 partitions, then payments created with 8 and subscribed by every member. */
    private static GroupSimulator ordersExpandedThenPaymentsAdded(Map<String, Object> config) {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, config).topic("orders", 4);
        group.join("a", "orders");
        group.join("b", "orders");
        group.rebalanceUntilStable();
        group.topic("orders", 8);
        group.rebalanceUntilStable();
        group.topic("payments", 8);
        group.subscribe("a", "orders", "payments");
        group.subscribe("b", "orders", "payments");
        group.rebalanceUntilStable();
        return group;
    }

    @Test
    void shouldWarnOnceAndCountATopicWhoseTaskCountSplitsItFromACoPartitionedTopic() {
        GroupSimulator group = ordersExpandedThenPaymentsAdded(NO_STORE);
        KeyPreservingAssignor leader = group.member("a").assignor;
        assertThat(leader.knownLayout().topic("payments").orElseThrow().taskCount()).isEqualTo(8);
        assertThat(leader.metrics().value("co-partitioning-mismatches")).as("topics not co-partitioned").isEqualTo(1.0);
        for (int i = 0; i < 3; i++) {
            group.rebalance();
        }
        assertThat(leader.metrics().value("co-partitioning-warnings-total")).as("warned once, not every rebalance")
                .isEqualTo(1.0);
        assertThat(leader.metrics().value("co-partitioning-mismatches")).isEqualTo(1.0);
    }

    @Test
    void shouldCoPartitionTheNewTopicWhenItsTaskCountIsDeclaredAsTheWarningSays() {
        Map<String, Object> config = new HashMap<>(NO_STORE);
        config.put(KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG, "payments:4");
        GroupSimulator group = ordersExpandedThenPaymentsAdded(config);
        KeyPreservingAssignor leader = group.member("a").assignor;
        assertThat(leader.metrics().value("co-partitioning-mismatches")).isEqualTo(0.0);
        assertThat(leader.metrics().value("co-partitioning-warnings-total")).isEqualTo(0.0);
        Map<TopicPartition, String> owners = group.owners();
        for (int p = 0; p < 8; p++) {
            assertThat(owners.get(new TopicPartition("payments", p))).as("payments-%d with orders-%d", p, p)
                    .isEqualTo(owners.get(new TopicPartition("orders", p)));
        }
    }

    @Test
    void shouldNotWarnWhenCoPartitioningIsOff() {
        Map<String, Object> config = new HashMap<>(NO_STORE);
        config.put(KeyPreservingAssignorConfig.CO_PARTITIONING_CONFIG, "none");
        GroupSimulator group = ordersExpandedThenPaymentsAdded(config);
        assertThat(group.member("a").assignor.metrics().value("co-partitioning-mismatches")).isEqualTo(0.0);
        assertThat(group.member("a").assignor.metrics().value("co-partitioning-warnings-total")).isEqualTo(0.0);
    }

    @Test
    void shouldNotWarnForTopicsOfDifferentSubscribersOrCountsNoTaskCountDivides() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE)
                .topic("orders", 4).topic("clicks", 8).topic("audit", 6);
        group.join("a", "orders", "audit");
        group.join("b", "orders", "audit");
        group.join("c", "clicks");
        group.rebalanceUntilStable();
        // clicks (T=8) has other subscribers than orders (T=4); audit's 6 partitions are not a multiple of 4
        assertThat(group.member("a").assignor.metrics().value("co-partitioning-mismatches")).isEqualTo(0.0);
    }
}
