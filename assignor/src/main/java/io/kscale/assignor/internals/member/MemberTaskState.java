package io.kscale.assignor.internals.member;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.TaskRef;
import io.kscale.assignor.TaskStateListener;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.wire.AssignmentInfo;
import io.kscale.assignor.internals.wire.MemberReport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The member side of task state: translates between the application's {@link TaskStateListener}
 * and the wire. Before a rebalance it turns the listener's lags into the report's per-topic form
 * (a task under its first topic in the layout, or under its first topic and T when the member
 * does not know the layout yet); after one it names the member's tasks (its
 * partitions grouped by the assignment's task groups, and the warmups), tells the listener what
 * to warm up and what it may drop, and remembers what it holds for the next time.
 *
 * <p>Example: the member held {@code 4:1} (active) and reported state of {@code 4:2}; the new
 * assignment gives it the partitions of {@code 4:1} and the warmup {@code 4:3}: {@code onDrop({4:2})},
 * then {@code onWarmup({4:3})}.
 *
 * <p>Listener exceptions are logged and swallowed: a faulty listener must not take the consumer
 * out of its group.
 */
public final class MemberTaskState {

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingAssignor.class);

    private final TaskStateListener listener;
    /** The tasks this member ran or warmed up after its last assignment, plus those it reported state of since. */
    private SortedSet<TaskRef> held = new TreeSet<>();
    /** Sorted, so that a fallback group lists its topics alike in every JVM (Set.copyOf's order is not). */
    private SortedSet<String> subscription = Collections.emptySortedSet();
    private SortedSet<TaskRef> warmups = Collections.emptySortedSet();
    private SortedSet<TaskRef> active = Collections.emptySortedSet();

    public MemberTaskState(TaskStateListener listener) {
        this.listener = listener;
    }

    /**
     * Asks the listener for its lags, for the subscription.
     *
     * @param topics the topics the member subscribes to
     * @param layout the layout the report carries
     * @return records behind per topic, as {@link MemberReport} carries them
     */
    public Map<String, MemberReport.TopicLags> lags(Set<String> topics, GroupLayout layout) {
        subscription = Collections.unmodifiableSortedSet(new TreeSet<>(topics));
        Map<TaskRef, Long> reported;
        try {
            reported = listener.lags();
        } catch (RuntimeException e) {
            log.warn("TaskStateListener.lags() of {} failed; reporting no lags this rebalance", listener, e);
            return Map.of();
        }
        Map<String, Integer> taskCounts = new HashMap<>();
        Map<String, Map<Integer, Long>> byTopic = new TreeMap<>();
        int ignored = 0;
        for (Map.Entry<TaskRef, Long> entry : reported == null ? Map.<TaskRef, Long>of().entrySet() : reported.entrySet()) {
            TaskRef task = entry.getKey();
            Long lag = entry.getValue();
            Optional<String> topic = task == null || lag == null || lag < 0 ? Optional.empty() : reportedName(task, layout);
            if (topic.isPresent()) {
                taskCounts.put(topic.get(), task.taskCount());
                byTopic.computeIfAbsent(topic.get(), t -> new TreeMap<>()).merge(task.task(), lag, Math::max);
                held.add(task);
            } else {
                ignored++;
            }
        }
        if (ignored > 0) {
            log.debug("Ignored {} lags of the TaskStateListener: negative, or of tasks the layout no longer has", ignored);
        }
        Map<String, MemberReport.TopicLags> lags = new TreeMap<>();
        byTopic.forEach((topic, byTask) -> lags.put(topic, new MemberReport.TopicLags(taskCounts.get(topic), byTask)));
        return lags;
    }

    /**
     * The topic a task's lag is reported under: its first topic in the layout, if its T is still
     * the task's; its first topic if the layout has none of them (a member that just started).
     */
    private static Optional<String> reportedName(TaskRef task, GroupLayout layout) {
        for (String topic : task.topics()) {
            Optional<TopicLayout> topicLayout = layout.topic(topic);
            if (topicLayout.isPresent()) {
                return topicLayout.get().taskCount() == task.taskCount() ? Optional.of(topic) : Optional.empty();
            }
        }
        return Optional.of(task.topics().get(0));
    }

    /**
     * Takes in a new assignment and calls the listener: {@code onDrop} if something is no longer
     * needed here, then {@code onWarmup}.
     *
     * @param info the assignment's kscale userData, if it had some
     * @param partitions the partitions assigned
     * @param layout the layout the member knows now
     */
    public void assigned(Optional<AssignmentInfo> info, List<TopicPartition> partitions, GroupLayout layout) {
        List<List<String>> groups = info.map(AssignmentInfo::taskGroups).orElse(List.of());
        Map<String, List<String>> groupOfTopic = new HashMap<>();
        groups.forEach(group -> group.forEach(topic -> groupOfTopic.put(topic, group)));
        SortedSet<TaskRef> nowActive = new TreeSet<>();
        for (TopicPartition partition : partitions) {
            Optional<TopicLayout> topic = layout.topic(partition.topic());
            if (topic.isPresent()) {
                List<String> group = groupOfTopic.computeIfAbsent(partition.topic(), t -> fallbackGroup(t, layout));
                nowActive.add(TaskRef.of(group, topic.get().taskCount(), topic.get().taskOf(partition.partition())));
            }
        }
        SortedSet<TaskRef> nowWarm = info.map(AssignmentInfo::warmups).orElse(Collections.emptySortedSet());
        SortedSet<TaskRef> dropped = new TreeSet<>(held);
        dropped.removeAll(nowActive);
        dropped.removeAll(nowWarm);
        active = Collections.unmodifiableSortedSet(nowActive);
        warmups = Collections.unmodifiableSortedSet(new TreeSet<>(nowWarm));
        held = new TreeSet<>(nowActive);
        held.addAll(nowWarm);
        if (!dropped.isEmpty()) {
            try {
                listener.onDrop(Collections.unmodifiableSortedSet(dropped));
            } catch (RuntimeException e) {
                log.warn("TaskStateListener.onDrop({}) of {} failed", dropped, listener, e);
            }
        }
        try {
            listener.onWarmup(warmups);
        } catch (RuntimeException e) {
            log.warn("TaskStateListener.onWarmup({}) of {} failed", warmups, listener, e);
        }
    }

    /**
     * The group of a topic the assignment did not name (a leader before task state): the
     * subscribed topics with its T, which is the leader's group when every member subscribes alike.
     */
    private List<String> fallbackGroup(String topic, GroupLayout layout) {
        int taskCount = layout.topic(topic).orElseThrow().taskCount();
        List<String> group = new ArrayList<>();
        group.add(topic);
        for (String other : subscription) {
            if (!other.equals(topic) && layout.topic(other).map(TopicLayout::taskCount).orElse(-1) == taskCount) {
                group.add(other);
            }
        }
        return group;
    }

    /** @return the tasks this member runs after its last assignment */
    public SortedSet<TaskRef> active() {
        return active;
    }

    /** @return the tasks this member warms up after its last assignment */
    public SortedSet<TaskRef> warmups() {
        return warmups;
    }

    /**
     * Asks the listener for its lags now and names the warmups that have caught up, for
     * {@link EarlyFollowUp}.
     *
     * @param acceptableRecoveryLag the largest lag of a caught-up copy
     * @return the warmups whose reported lag is from 0 to {@code acceptableRecoveryLag}; empty if
     *         the listener failed
     */
    public SortedSet<TaskRef> caughtUpWarmups(long acceptableRecoveryLag) {
        if (warmups.isEmpty()) {
            return Collections.emptySortedSet();
        }
        Map<TaskRef, Long> reported;
        try {
            reported = listener.lags();
        } catch (RuntimeException e) {
            log.warn("TaskStateListener.lags() of {} failed; not checking whether warmups caught up", listener, e);
            return Collections.emptySortedSet();
        }
        SortedSet<TaskRef> caughtUp = new TreeSet<>();
        for (TaskRef task : warmups) {
            Long lag = reported == null ? null : reported.get(task);
            if (lag != null && lag >= 0 && lag <= acceptableRecoveryLag) {
                caughtUp.add(task);
            }
        }
        return caughtUp;
    }
}
