package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.wire.AssignmentInfo;
import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

/**
 * What a leader's assignment must satisfy whatever members sent, as Kafka's consumer checks it
 * (or would fail on it): shared by the hostile-subscription examples and the subscription fuzz.
 */
final class SubscriptionChecks {

    private SubscriptionChecks() {
    }

    /**
     * An assignment for every member; each partition at most once, in the metadata, of a topic its
     * member subscribes to; and, if some member reported owned partitions, Kafka's COOPERATIVE rule
     * ({@code ConsumerCoordinator#validateCooperativeAssignment}, which throws
     * {@code IllegalStateException} on the leader): no partition revoked from one member and given
     * to another in the same rebalance. The rule is checked against the raw {@code ownedPartitions},
     * invalid entries included, as Kafka checks it.
     */
    static void checkValid(Cluster metadata, Map<String, Subscription> subscriptions, Map<String, Assignment> assignments) {
        assertThat(assignments.keySet()).as("members assigned").containsExactlyInAnyOrderElementsOf(subscriptions.keySet());
        Set<TopicPartition> seen = new HashSet<>();
        assignments.forEach((member, assignment) -> {
            List<String> topics = Optional.ofNullable(subscriptions.get(member).topics()).orElse(List.of());
            for (TopicPartition partition : assignment.partitions()) {
                assertThat(seen.add(partition)).as("%s assigned twice", partition).isTrue();
                Integer count = metadata.partitionCountForTopic(partition.topic());
                assertThat(count).as("%s is of a topic in the metadata", partition).isNotNull();
                assertThat(partition.partition()).as("%s in the metadata", partition).isBetween(0, count - 1);
                assertThat(topics).as("%s given to %s, which subscribes to it", partition, member).contains(partition.topic());
            }
        });
        Set<TopicPartition> revoked = new HashSet<>();
        Set<TopicPartition> added = new HashSet<>();
        subscriptions.forEach((member, subscription) -> {
            List<TopicPartition> assigned = assignments.get(member).partitions();
            List<TopicPartition> owned = owned(subscription);
            owned.stream().filter(p -> !assigned.contains(p)).forEach(revoked::add);
            assigned.stream().filter(p -> !owned.contains(p)).forEach(added::add);
        });
        revoked.retainAll(added);
        assertThat(revoked).as("partitions revoked from one member and assigned to another in one rebalance").isEmpty();
    }

    /**
     * Every partition of a topic some member subscribes to (and the metadata has) is assigned,
     * except while a member revokes part of its unit: a partition that a member claims and does not
     * get, and the partitions of its task ({@code p % T}, in any topic of that T, for co-partitioned
     * units) wait for the next rebalance. T comes from the layout in the assignments' userData.
     */
    static void checkComplete(Cluster metadata, Map<String, Subscription> subscriptions, Map<String, Assignment> assignments) {
        Set<TopicPartition> assigned = new HashSet<>();
        assignments.values().forEach(assignment -> assigned.addAll(assignment.partitions()));
        GroupLayout layout = assignments.values().stream().map(a -> AssignmentInfo.decode(a.userData()))
                .flatMap(Optional::stream).map(AssignmentInfo::layout).findFirst().orElse(GroupLayout.empty());
        Set<TopicPartition> claimed = new HashSet<>();
        Set<String> waitingTasks = new HashSet<>();
        subscriptions.values().forEach(subscription -> owned(subscription).forEach(partition -> {
            claimed.add(partition);
            if (!assigned.contains(partition)) {
                layout.topic(partition.topic()).filter(t -> partition.partition() >= 0).ifPresent(t ->
                        waitingTasks.add(t.taskCount() + ":" + partition.partition() % t.taskCount()));
            }
        }));
        Set<String> subscribed = new HashSet<>();
        subscriptions.values().stream().filter(s -> s.topics() != null).forEach(s -> subscribed.addAll(s.topics()));
        for (String topic : subscribed) {
            Integer count = topic == null ? null : metadata.partitionCountForTopic(topic);
            Optional<TopicLayout> topicLayout = topic == null ? Optional.empty() : layout.topic(topic);
            for (int p = 0; count != null && p < count; p++) {
                TopicPartition partition = new TopicPartition(topic, p);
                int task = p;
                boolean waits = claimed.contains(partition) || topicLayout.map(t ->
                        waitingTasks.contains(t.taskCount() + ":" + task % t.taskCount())).orElse(false);
                assertThat(assigned.contains(partition) || waits)
                        .as("%s assigned, or withheld while a member revokes its task", partition).isTrue();
            }
        }
    }

    private static List<TopicPartition> owned(Subscription subscription) {
        return subscription.ownedPartitions() == null ? List.of() : subscription.ownedPartitions();
    }

    /** @return bytes this thread allocated so far (HotSpot's {@code com.sun.management.ThreadMXBean}) */
    static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
