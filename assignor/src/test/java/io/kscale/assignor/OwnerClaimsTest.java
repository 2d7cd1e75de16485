package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.leader.PartitionOwners;
import io.kscale.assignor.internals.wire.MemberReport;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Issue 11: under EAGER the prior owner of a task comes from the members' reports, and two
 * reports may claim one task when a member missed rebalances (a zombie: its session expired, its
 * task went to another member, and it rejoins with the report of its last, older generation).
 * Before the fix the first member by id won whatever its generation, so the zombie took the task
 * back from the member that had run it since. Now the claim of the higher generation wins, as for
 * {@code ownedPartitions} under COOPERATIVE ({@link PartitionOwners}) and in Kafka's sticky assignor.
 */
class OwnerClaimsTest {

    private static final String ORDERS = "orders";
    private static final GroupLayout LAYOUT = GroupLayout.of(1, List.of(TopicLayout.of(ORDERS, 2, 2)));

    @Test
    void shouldGiveATaskClaimedTwiceToTheClaimOfTheLaterGeneration() {
        Map<String, Subscription> subscriptions = new TreeMap<>();
        // "a" sorts first but is the zombie: it reports generation 3; "b" has run task 0 since generation 5.
        subscriptions.put("a", subscription(3));
        subscriptions.put("b", subscription(5));

        Map<String, Assignment> assignments = leader().assign(
                new GroupSimulator(RebalanceProtocol.EAGER, Map.of()).topic(ORDERS, 2).cluster(),
                new GroupSubscription(subscriptions)).groupAssignment();

        assertThat(assignments.get("b").partitions()).containsExactly(new TopicPartition(ORDERS, 0));
        assertThat(assignments.get("a").partitions()).containsExactly(new TopicPartition(ORDERS, 1));
    }

    @Test
    void shouldKeepTheFirstClaimByMemberIdAtEqualGenerations() {
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", subscription(5));
        subscriptions.put("b", subscription(5));

        Map<String, Assignment> assignments = leader().assign(
                new GroupSimulator(RebalanceProtocol.EAGER, Map.of()).topic(ORDERS, 2).cluster(),
                new GroupSubscription(subscriptions)).groupAssignment();

        assertThat(assignments.get("a").partitions()).containsExactly(new TopicPartition(ORDERS, 0));
    }

    /** An EAGER subscription (no owned partitions) whose report claims task 0 of orders. */
    private static Subscription subscription(int generation) {
        return new Subscription(List.of(ORDERS), new MemberReport(generation, Map.of(ORDERS, List.of(0)), LAYOUT).encode());
    }

    private static KeyPreservingAssignor leader() {
        KeyPreservingAssignor leader = new KeyPreservingAssignor();
        leader.configure(Map.of("group.id", "g", "client.id", "owner-claims-test",
                KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false));
        return leader;
    }
}
