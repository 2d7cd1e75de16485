package io.kscale.assignor;

import static io.kscale.assignor.SubscriptionChecks.allocatedBytes;
import static io.kscale.assignor.SubscriptionChecks.checkComplete;
import static io.kscale.assignor.SubscriptionChecks.checkValid;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 17, finding 2: what a member sends besides userData ({@code ownedPartitions}, topics,
 * generation) is untrusted too. Before the fix the leader sized an array per topic by the largest
 * partition number a member claimed: -1 threw {@code ArrayIndexOutOfBoundsException},
 * {@code Integer.MAX_VALUE} overflowed {@code p + 1} and threw as well, and 2^30 allocated arrays
 * of gigabytes. Every new leader failed the same way, so the group could not form. Now each field
 * is checked against the leader's metadata, entries that contradict it are counted, logged once
 * per rebalance and ignored, and no allocation depends on a number a member sent.
 */
class HostileSubscriptionTest {

    private static final String ORDERS = "orders";
    private static final String PAYMENTS = "payments";
    private static final int PARTITIONS = 6;
    /** Far more than the leader needs for a few members of 6 partitions, far less than one array of 2^30. */
    private static final long ALLOCATION_BOUND = 64L << 20;

    @ParameterizedTest(name = "owned partition {0}")
    @ValueSource(ints = {-1, PARTITIONS, 1 << 30, Integer.MAX_VALUE, Integer.MIN_VALUE})
    void shouldIgnoreAnOwnedPartitionTheMetadataLacksAndKeepTheValidOnesWithTheirOwner(int partition) {
        Cluster metadata = cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", owning(List.of(ORDERS), 1, tp(ORDERS, 0), tp(ORDERS, partition), tp(ORDERS, 1), tp(ORDERS, 2)));
        subscriptions.put("b", owning(List.of(ORDERS), 1, tp(ORDERS, 3), tp(ORDERS, 4), tp(ORDERS, 5)));
        KeyPreservingAssignor leader = leader("owned-" + partition);

        long before = allocatedBytes();
        Map<String, Assignment> assignments = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();
        long allocated = allocatedBytes() - before;

        checkValid(metadata, subscriptions, assignments);
        checkComplete(metadata, subscriptions, assignments);
        assertThat(assignments.get("a").partitions()).containsExactlyInAnyOrder(tp(ORDERS, 0), tp(ORDERS, 1), tp(ORDERS, 2));
        assertThat(assignments.get("b").partitions()).containsExactlyInAnyOrder(tp(ORDERS, 3), tp(ORDERS, 4), tp(ORDERS, 5));
        assertThat(allocated).as("bytes allocated by assign()").isLessThan(ALLOCATION_BOUND);
        assertThat(leader.metrics().value("invalid-subscription-entries-total")).isEqualTo(1.0);
        assertThat(leader.metrics().value("assignment-fallbacks-total")).isZero();
    }

    @Test
    void shouldIgnoreOwnedPartitionsOfATopicTheMetadataLacksWithoutAllocatingForThem() {
        Cluster metadata = cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", owning(List.of(ORDERS, "gone"), 3, tp("gone", (1 << 30) - 1), tp("gone", 0), tp(ORDERS, 0)));
        subscriptions.put("b", owning(List.of(ORDERS), 3, tp(ORDERS, 1)));
        KeyPreservingAssignor leader = leader("unknown-topic");

        long before = allocatedBytes();
        Map<String, Assignment> assignments = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();
        long allocated = allocatedBytes() - before;

        checkValid(metadata, subscriptions, assignments);
        checkComplete(metadata, subscriptions, assignments);
        assertThat(assignments.get("a").partitions()).contains(tp(ORDERS, 0));
        assertThat(assignments.get("b").partitions()).contains(tp(ORDERS, 1));
        assertThat(allocated).as("bytes allocated by assign()").isLessThan(ALLOCATION_BOUND);
        assertThat(leader.metrics().value("invalid-subscription-entries-total")).isEqualTo(2.0);
    }

    @Test
    void shouldSkipNullUnknownAndRepeatedTopicsOfASubscription() {
        Cluster metadata = cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", new Subscription(Arrays.asList(ORDERS, null, "not-created-yet", ORDERS, ""), null));
        subscriptions.put("b", new Subscription(List.of(ORDERS, PAYMENTS), null));
        KeyPreservingAssignor leader = leader("topics");

        Map<String, Assignment> assignments = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();

        checkValid(metadata, subscriptions, assignments);
        checkComplete(metadata, subscriptions, assignments);
        // a reads orders only, b both topics: balanced across the two subscriptions, 6 each
        assertThat(assignments.get("a").partitions()).hasSize(PARTITIONS).allMatch(tp -> tp.topic().equals(ORDERS));
        assertThat(assignments.get("b").partitions()).hasSize(PARTITIONS);
        // A null and an illegal name are invalid; a legal topic that does not exist yet is not.
        assertThat(leader.metrics().value("invalid-subscription-entries-total")).isEqualTo(2.0);
    }

    /** The leader checks each distinct topic list once; every member that sent an illegal name still counts it. */
    @Test
    void shouldCountTheIllegalTopicNameOfEveryMemberThatSendsTheSameList() {
        Cluster metadata = cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", new Subscription(Arrays.asList(ORDERS, "bad name"), null));
        subscriptions.put("b", new Subscription(Arrays.asList(ORDERS, "bad name"), null));
        subscriptions.put("c", new Subscription(List.of(ORDERS), null));
        KeyPreservingAssignor leader = leader("same-list");

        Map<String, Assignment> assignments = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();

        checkValid(metadata, subscriptions, assignments);
        checkComplete(metadata, subscriptions, assignments);
        assertThat(assignments.get("a").partitions()).hasSize(2);
        assertThat(assignments.get("b").partitions()).hasSize(2);
        assertThat(leader.metrics().value("invalid-subscription-entries-total")).isEqualTo(2.0);
    }

    /** Kafka's deserializer never makes them, but the interface allows them: null lists count as empty. */
    @Test
    void shouldTakeNullListsOfTopicsAndOwnedPartitionsAsEmpty() {
        Cluster metadata = cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", new Subscription(null, null, null));
        subscriptions.put("b", new Subscription(List.of(ORDERS), null, null));
        KeyPreservingAssignor leader = leader("null-lists");

        Map<String, Assignment> assignments = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();

        checkValid(metadata, subscriptions, assignments);
        checkComplete(metadata, subscriptions, assignments);
        assertThat(assignments.get("b").partitions()).hasSize(PARTITIONS);
        assertThat(leader.metrics().value("invalid-subscription-entries-total")).isEqualTo(1.0);
        assertThat(leader.metrics().value("assignment-fallbacks-total")).isZero();
    }

    /**
     * Kafka's consumer revokes partitions of topics it no longer subscribes to before it joins, so
     * such a claim is invalid; but Kafka's COOPERATIVE check still counts it. The partition is
     * therefore not kept by its claimant, and not given to another member in the same rebalance
     * either: it waits one rebalance, as any partition that moves.
     */
    @Test
    void shouldWithholdForOneRebalanceAPartitionClaimedByAMemberNotSubscribedToIt() {
        Cluster metadata = cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", owning(List.of(PAYMENTS), 3, tp(ORDERS, 0), tp(ORDERS, 1)));
        subscriptions.put("b", owning(List.of(ORDERS), 3));
        KeyPreservingAssignor leader = leader("unsubscribed");

        Map<String, Assignment> assignments = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();

        checkValid(metadata, subscriptions, assignments);
        assertThat(assignments.get("b").partitions()).doesNotContain(tp(ORDERS, 0), tp(ORDERS, 1)).hasSize(4);
        assertThat(leader.metrics().value("invalid-subscription-entries-total")).isEqualTo(2.0);
    }

    /**
     * Generations need no check of their own: Kafka's {@code Subscription} already turns a negative
     * one into none, and any other value may be real. A huge one only wins a claim made twice.
     */
    @Test
    void shouldStayValidWhenAClaimMadeTwiceCarriesAHugeGeneration() {
        Cluster metadata = cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", owning(List.of(ORDERS), 4, tp(ORDERS, 0), tp(ORDERS, 1), tp(ORDERS, 2)));
        subscriptions.put("b", owning(List.of(ORDERS), Integer.MAX_VALUE, tp(ORDERS, 0), tp(ORDERS, 3), tp(ORDERS, 4), tp(ORDERS, 5)));
        subscriptions.put("c", owning(List.of(ORDERS), Integer.MIN_VALUE, tp(ORDERS, 1)));
        KeyPreservingAssignor leader = leader("generation");

        Map<String, Assignment> assignments = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();

        checkValid(metadata, subscriptions, assignments);
        checkComplete(metadata, subscriptions, assignments);
        assertThat(subscriptions.get("c").generationId()).as("Kafka's own check").isEmpty();
        assertThat(leader.metrics().value("invalid-subscription-entries-total")).isZero();
        assertThat(leader.metrics().value("assignment-fallbacks-total")).isZero();
    }

    @Test
    void shouldKeepAGroupOfManyHostileMembersAssignable() {
        Cluster metadata = cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        for (int i = 0; i < 50; i++) {
            List<TopicPartition> owned = new ArrayList<>();
            for (int j = 0; j < 20; j++) {
                owned.add(tp(j % 2 == 0 ? ORDERS : "gone-" + i, (1 << 30) + i * 20 + j));
            }
            subscriptions.put(String.format("m%02d", i), owning(List.of(ORDERS, PAYMENTS), i, owned.toArray(new TopicPartition[0])));
        }
        KeyPreservingAssignor leader = leader("many");

        long before = allocatedBytes();
        Map<String, Assignment> assignments = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();
        long allocated = allocatedBytes() - before;

        checkValid(metadata, subscriptions, assignments);
        checkComplete(metadata, subscriptions, assignments);
        assertThat(allocated).as("bytes allocated by assign()").isLessThan(ALLOCATION_BOUND);
        assertThat(leader.metrics().value("invalid-subscription-entries-total")).isEqualTo(1000.0);
    }

    private static Cluster cluster() {
        return new GroupSimulator(RebalanceProtocol.COOPERATIVE, Map.of()).topic(ORDERS, PARTITIONS).topic(PAYMENTS, PARTITIONS).cluster();
    }

    private static Subscription owning(List<String> topics, int generation, TopicPartition... owned) {
        return new Subscription(topics, null, Arrays.asList(owned), generation, Optional.empty());
    }

    private static TopicPartition tp(String topic, int partition) {
        return new TopicPartition(topic, partition);
    }

    private static KeyPreservingAssignor leader(String name) {
        KeyPreservingAssignor leader = new KeyPreservingAssignor();
        leader.configure(Map.of("group.id", "g", "client.id", "hostile-subscription-" + name,
                KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false));
        return leader;
    }
}
