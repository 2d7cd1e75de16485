package io.kscale.assignor;

import io.kscale.assignor.internals.layout.TopicLayout;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * Names one task of {@link KeyPreservingAssignor}: task {@code t} of the co-partitioned topics
 * with task count {@code T}, the unit the assignor places whole on one member. It holds every
 * partition {@code p} of those topics with {@code p % T == t}, now and after any expansion that
 * keeps T, so a stateful application can key its local state by it. Immutable.
 *
 * <p>Example: {@code orders} and {@code payments}, both T = 4: {@code TaskRef.of(List.of("orders",
 * "payments"), 4, 1)}, id {@code "4:1"}, holds orders 1, 5, 9, ... and payments 1, 5, ...
 *
 * <p>The topics are those the group's leader places together: the topics with task count T
 * subscribed by the same members (usually every subscribed topic with that T). The {@link #id()}
 * alone is unique among the tasks of one such set; compare whole {@code TaskRef}s when members
 * subscribe to different topics.
 */
public final class TaskRef implements Comparable<TaskRef> {

    private final List<String> topics;
    private final int taskCount;
    private final int task;

    private TaskRef(List<String> topics, int taskCount, int task) {
        this.topics = topics;
        this.taskCount = taskCount;
        this.task = task;
    }

    /**
     * Names a task.
     *
     * @param topics the co-partitioned topics, in any order, at least one
     * @param taskCount T, from 1 to {@link TopicLayout#MAX_COUNT}
     * @param task t, from 0 to T - 1
     * @return the task
     * @throws IllegalArgumentException if there is no topic, a topic name is not legal, or a count is out of range
     */
    public static TaskRef of(Collection<String> topics, int taskCount, int task) {
        TreeSet<String> sorted = new TreeSet<>();
        for (String topic : Objects.requireNonNull(topics, "topics")) {
            if (!TopicLayout.isLegalName(topic)) {
                throw new IllegalArgumentException("topic name '" + topic + "' is not a legal Kafka topic name");
            }
            sorted.add(topic);
        }
        if (sorted.isEmpty()) {
            throw new IllegalArgumentException("a task needs at least one topic");
        }
        if (taskCount < 1 || taskCount > TopicLayout.MAX_COUNT) {
            throw new IllegalArgumentException("task count " + taskCount + " is outside 1.." + TopicLayout.MAX_COUNT);
        }
        if (task < 0 || task >= taskCount) {
            throw new IllegalArgumentException("task " + task + " is outside 0.." + (taskCount - 1));
        }
        return new TaskRef(List.copyOf(sorted), taskCount, task);
    }

    /** @return the co-partitioned topics, in name order */
    public List<String> topics() {
        return topics;
    }

    /** @return T, the task count shared by the topics */
    public int taskCount() {
        return taskCount;
    }

    /** @return t, from 0 to T - 1 */
    public int task() {
        return task;
    }

    /** @return {@code "T:t"}, e.g. {@code "4:1"}: stable while T is (see the class comment for its scope) */
    public String id() {
        return taskCount + ":" + task;
    }

    /**
     * Whether a partition belongs to this task, also a partition added by a later expansion.
     *
     * @param partition a partition
     * @return whether its topic is one of {@link #topics()} and {@code partition % T == t}
     */
    public boolean contains(TopicPartition partition) {
        return partition.partition() >= 0 && partition.partition() % taskCount == task
                && Collections.binarySearch(topics, partition.topic()) >= 0;
    }

    /** Orders by T, then t, then the topics. */
    @Override
    public int compareTo(TaskRef other) {
        int order = Integer.compare(taskCount, other.taskCount);
        if (order == 0) {
            order = Integer.compare(task, other.task);
        }
        for (int i = 0; order == 0 && i < Math.min(topics.size(), other.topics.size()); i++) {
            order = topics.get(i).compareTo(other.topics.get(i));
        }
        return order != 0 ? order : Integer.compare(topics.size(), other.topics.size());
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TaskRef)) {
            return false;
        }
        TaskRef that = (TaskRef) o;
        return taskCount == that.taskCount && task == that.task && topics.equals(that.topics);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topics, taskCount, task);
    }

    /** @return e.g. {@code "4:1[orders, payments]"} */
    @Override
    public String toString() {
        return id() + topics;
    }
}
