package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DynamicTest;

/**
 * Balance on mixed subscriptions against Kafka's {@link CooperativeStickyAssignor} (issue 17,
 * finding 3), over seeded random groups: 2 to 7 members, 1 to 5 topics of 1 to 12 partitions (2,
 * 4, 6 or 8 when co-partitioned, so that topics share units often), each member subscribed to a
 * random non-empty subset of the topics or, one time in three, to an earlier member's. Both assignors get the same
 * subscriptions and metadata in the same test; kscale's group is settled through its rebalances
 * (COOPERATIVE needs two for a move), Kafka's assignor runs once on the fresh group.
 *
 * <p><b>Spread</b> is {@code max − min} of the number of partitions assigned to a member, over the
 * members that can take a partition: those subscribed to at least one topic the metadata has.
 * Why this measure: it is the one the issue states and the one Kafka's sticky assignor optimises
 * ({@code AbstractStickyAssignor.isBalanced}: no member may hold more than one partition above
 * another that could take it); it counts partitions, which is what a member's fetch and processing
 * load scale with; and a member that subscribes only to topics that do not exist is left out,
 * because no assignor can give it anything. A member that can take only a few partitions (a small
 * topic of its own) stays in: both assignors face that same limit, so it widens both spreads
 * alike, and the comparison stays fair.
 *
 * <p>Two properties:
 * <ul>
 *   <li>With {@code kscale.assignor.co.partitioning=none} and fresh topics, every task is one
 *       partition, as fine-grained as Kafka's assignor: kscale's spread is at most Kafka's.</li>
 *   <li>With the default co-partitioning, topics of one size with the same subscribers share
 *       units ({@code T:t} holds task t of each), so a unit weighs as many partitions as it has
 *       topics and only whole units move: kscale's spread is at most Kafka's plus twice the
 *       heaviest unit's weight minus one, the granularity a whole-unit assignment cannot go below
 *       on either side. Once was too tight: topics t0 (4 partitions) read by m0 and m2, t1 and t2
 *       (8 each) read by all four members share units of 2, so m1 and m3 hold even counts; 20
 *       partitions, and every whole-unit assignment has spread 2 (m1 = m3 = 4 leaves 6 and 6;
 *       m1 = 6, m3 = 4 leaves 5 and 5 but 6 - 4; m1 = m3 = 6 leaves 4 and 4), Kafka's 5/5/5/5
 *       has 0 (found by the first fresh-seed runs, seed 7814384477741303655).</li>
 * </ul>
 * Each case also checks the task rule (partition p with partition {@code p % T}, on a subscriber,
 * each partition once) and stickiness: one more rebalance with nothing changed moves nothing.
 *
 * <p>Seeded by {@link Seeds}, as every property of this module: a failed try names its seed and
 * the command that replays it first ({@code -Dkscale.seed=<seed>}); {@code -Dkscale.seed=random}
 * or {@code -Pfresh-seeds} draws fresh ones.
 */
class SubscriptionBalancePropertyTest {

    private static final int TRIES = 200;

    @Property
    Stream<DynamicTest> spreadIsAtMostTheCooperativeStickyAssignorsWithOnePartitionPerTask() {
        return Seeds.tries(TRIES, random -> checkCase(random, "none"));
    }

    @Property
    Stream<DynamicTest> spreadIsAtMostTheCooperativeStickyAssignorsPlusTheUnitGranularityWhenCoPartitioned() {
        return Seeds.tries(TRIES, random -> checkCase(random, "by-task-count"));
    }

    private static void checkCase(SplittableRandom random, String coPartitioning) {
        Map<String, Object> config = new HashMap<>();
        config.put(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
        config.put(KeyPreservingAssignorConfig.CO_PARTITIONING_CONFIG, coPartitioning);
        RebalanceProtocol protocol = random.nextBoolean() ? RebalanceProtocol.COOPERATIVE : RebalanceProtocol.EAGER;
        GroupSimulator group = new GroupSimulator(protocol, config);
        int topicCount = 1 + random.nextInt(5);
        List<String> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) {
            topics.add("t" + t);
            // co-partitioned: counts from a few sizes, so that topics share units more often
            group.topic("t" + t, coPartitioning.equals("none") ? 1 + random.nextInt(12) : 2 * (1 + random.nextInt(4)));
        }
        int memberCount = 2 + random.nextInt(6);
        Map<String, List<String>> subscriptions = new TreeMap<>();
        for (int m = 0; m < memberCount; m++) {
            List<String> subscribed = new ArrayList<>();
            if (m > 0 && random.nextInt(3) == 0) {
                subscribed.addAll(subscriptions.get("m" + random.nextInt(m))); // a rolling deploy's two versions
            }
            while (subscribed.isEmpty()) {
                topics.stream().filter(topic -> random.nextInt(3) > 0).forEach(subscribed::add);
            }
            subscriptions.put("m" + m, subscribed);
            group.join("m" + m, subscribed.toArray(new String[0]));
        }
        String input = protocol + ", co-partitioning " + coPartitioning + ", topics "
                + partitionCounts(group.cluster(), topics) + ", subscriptions " + subscriptions;
        Seeds.sample("%s", input);

        group.rebalanceUntilStable();
        Map<TopicPartition, String> settled = group.owners();
        checkTaskRule(group, subscriptions, settled, input);
        group.rebalance();
        assertThat(group.owners()).as("a rebalance with nothing changed moves nothing; %s", input).isEqualTo(settled);

        Map<String, Integer> ours = group.load();
        Map<String, Integer> kafkas = cooperativeStickyLoad(group.cluster(), subscriptions);
        int allowance = coPartitioning.equals("none") ? 0 : 2 * (heaviestUnit(group, subscriptions) - 1);
        assertThat(spread(ours)).as("kscale's spread of %s vs CooperativeStickyAssignor's of %s (allowance %d); %s",
                ours, kafkas, allowance, input).isLessThanOrEqualTo(spread(kafkas) + allowance);
    }

    /** {@code max − min} partitions per member; the maps hold only members that can take a partition. */
    static int spread(Map<String, Integer> load) {
        return load.values().stream().mapToInt(Integer::intValue).max().orElse(0)
                - load.values().stream().mapToInt(Integer::intValue).min().orElse(0);
    }

    private static Map<String, Integer> cooperativeStickyLoad(Cluster cluster, Map<String, List<String>> subscriptions) {
        Map<String, Subscription> input = new HashMap<>();
        subscriptions.forEach((member, topics) -> input.put(member, new Subscription(topics)));
        Map<String, Assignment> result = new CooperativeStickyAssignor().assign(cluster, new GroupSubscription(input))
                .groupAssignment();
        Map<String, Integer> load = new TreeMap<>();
        result.forEach((member, assignment) -> load.put(member, assignment.partitions().size()));
        return load;
    }

    /** Every partition once, on a subscriber, with its task's first partition. */
    private static void checkTaskRule(GroupSimulator group, Map<String, List<String>> subscriptions,
                                      Map<TopicPartition, String> owners, String input) {
        GroupLayout layout = group.member("m0").assignor.knownLayout();
        Cluster cluster = group.cluster();
        subscriptions.values().stream().flatMap(List::stream).distinct().forEach(topic -> {
            int taskCount = layout.topic(topic).map(TopicLayout::taskCount).orElseThrow();
            for (int p = 0; p < cluster.partitionCountForTopic(topic); p++) {
                TopicPartition partition = new TopicPartition(topic, p);
                String owner = owners.get(partition);
                assertThat(owner).as("owner of %s; %s", partition, input).isNotNull();
                assertThat(subscriptions.get(owner)).as("%s on a subscriber; %s", partition, input).contains(topic);
                assertThat(owner).as("%s with partition %d; %s", partition, p % taskCount, input)
                        .isEqualTo(owners.get(new TopicPartition(topic, p % taskCount)));
            }
        });
    }

    /**
     * Partitions in the heaviest unit: with co-partitioning, the topics of one size read by the
     * same members share units, one partition of each (the topics are fresh: T is their count).
     */
    private static int heaviestUnit(GroupSimulator group, Map<String, List<String>> subscriptions) {
        Map<String, List<String>> subscribersOfTopic = new TreeMap<>();
        subscriptions.forEach((member, topics) -> topics.forEach(topic ->
                subscribersOfTopic.computeIfAbsent(topic, t -> new ArrayList<>()).add(member)));
        Map<List<Object>, Integer> topicsPerUnit = new HashMap<>();
        subscribersOfTopic.forEach((topic, members) -> topicsPerUnit.merge(
                List.of(members, group.cluster().partitionCountForTopic(topic)), 1, Integer::sum));
        return topicsPerUnit.values().stream().mapToInt(Integer::intValue).max().orElse(1);
    }

    private static Map<String, Integer> partitionCounts(Cluster cluster, List<String> topics) {
        Map<String, Integer> counts = new TreeMap<>();
        topics.forEach(topic -> counts.put(topic, cluster.partitionCountForTopic(topic)));
        return counts;
    }
}
