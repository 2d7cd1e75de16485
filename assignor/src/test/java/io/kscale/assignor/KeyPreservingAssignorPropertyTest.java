package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DynamicTest;

/**
 * The assignor's invariants over random histories of a group: members joining with one of two
 * subscriptions, members leaving, topics growing by a multiple (and now and then by a count that
 * is not one), under both protocols. After every rebalance that settles: every partition of a
 * subscribed topic is owned exactly once, by a member subscribed to it (the simulator also checks
 * Kafka's COOPERATIVE rule on every rebalance); partition p is with partition {@code p % T}; loads
 * of members with the same subscription differ by at most one task; and a rebalance with nothing
 * changed moves nothing. Either co-partitioning setting. Each history is drawn from the seed of its try ({@link Seeds}).
 */
class KeyPreservingAssignorPropertyTest {

    private static final Map<String, Object> NO_STORE = Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
    private static final List<List<String>> SUBSCRIPTIONS = List.of(List.of("orders"), List.of("orders", "payments"));

    @Property
    Stream<DynamicTest> invariantsHoldOverRandomHistories() {
        return Seeds.tries(60, KeyPreservingAssignorPropertyTest::invariantsHoldOverARandomHistory);
    }

    private static void invariantsHoldOverARandomHistory(SplittableRandom random) {
        RebalanceProtocol protocol = random.nextBoolean() ? RebalanceProtocol.COOPERATIVE : RebalanceProtocol.EAGER;
        Map<String, Object> config = new HashMap<>(NO_STORE);
        config.put(KeyPreservingAssignorConfig.CO_PARTITIONING_CONFIG, random.nextBoolean() ? "by-task-count" : "none");
        GroupSimulator group = new GroupSimulator(protocol, config)
                .topic("orders", 2 + random.nextInt(6)).topic("payments", 2 + random.nextInt(6));
        List<String> members = new ArrayList<>();
        int nextId = 0;
        for (int step = 0; step < 12; step++) {
            int action = random.nextInt(10);
            if (members.isEmpty() || action < 4) {
                String id = "m" + nextId++;
                group.join(id, SUBSCRIPTIONS.get(random.nextInt(SUBSCRIPTIONS.size())).toArray(new String[0]));
                members.add(id);
            } else if (action < 6 && members.size() > 1) {
                group.leave(members.remove(random.nextInt(members.size())));
            } else {
                String topic = random.nextBoolean() ? "orders" : "payments";
                int current = group.cluster().partitionCountForTopic(topic);
                int grown = random.nextInt(8) == 0 ? current + 1 : current * (2 + random.nextInt(2));
                if (grown <= 64) {
                    group.topic(topic, grown);
                }
            }
            group.rebalanceUntilStable();
            checkInvariants(group, members);
            Map<TopicPartition, String> before = group.owners();
            group.rebalance();
            assertThat(group.owners()).as("a rebalance with nothing changed moves nothing (%s, step %d, loads %s)", protocol, step, group.load()).isEqualTo(before);
        }
    }

    private static void checkInvariants(GroupSimulator group, List<String> members) {
        Map<TopicPartition, String> owners = group.owners();
        GroupLayout layout = group.member(members.get(0)).assignor.knownLayout();
        Set<String> subscribed = new HashSet<>();
        members.forEach(id -> subscribed.addAll(group.member(id).topics));
        for (String topic : subscribed) {
            int partitions = group.cluster().partitionCountForTopic(topic);
            TopicLayout topicLayout = layout.topic(topic).orElseThrow();
            for (int p = 0; p < partitions; p++) {
                TopicPartition partition = new TopicPartition(topic, p);
                String owner = owners.get(partition);
                assertThat(owner).as("owner of %s", partition).isNotNull();
                assertThat(group.member(owner).topics).as("%s on a subscriber", partition).contains(topic);
                assertThat(owner).as("%s with its task's first partition (T=%d)", partition, topicLayout.taskCount())
                        .isEqualTo(owners.get(new TopicPartition(topic, p % topicLayout.taskCount())));
            }
        }
        for (List<String> subscription : SUBSCRIPTIONS) {
            List<Integer> loads = new ArrayList<>();
            members.stream().filter(id -> group.member(id).topics.equals(subscription))
                    .forEach(id -> loads.add(group.member(id).owned.size()));
            if (loads.size() > 1 && subscription.size() == 1) {
                int heaviestTask = heaviestTask(group, layout, "orders");
                assertThat(loads.stream().mapToInt(Integer::intValue).max().getAsInt()
                        - loads.stream().mapToInt(Integer::intValue).min().getAsInt())
                        .as("loads %s of members subscribed to %s", loads, subscription)
                        .isLessThanOrEqualTo(heaviestTask);
            }
        }
    }

    /** Partitions in the largest task of a topic (tasks differ by one when the count is not a multiple of T). */
    private static int heaviestTask(GroupSimulator group, GroupLayout layout, String topic) {
        int partitions = group.cluster().partitionCountForTopic(topic);
        int tasks = layout.topic(topic).orElseThrow().taskCount();
        return (partitions + tasks - 1) / tasks;
    }
}
