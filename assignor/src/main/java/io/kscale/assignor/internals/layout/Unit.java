package io.kscale.assignor.internals.layout;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.ObjIntConsumer;
import java.util.stream.Collectors;

/**
 * One unit of assignment: task {@code t} of every topic with task count T, the co-partitioned
 * topics of a group. A unit always goes to one member, so records with the same key in two
 * topics with the same T (a join) meet in one consumer, as Samza's {@code GroupByPartition} and
 * Kafka Streams' co-partitioning ensure. Immutable.
 *
 * <p>Example: {@code orders} (T=4, 8 partitions) and {@code payments} (T=4, 4 partitions): unit
 * {@code 4:1} holds orders 1 and 5 and payments 1, weight 3.
 */
public final class Unit {

    private final String id;
    private final int taskCount;
    private final int task;
    private final List<TopicLayout> topics;
    /** The names of {@link #topics}: one list shared by every unit of the co-partitioned group. */
    private final List<String> topicNames;
    private final long weight;

    /**
     * @param topics the co-partitioned topics, in name order
     * @param topicNames their names, in the same order (unmodifiable; shared by the group's units)
     */
    Unit(String id, int taskCount, int task, List<TopicLayout> topics, List<String> topicNames) {
        this.id = id;
        this.taskCount = taskCount;
        this.task = task;
        this.topics = topics;
        this.topicNames = topicNames;
        long sum = 0;
        for (TopicLayout topic : topics) {
            sum += topic.partitionCountOf(task);
        }
        this.weight = sum;
    }

    /**
     * A name for the unit that stays the same while T does: {@code "<T>:<task>"}, e.g.
     * {@code "4:1"}, or {@code "<topic>:<T>:<task>"} for a topic placed on its own
     * ({@link CoPartitioning#NONE}). Expansions add partitions to a unit without renaming it, so
     * placement can stay sticky.
     *
     * @return the unit id
     */
    public String id() {
        return id;
    }

    /** @return T, shared by every topic of the unit */
    public int taskCount() {
        return taskCount;
    }

    /** @return the task index, from 0 to T - 1 */
    public int task() {
        return task;
    }

    /** @return the co-partitioned topics, in name order; a topic may hold no partition of this task yet */
    public List<String> topics() {
        return topicNames;
    }

    /**
     * @param topic a topic
     * @return the unit's partitions of the topic in ascending order; empty if the topic is not in the unit
     */
    public int[] partitions(String topic) {
        for (TopicLayout layout : topics) {
            if (layout.topic().equals(topic)) {
                return layout.partitionsOf(task);
            }
        }
        return new int[0];
    }

    /**
     * Calls {@code action} with every partition of the unit, topic by topic in name order, without
     * building lists (the assignor walks every unit of large groups).
     *
     * @param action called with each topic and partition
     */
    public void forEachPartition(ObjIntConsumer<String> action) {
        for (TopicLayout layout : topics) {
            for (int partition = task; partition < layout.partitionCount(); partition += taskCount) {
                action.accept(layout.topic(), partition);
            }
        }
    }

    /** @return the number of partitions in the unit, at least 1: its share of load */
    public long weight() {
        return weight;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Unit)) {
            return false;
        }
        Unit that = (Unit) o;
        return id.equals(that.id) && topics.equals(that.topics);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, topics);
    }

    @Override
    public String toString() {
        return "unit " + id() + topics.stream().map(layout -> layout.topic() + Arrays.toString(layout.partitionsOf(task)))
                .collect(Collectors.joining(", ", "{", "}"));
    }
}
