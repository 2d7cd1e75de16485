package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DynamicTest;

/**
 * Issue 25, finding 4: no task is ever split across members, in any round of a COOPERATIVE
 * rebalance, the fallback's included. Two members reading one task at once read one key's records
 * at once (a parent partition and its child after an expansion), so neither the order of the key
 * nor its state holds. Before, the fallback handed out a task's free partitions while another
 * partition of it was withheld from its old owner, and kept a task whose partitions different
 * members claimed split.
 *
 * <p>Random histories: members join, leave, drop one topic from their subscription and take it
 * back, topics grow by a multiple (now and then by one), and some rebalances go through the
 * fallback (a placement made to throw). Checked after every round, not only settled ones:
 * <ol>
 *   <li>in the round's assignment, the partitions of a task (of a unit, when co-partitioning
 *       groups topics; of a topic's task {@code p % T} in a fallback round, which knows no units)
 *       are on one member at most;</li>
 *   <li>a member is given a partition it did not own only if no other member owned a partition of
 *       the same task when the round began: otherwise that member still reads it until it
 *       revokes;</li>
 *   <li>the group settles within a few rounds.</li>
 * </ol>
 * Each history is drawn from the seed of its try ({@link Seeds}).
 */
class TaskSplitPropertyTest {

    private static final String ORDERS = "orders";
    private static final String PAYMENTS = "payments";
    private static final List<String> TOPICS = List.of(ORDERS, PAYMENTS);
    private static final int MAX_ROUNDS = 6;

    @Property
    Stream<DynamicTest> noTaskIsSplitAcrossMembersInAnyRound() {
        return Seeds.tries(60, TaskSplitPropertyTest::noTaskIsSplitInARandomHistory);
    }

    private static void noTaskIsSplitInARandomHistory(SplittableRandom random) {
        Map<String, Object> config = new HashMap<>();
        config.put(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
        boolean units = random.nextBoolean();
        config.put(KeyPreservingAssignorConfig.CO_PARTITIONING_CONFIG, units ? "by-task-count" : "none");
        int size = 2 + random.nextInt(3);
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, config)
                .topic(ORDERS, size).topic(PAYMENTS, random.nextBoolean() ? size : 2 + random.nextInt(5));
        List<String> members = new ArrayList<>();
        List<String> history = new ArrayList<>();
        int nextId = 0;
        for (int step = 0; step < 14; step++) {
            int events = 1 + random.nextInt(2);
            for (int e = 0; e < events; e++) {
                int action = random.nextInt(10);
                if (members.isEmpty() || action < 3) {
                    String id = "m" + nextId++;
                    group.join(id, TOPICS.toArray(new String[0]));
                    members.add(id);
                    history.add("join " + id);
                } else if (action < 4 && members.size() > 1) {
                    String id = members.remove(random.nextInt(members.size()));
                    group.leave(id);
                    history.add("leave " + id);
                } else if (action < 6) {
                    String id = members.get(random.nextInt(members.size()));
                    boolean narrow = group.member(id).topics.size() == TOPICS.size();
                    String[] topics = narrow ? new String[] {random.nextBoolean() ? ORDERS : PAYMENTS}
                            : TOPICS.toArray(new String[0]);
                    group.subscribe(id, topics);
                    history.add(id + " subscribes to " + List.of(topics));
                } else {
                    String topic = TOPICS.get(random.nextInt(TOPICS.size()));
                    int current = group.cluster().partitionCountForTopic(topic);
                    int grown = random.nextInt(8) == 0 ? current + 1 : current * 2;
                    if (grown <= 48) {
                        group.topic(topic, grown);
                        history.add(topic + " -> " + grown);
                    }
                }
            }
            boolean fallback = random.nextInt(3) == 0;
            boolean fallbackEveryRound = fallback && random.nextBoolean();
            history.add(fallback ? (fallbackEveryRound ? "fallback in every round" : "fallback in the first round") : "");
            Seeds.sample("co-partitioning %s; %s", units ? "by-task-count" : "none", history);
            boolean moving = true;
            for (int round = 1; moving; round++) {
                assertThat(round).as("rounds to settle after step %d", step).isLessThanOrEqualTo(MAX_ROUNDS);
                boolean fallingBack = fallback && (round == 1 || fallbackEveryRound);
                members.forEach(id -> group.member(id).assignor.placementFault(
                        fallingBack ? new IllegalStateException("injected by TaskSplitPropertyTest") : null));
                Map<TopicPartition, String> before = group.owners();
                moving = group.rebalance();
                check(group, members, before, units && !fallingBack, "step " + step + ", round " + round
                        + (fallingBack ? " (fallback)" : ""));
            }
        }
    }

    private static void check(GroupSimulator group, List<String> members, Map<TopicPartition, String> before,
                              boolean byUnit, String when) {
        Map<TopicPartition, String> after = group.owners();
        GroupLayout layout = group.member(new TreeSet<>(members).first()).info().layout();
        Map<String, String> holderOfTask = new HashMap<>();
        Map<String, SortedSet<String>> ownersBeforeOfTask = new HashMap<>();
        before.forEach((partition, owner) -> {
            if (group.member(owner) != null) {
                ownersBeforeOfTask.computeIfAbsent(task(group, members, layout, partition, byUnit),
                        t -> new TreeSet<>()).add(owner);
            }
        });
        after.forEach((partition, owner) -> {
            String task = task(group, members, layout, partition, byUnit);
            String other = holderOfTask.putIfAbsent(task, owner);
            assertThat(other == null || other.equals(owner)).as("%s: task %s on %s and %s", when, task, other, owner)
                    .isTrue();
            if (!owner.equals(before.get(partition))) {
                SortedSet<String> ownedBefore = ownersBeforeOfTask.getOrDefault(task, new TreeSet<>());
                assertThat(ownedBefore.stream().allMatch(owner::equals))
                        .as("%s: %s given to %s while %s still owned partitions of task %s", when, partition, owner,
                                ownedBefore, task).isTrue();
            }
        });
    }

    /**
     * The task of a partition: its topic and {@code p % T}; by unit, topics with the same T and the
     * same subscribers share it (the rule of co-partitioning by task count).
     */
    private static String task(GroupSimulator group, List<String> members, GroupLayout layout, TopicPartition partition,
                               boolean byUnit) {
        TopicLayout topic = layout.topic(partition.topic()).orElseThrow();
        int t = topic.taskOf(partition.partition());
        if (!byUnit) {
            return partition.topic() + ":" + t;
        }
        SortedSet<String> subscribers = new TreeSet<>();
        members.stream().filter(id -> group.member(id).topics.contains(partition.topic())).forEach(subscribers::add);
        return subscribers + " T=" + topic.taskCount() + ":" + t;
    }
}
