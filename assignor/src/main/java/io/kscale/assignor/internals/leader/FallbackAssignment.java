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
 * an input no check foresaw; an {@link Error} such as a {@link StackOverflowError} too): a plain assignment that Kafka's consumer accepts, so that the group
 * still forms. Issue 17: before, the exception left {@code assign()}, and since every new leader
 * computes the same thing from the same subscriptions, the group could not form at all.
 *
 * <p>Rules, per partition the metadata has of a topic some member subscribes to (in that order):
 * <ol>
 *   <li>claimed in {@code ownedPartitions} by exactly one member, subscribed to it: it stays there;</li>
 *   <li>claimed by anyone else (two members, or one not subscribed): nobody gets it in this
 *       rebalance. Kafka's COOPERATIVE rule forbids giving a partition to one member in the
 *       rebalance that revokes it from another; the claimants revoke it and rejoin, and the next
 *       rebalance hands it out;</li>
 *   <li>claimed by nobody: it goes with the partitions of its task ({@code p % T}, T from the
 *       layout when the leader got that far) if a subscriber holds one, else the whole task goes to
 *       the least loaded subscriber (ties: the smaller member id).</li>
 * </ol>
 * Every member's userData carries the layout the leader agreed, if it got that far, without
 * warmups or follow-up; otherwise none, and members keep the layout they know. Under EAGER no
 * member reports owned partitions, so every task is spread afresh (keys stay together per topic,
 * but may change member). No stateful warmup is planned: a task moves at once.
 *
 * <p>Example: {@code orders} with T=2 and 4 partitions; {@code a} owns 0, {@code b} and {@code c}
 * both claim 1, nobody claims 2 and 3. Then {@code a} keeps 0 and gets 2 (task 0), 1 is withheld,
 * 3 (task 1, no holder) goes to the least loaded of {@code b} and {@code c}, that is {@code b}.
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
        int kept = 0;
        int withheld = 0;
        int spread = 0;
        for (Map.Entry<String, SortedSet<String>> topic : subscribers.entrySet()) {
            String name = topic.getKey();
            int count = metadata.partitionCountForTopic(name);
            int taskCount = layout.flatMap(l -> l.topic(name)).map(TopicLayout::taskCount).orElse(count);
            // Per task: who holds a partition of it; then the unclaimed partitions of each task.
            Map<Integer, String> holder = new HashMap<>();
            SortedMap<Integer, List<TopicPartition>> free = new TreeMap<>();
            for (int p = 0; p < count; p++) {
                TopicPartition partition = new TopicPartition(name, p);
                List<String> claimants = claims.get(partition);
                if (claimants == null) {
                    free.computeIfAbsent(p % taskCount, t -> new ArrayList<>()).add(partition);
                } else if (claimants.size() == 1 && topic.getValue().contains(claimants.get(0))) {
                    String owner = claimants.get(0);
                    assigned.get(owner).add(partition);
                    load.merge(owner, 1, Integer::sum);
                    holder.putIfAbsent(p % taskCount, owner);
                    kept++;
                } else {
                    withheld++;
                }
            }
            // Ordered by load, then id; a member leaves the set while its load changes.
            TreeSet<String> leastLoaded = new TreeSet<>(Comparator.<String>comparingInt(load::get)
                    .thenComparing(Comparator.naturalOrder()));
            leastLoaded.addAll(topic.getValue());
            for (Map.Entry<Integer, List<TopicPartition>> task : free.entrySet()) {
                String member = holder.get(task.getKey());
                if (member == null) {
                    member = leastLoaded.first();
                }
                leastLoaded.remove(member);
                assigned.get(member).addAll(task.getValue());
                load.merge(member, task.getValue().size(), Integer::sum);
                leastLoaded.add(member);
                spread += task.getValue().size();
            }
        }
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
