package io.kscale.assignor;

import static io.kscale.assignor.SubscriptionChecks.checkComplete;
import static io.kscale.assignor.SubscriptionChecks.checkValid;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, finding 2: a placement that throws must not fail the group. Before, the exception left
 * {@code assign()}, and every new leader failed the same way. Now the leader logs an ERROR, counts
 * {@code assignment-fallbacks-total} and sends a plain assignment that Kafka's COOPERATIVE check
 * accepts: owned partitions stay with their one owner, partitions claimed twice wait a rebalance,
 * the rest is spread by task, and members keep the layout. The fault is injected after placing.
 */
class FallbackAssignmentTest {

    private static final Map<String, Object> NO_STORE = Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
    private static final String ORDERS = "orders";
    /** Metrics are JVM-wide per client id: each leader made here gets its own. */
    private static final java.util.concurrent.atomic.AtomicInteger CLIENTS = new java.util.concurrent.atomic.AtomicInteger();

    @Test
    void shouldKeepTheGroupGoingWithOwnedPartitionsInPlaceWhenThePlacementFails() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        group.join("a", ORDERS);
        group.join("b", ORDERS);
        group.join("c", ORDERS);
        group.rebalanceUntilStable();
        group.topic(ORDERS, 8);
        group.rebalanceUntilStable();
        Map<TopicPartition, String> before = group.owners();
        KeyPreservingAssignor leader = group.member("a").assignor;
        leader.placementFault(new IllegalStateException("injected"));

        group.join("d", ORDERS);
        group.topic(ORDERS, 16);
        group.rebalance(); // the simulator applies Kafka's COOPERATIVE check and no-partition-twice

        assertThat(leader.metrics().value("assignment-fallbacks-total")).isEqualTo(1.0);
        before.forEach((partition, owner) -> assertThat(group.owners()).containsEntry(partition, owner));
        for (int p = 8; p < 16; p++) {
            TopicPartition grown = new TopicPartition(ORDERS, p);
            assertThat(group.owners().get(grown)).as("%s with its task's owner (T=4)", grown)
                    .isEqualTo(before.get(new TopicPartition(ORDERS, p % 4)));
        }
        assertThat(group.member("d").info().layout().topic(ORDERS).orElseThrow().taskCount())
                .as("the layout travels in the fallback too").isEqualTo(4);

        leader.placementFault(null);
        group.rebalanceUntilStable();
        assertThat(group.load().values()).containsOnly(4);
        assertThat(leader.metrics().value("assignment-fallbacks-total")).isEqualTo(1.0);
    }

    /** Under EAGER no member reports owned partitions: every task is spread afresh, its partitions together. */
    @Test
    void shouldSpreadWholeTasksUnderEager() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.EAGER, NO_STORE).topic(ORDERS, 4);
        group.join("a", ORDERS);
        group.join("b", ORDERS);
        group.rebalanceUntilStable();
        group.topic(ORDERS, 12);
        group.member("a").assignor.placementFault(new IllegalStateException("injected"));

        group.rebalance();

        Map<TopicPartition, String> owners = group.owners();
        assertThat(owners).hasSize(12);
        for (int p = 4; p < 12; p++) {
            assertThat(owners.get(new TopicPartition(ORDERS, p))).as("partition %d with its task (T=4)", p)
                    .isEqualTo(owners.get(new TopicPartition(ORDERS, p % 4)));
        }
        assertThat(group.load().values()).containsOnly(6);
        assertThat(group.member("a").assignor.metrics().value("assignment-fallbacks-total")).isEqualTo(1.0);
    }

    @Test
    void shouldWithholdAPartitionClaimedTwiceAndSpreadTheUnclaimedByTask() {
        Cluster metadata = new GroupSimulator(RebalanceProtocol.COOPERATIVE, Map.of()).topic(ORDERS, 4).cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", owning(tp(0)));
        subscriptions.put("b", owning(tp(1)));
        subscriptions.put("c", owning(tp(1), new TopicPartition(ORDERS, -1)));
        KeyPreservingAssignor leader = new KeyPreservingAssignor();
        leader.configure(Map.of("group.id", "g", "client.id", "fallback-claims", KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false));
        leader.placementFault(new IllegalStateException("injected"));

        Map<String, Assignment> assignments = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();

        checkValid(metadata, subscriptions, assignments);
        checkComplete(metadata, subscriptions, assignments);
        // T = 4 here (one partition per task): a keeps 0; 1 waits; 2 and 3 go to the least loaded, b then c.
        assertThat(assignments.get("a").partitions()).containsExactly(tp(0));
        assertThat(assignments.get("b").partitions()).containsExactly(tp(2));
        assertThat(assignments.get("c").partitions()).containsExactly(tp(3));
    }

    /**
     * Issue 25, finding 4: the fallback handed out a task's free partitions while another partition
     * of the task was being revoked (here 5 went to c while b and c revoke 1), so two members read
     * the task's keys at once. Now the task's owner keeps what it owns and the rest waits.
     */
    @Test
    void shouldWithholdTheRestOfATaskWhileOneOfItsPartitionsIsRevoked() {
        Cluster metadata = new GroupSimulator(RebalanceProtocol.COOPERATIVE, Map.of()).topic(ORDERS, 6).cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", owning(tp(0), tp(4)));
        subscriptions.put("b", owning(tp(1)));
        subscriptions.put("c", owning(tp(1), tp(3)));

        Map<String, Assignment> assignments = fallBack(metadata, subscriptions, "orders:2");

        checkValid(metadata, subscriptions, assignments);
        assertThat(assignments.get("a").partitions()).containsExactlyInAnyOrder(tp(0), tp(2), tp(4));
        assertThat(assignments.get("b").partitions()).isEmpty();
        assertThat(assignments.get("c").partitions()).as("c keeps 3; 1 and 5 wait until 1 is revoked")
                .containsExactly(tp(3));
    }

    /** Issue 25, finding 4: a task whose partitions two members owned stayed split across them in the fallback. */
    @Test
    void shouldKeepATaskOwnedByTwoMembersWithOneOfThemOnly() {
        Cluster metadata = new GroupSimulator(RebalanceProtocol.COOPERATIVE, Map.of()).topic(ORDERS, 6).cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", owning(tp(1)));
        subscriptions.put("b", owning(tp(3), tp(5)));

        Map<String, Assignment> assignments = fallBack(metadata, subscriptions, "orders:2");

        checkValid(metadata, subscriptions, assignments);
        assertThat(assignments.get("b").partitions()).as("b owns most of task 1").containsExactlyInAnyOrder(tp(3), tp(5));
        assertThat(assignments.get("a").partitions()).as("a revokes 1; task 0 is nobody's and goes to a, the least loaded")
                .containsExactlyInAnyOrder(tp(0), tp(2), tp(4));
    }

    /** The fallback's assignment of these subscriptions, with the declared task counts. */
    private static Map<String, Assignment> fallBack(Cluster metadata, Map<String, Subscription> subscriptions,
                                                    String taskCounts) {
        KeyPreservingAssignor leader = new KeyPreservingAssignor();
        leader.configure(Map.of("group.id", "g", "client.id", "fallback-tasks-" + CLIENTS.incrementAndGet(), KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG,
                false, KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG, taskCounts));
        leader.placementFault(new IllegalStateException("injected"));
        Map<String, Assignment> assignments = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();
        assertThat(leader.metrics().value("assignment-fallbacks-total")).isEqualTo(1.0);
        return assignments;
    }

    /**
     * Issue 25, finding 8: only a RuntimeException fell back; an Error thrown by the placement (a
     * deep recursion, a heap too small for one rebalance) left {@code assign()} and failed the
     * group, and every new leader computed the same thing and failed again. Any Throwable now
     * takes the same fallback, counted and logged.
     */
    @Test
    void shouldFallBackAsForAnExceptionWhenThePlacementThrowsAnError() {
        for (Error error : List.of(new StackOverflowError("injected"), new OutOfMemoryError("injected"))) {
            GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
            group.join("a", ORDERS);
            group.join("b", ORDERS);
            group.rebalanceUntilStable();
            Map<TopicPartition, String> before = group.owners();
            KeyPreservingAssignor leader = group.member("a").assignor;
            leader.placementFault(error);

            group.topic(ORDERS, 8);
            group.rebalance();

            assertThat(leader.metrics().value("assignment-fallbacks-total")).as(error.toString()).isEqualTo(1.0);
            for (int p = 0; p < 8; p++) {
                assertThat(group.owners().get(tp(p))).as("%s with its task's owner (T=4) after %s", tp(p), error)
                        .isEqualTo(before.get(tp(p % 4)));
            }
        }
    }

    private static Subscription owning(TopicPartition... owned) {
        return new Subscription(List.of(ORDERS), null, Arrays.asList(owned), 3, Optional.empty());
    }

    private static TopicPartition tp(int partition) {
        return new TopicPartition(ORDERS, partition);
    }
}
