package io.kscale.assignor.internals.placement;

import java.util.Objects;

/**
 * One unit of work to place: a Kafka Streams task, or a key-preserving unit of partitions of a
 * consumer group. Immutable.
 *
 * <p>A stateful task keeps local state that a new owner must restore before it can run, so the
 * engine moves it only to a caught-up client (KIP-441) and may give it standby and warmup copies.
 * A stateless task can run anywhere at once: it is balanced freely and never gets copies.
 *
 * <p>The weight is the task's share of load (partitions in a unit, say); the engine balances the
 * sum of weights per unit of client capacity. The co-location group (a sub-topology, or
 * co-partitioned units) is spread across clients so that one client does not hold all of it.
 * By default a task has weight 1 and is a group of its own.
 */
public final class TaskDescription {

    private final String id;
    private final boolean stateful;
    private final long weight;
    private final String group;

    private TaskDescription(String id, boolean stateful, long weight, String group) {
        this.id = Objects.requireNonNull(id, "task id");
        this.stateful = stateful;
        if (weight < 1) {
            throw new IllegalArgumentException("task '" + id + "' has weight " + weight + "; a weight must be at least 1");
        }
        this.weight = weight;
        this.group = Objects.requireNonNull(group, "group of task " + id);
    }

    /**
     * A task with local state, weight 1, in a group of its own.
     *
     * @param id the task id, unique in a request
     * @return the task
     */
    public static TaskDescription stateful(String id) {
        return new TaskDescription(id, true, 1, id);
    }

    /**
     * A task without local state, weight 1, in a group of its own.
     *
     * @param id the task id, unique in a request
     * @return the task
     */
    public static TaskDescription stateless(String id) {
        return new TaskDescription(id, false, 1, id);
    }

    /**
     * This task with another weight.
     *
     * @param weight the share of load, at least 1
     * @return a copy with that weight
     * @throws IllegalArgumentException if {@code weight < 1}
     */
    public TaskDescription withWeight(long weight) {
        return new TaskDescription(id, stateful, weight, group);
    }

    /**
     * This task in a co-location group.
     *
     * @param group the group id (a sub-topology, say); tasks with equal group ids form a group
     * @return a copy in that group
     */
    public TaskDescription inGroup(String group) {
        return new TaskDescription(id, stateful, weight, group);
    }

    /** @return the task id */
    public String id() {
        return id;
    }

    /** @return whether the task has local state to restore */
    public boolean isStateful() {
        return stateful;
    }

    /** @return the share of load, at least 1 */
    public long weight() {
        return weight;
    }

    /** @return the co-location group id; the task id unless {@link #inGroup(String)} set one */
    public String group() {
        return group;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TaskDescription)) {
            return false;
        }
        TaskDescription that = (TaskDescription) o;
        return stateful == that.stateful && weight == that.weight && id.equals(that.id) && group.equals(that.group);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, stateful, weight, group);
    }

    @Override
    public String toString() {
        return (stateful ? "stateful " : "stateless ") + id + "(weight " + weight + ", group " + group + ")";
    }
}
