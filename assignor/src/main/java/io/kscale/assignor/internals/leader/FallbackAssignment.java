package io.kscale.assignor.internals.leader;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.wire.AssignmentInfo;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's last resort when its placement throws ({@link LeaderAssignment} has a bug, or met
 * an input no check foresaw; an {@link Error} such as a {@link StackOverflowError} too): a plain
 * assignment that Kafka's consumer accepts, so that the group still forms. Issue 17: before, the
 * exception left {@code assign()}, and since every new leader computes the same thing from the
 * same subscriptions, the group could not form at all.
 *
 * <p>Rules, per task ({@code p % T}, T from the layout when the leader got that far, else one
 * partition per task) of a topic some member subscribes to. A partition is <i>owned</i> when
 * exactly one member claims it in {@code ownedPartitions} and subscribes to its topic; it is
 * <i>contested</i> when two members claim it, or one not subscribed (Kafka's COOPERATIVE rule
 * forbids giving it to anyone in the rebalance that revokes it: the claimants revoke it and rejoin).
 * <ol>
 *   <li>No partition contested and one owner at most: the whole task goes to its owner, or, owned
 *       by nobody, to the least loaded subscriber (ties: the smaller member id).</li>
 *   <li>Otherwise the owner of most of its partitions (ties: the smaller id) keeps what it owns,
 *       and the rest of the task waits: nobody gets a free partition of it, and the other owners
 *       and claimants revoke theirs. Once they have, the next rebalance finds the task with one
 *       owner (rule 1) and hands it the rest.</li>
 * </ol>
 * So a task is never on two members, and no member starts reading a partition of a task that
 * another member still reads until it revokes (issue 25: before, a free child partition went to
 * one member while its parent was being revoked from another, and a task whose partitions were
 * owned by two members stayed split: both read one key's records at once, out of order).
 * Every member's userData carries the layout the leader agreed, if it got that far, without
 * warmups or follow-up; otherwise none, and members keep the layout they know. Under EAGER no
 * member reports owned partitions, so every task is spread afresh (keys stay together per topic,
 * but may change member). No stateful warmup is planned: a task moves at once. Co-partitioned
 * topics are not kept together here: only keys of one topic share a task.
 *
 * <p>Example: {@code orders} with T=2 and 6 partitions; {@code a} owns 0, {@code b} and
 * {@code c} both claim 1, {@code c} owns 3 and {@code a} owns 4, nobody claims 2 and 5. Task 0
 * (0, 2, 4) has one owner, {@code a}: it gets 2 too. Task 1 (1, 3, 5) has 1 contested: {@code c}
 * keeps 3, and 1 and 5 wait; once {@code b} and {@code c} have revoked 1, the next rebalance gives
 * {@code c} 1 and 5.
 */
public final class FallbackAssignment {

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingAssignor.class);

    private FallbackAssignment() {
    }

    /**
     * @param metadata the leader's view of the cluster
     * @param subscriptions what the members sent (checked here again: this must not throw for any of it)
     * @param layout the layout the leader agreed before it failed, if it got that far
     * @param failure what the leader's placement threw
     * @param metrics where the fallback is counted
     * @return a valid assignment of every member
     */
    public static GroupAssignment assign(Cluster metadata, GroupSubscription subscriptions, Optional<GroupLayout> layout,
                                         Throwable failure, AssignorMetrics metrics) {
        metrics.assignmentFallback();
        SortedMap<String, Subscription> members = new TreeMap<>(subscriptions.groupSubscription());
        SortedMap<String, SortedSet<String>> subscribers = subscribers(members, metadata);
        Map<TopicPartition, List<String>> claims = claims(members, metadata);
        Map<String, List<TopicPartition>> assigned = new TreeMap<>();
        Map<String, Integer> load = new HashMap<>();
        members.keySet().forEach(member -> {
            assigned.put(member, new ArrayList<>());
            load.put(member, 0);
        });
        int[] counted = new int[3]; // kept, spread, withheld
        for (Map.Entry<String, SortedSet<String>> topic : subscribers.entrySet()) {
            assignTopic(topic.getKey(), topic.getValue(), metadata, layout, claims, assigned, load, counted);
        }
        int kept = counted[0];
        int spread = counted[1];
        int withheld = counted[2];
        log.error("The leader's placement failed; sent a fallback assignment so that the group goes on (metric "
                + "assignment-fallbacks-total): {} partitions kept with their owner, {} spread by task, {} withheld "
                + "until their claimants revoke them; no warmups. Keys of unowned tasks may have moved. This is a "
                + "kscale bug: please report it with this stack trace.", kept, spread, withheld, failure);
        ByteBuffer userData = userData(layout);
        Map<String, Assignment> assignments = new HashMap<>();
        assigned.forEach((member, partitions) -> assignments.put(member,
                new Assignment(partitions, userData == null ? null : userData.duplicate())));
        return new GroupAssignment(assignments);
    }

    /**
     * Assigns one topic's partitions by the rules of the class comment, task by task: a task goes
     * whole to one member or waits; its partitions are never on two members.
     *
     * @param counted partitions kept with their owner, spread, withheld: added to
     */
    private static void assignTopic(String name, SortedSet<String> topicSubscribers, Cluster metadata,
                                    Optional<GroupLayout> layout, Map<TopicPartition, List<String>> claims,
                                    Map<String, List<TopicPartition>> assigned, Map<String, Integer> load, int[] counted) {
        int count = metadata.partitionCountForTopic(name);
        int taskCount = layout.flatMap(l -> l.topic(name)).map(TopicLayout::taskCount).orElse(count);
        SortedMap<Integer, TaskClaims> tasks = new TreeMap<>();
        for (int p = 0; p < count; p++) {
            TopicPartition partition = new TopicPartition(name, p);
            List<String> claimants = claims.get(partition);
            TaskClaims task = tasks.computeIfAbsent(p % taskCount, t -> new TaskClaims());
            if (claimants == null) {
                task.free.add(partition);
            } else if (claimants.size() == 1 && topicSubscribers.contains(claimants.get(0))) {
                task.owned.computeIfAbsent(claimants.get(0), member -> new ArrayList<>()).add(partition);
            } else {
                task.contested++;
            }
        }
        // First what owners keep, so that the whole tasks nobody owns go to the members least loaded by it.
        List<List<TopicPartition>> unowned = new ArrayList<>();
        for (TaskClaims task : tasks.values()) {
            Optional<String> keeper = task.keeper();
            if (keeper.isPresent()) {
                List<TopicPartition> keeps = task.owned.get(keeper.get());
                int taken = keeps.size();
                if (task.whole()) {
                    keeps.addAll(task.free);
                    counted[1] += task.free.size();
                } else {
                    counted[2] += task.size() - taken;
                }
                assigned.get(keeper.get()).addAll(keeps);
                load.merge(keeper.get(), keeps.size(), Integer::sum);
                counted[0] += taken;
            } else if (task.whole()) {
                unowned.add(task.free);
            } else {
                counted[2] += task.size();
            }
        }
        // Ordered by load, then id; a member leaves the set while its load changes.
        TreeSet<String> leastLoaded = new TreeSet<>(Comparator.<String>comparingInt(load::get)
                .thenComparing(Comparator.naturalOrder()));
        leastLoaded.addAll(topicSubscribers);
        for (List<TopicPartition> task : unowned) {
            String member = leastLoaded.pollFirst();
            assigned.get(member).addAll(task);
            load.merge(member, task.size(), Integer::sum);
            leastLoaded.add(member);
            counted[1] += task.size();
        }
    }

    /** Who claims the partitions of one task ({@code p % T}) of a topic. */
    private static final class TaskClaims {
        /** Partitions nobody claims. */
        final List<TopicPartition> free = new ArrayList<>();
        /** By member, in id order: the partitions it alone claims, being subscribed to the topic. */
        final SortedMap<String, List<TopicPartition>> owned = new TreeMap<>();
        /** Partitions claimed by two members, or by one not subscribed: they must be revoked first. */
        int contested;

        /** @return whether the task can go whole to one member now: nothing to revoke, one owner at most */
        boolean whole() {
            return contested == 0 && owned.size() <= 1;
        }

        /** @return the member that keeps its partitions of the task: the one owning most (ties: the smaller id) */
        Optional<String> keeper() {
            String keeper = null;
            for (Map.Entry<String, List<TopicPartition>> owner : owned.entrySet()) {
                if (keeper == null || owner.getValue().size() > owned.get(keeper).size()) {
                    keeper = owner.getKey();
                }
            }
            return Optional.ofNullable(keeper);
        }

        int size() {
            int size = free.size() + contested;
            for (List<TopicPartition> partitions : owned.values()) {
                size += partitions.size();
            }
            return size;
        }
    }

    /** Topics the metadata has, each with the members subscribed to it; names in order. */
    private static SortedMap<String, SortedSet<String>> subscribers(Map<String, Subscription> members, Cluster metadata) {
        SortedMap<String, SortedSet<String>> subscribers = new TreeMap<>();
        members.forEach((member, subscription) -> {
            List<String> topics = subscription.topics();
            for (String topic : topics == null ? List.<String>of() : topics) {
                Integer count = topic == null ? null : metadata.partitionCountForTopic(topic);
                if (count != null && count > 0) {
                    subscribers.computeIfAbsent(topic, t -> new TreeSet<>()).add(member);
                }
            }
        });
        return subscribers;
    }

    /** The members that claim each partition the metadata has, each member once. */
    private static Map<TopicPartition, List<String>> claims(Map<String, Subscription> members, Cluster metadata) {
        Map<TopicPartition, List<String>> claims = new HashMap<>();
        members.forEach((member, subscription) -> {
            List<TopicPartition> owned = subscription.ownedPartitions();
            for (TopicPartition partition : owned == null ? List.<TopicPartition>of() : owned) {
                Integer count = partition == null || partition.topic() == null ? null
                        : metadata.partitionCountForTopic(partition.topic());
                if (count != null && partition.partition() >= 0 && partition.partition() < count) {
                    List<String> claimants = claims.computeIfAbsent(partition, p -> new ArrayList<>(1));
                    if (!claimants.contains(member)) {
                        claimants.add(member);
                    }
                }
            }
        });
        return claims;
    }

    /** The agreed layout, without warmups or follow-up; null (members keep theirs) if there is none or it cannot be written. */
    private static ByteBuffer userData(Optional<GroupLayout> layout) {
        if (layout.isEmpty()) {
            return null;
        }
        try {
            return AssignmentInfo.encode(LayoutCodec.encode(layout.get()), layout.get(), OptionalLong.empty(),
                    List.of(), List.of(), AssignmentInfo.VERSION);
        } catch (RuntimeException e) {
            log.error("Could not write layout epoch {} into the fallback assignment; members keep the layout they know",
                    layout.get().epoch(), e);
            return null;
        }
    }
}
