package io.kscale.assignor.layout;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The units of assignment of a set of topics (a group's subscription): topics with the same T
 * form a co-partitioned group, and task {@code t} of every topic in it forms unit
 * {@code T:t} (see {@link Unit}). Only units holding at least one partition are listed: a
 * placement engine has nothing to balance in an empty one. Immutable.
 *
 * <p>Example: {@code orders} (T=4, 8 partitions), {@code payments} (T=4, 4 partitions),
 * {@code audit} (T=2, 2 partitions) give units {@code 2:0 {audit 0}}, {@code 2:1 {audit 1}},
 * {@code 4:0 {orders 0, 4; payments 0}}, ..., {@code 4:3 {orders 3, 7; payments 3}}; every
 * partition is in exactly one unit, and partition p of a topic is in the unit of task
 * {@code p % T}. The units use the layout's partition counts, which never shrink, so a leader
 * with stale metadata still assigns every partition the group has seen.
 */
public final class Units {

    private final List<Unit> units;
    private final Map<String, TopicLayout> topics;
    private final Map<Integer, Unit[]> unitsByTaskCount;
    private final SortedSet<String> unknownTopics;

    private Units(List<Unit> units, Map<String, TopicLayout> topics, Map<Integer, Unit[]> unitsByTaskCount,
                  SortedSet<String> unknownTopics) {
        this.units = Collections.unmodifiableList(units);
        this.topics = topics;
        this.unitsByTaskCount = unitsByTaskCount;
        this.unknownTopics = Collections.unmodifiableSortedSet(unknownTopics);
    }

    /**
     * Builds the units of some topics.
     *
     * @param layout the group's layout
     * @param topics the topics to assign; those without a layout are left out and listed in
     *               {@link #unknownTopics()}
     * @return the units
     */
    public static Units of(GroupLayout layout, Collection<String> topics) {
        SortedMap<Integer, List<TopicLayout>> byTaskCount = new TreeMap<>();
        Map<String, TopicLayout> known = new HashMap<>();
        SortedSet<String> unknown = new TreeSet<>();
        for (String topic : new TreeSet<>(topics)) {
            Optional<TopicLayout> topicLayout = layout.topic(topic);
            if (topicLayout.isEmpty()) {
                unknown.add(topic);
                continue;
            }
            known.put(topic, topicLayout.get());
            byTaskCount.computeIfAbsent(topicLayout.get().taskCount(), t -> new ArrayList<>()).add(topicLayout.get());
        }
        List<Unit> units = new ArrayList<>();
        Map<Integer, Unit[]> index = new HashMap<>();
        for (Map.Entry<Integer, List<TopicLayout>> group : byTaskCount.entrySet()) {
            int taskCount = group.getKey();
            List<TopicLayout> members = List.copyOf(group.getValue());
            int maxPartitions = members.stream().mapToInt(TopicLayout::partitionCount).max().orElse(0);
            // Tasks at or beyond every topic's partition count hold nothing: skip them.
            Unit[] byTask = new Unit[Math.min(taskCount, maxPartitions)];
            for (int task = 0; task < byTask.length; task++) {
                byTask[task] = new Unit(taskCount, task, members);
                units.add(byTask[task]);
            }
            index.put(taskCount, byTask);
        }
        return new Units(units, known, index, unknown);
    }

    /** @return the units, ordered by T, then task; each with weight at least 1 */
    public List<Unit> units() {
        return units;
    }

    /**
     * The unit of a partition, for instance of a partition a member reports it owns.
     *
     * @param topic a topic
     * @param partition a partition of it
     * @return its unit; empty if the topic is not among these units' topics, or the partition is
     *         negative or beyond the layout's partition count
     */
    public Optional<Unit> unitOf(String topic, int partition) {
        TopicLayout layout = topics.get(topic);
        if (layout == null || partition < 0 || partition >= layout.partitionCount()) {
            return Optional.empty();
        }
        return Optional.of(unitsByTaskCount.get(layout.taskCount())[layout.taskOf(partition)]);
    }

    /** @return the topics asked for that have no layout, in name order */
    public Set<String> unknownTopics() {
        return unknownTopics;
    }

    /** @return the number of partitions in all units */
    public long totalWeight() {
        return units.stream().mapToLong(Unit::weight).sum();
    }

    @Override
    public String toString() {
        return "Units(" + units.size() + " units, " + topics.size() + " topics, unknown " + unknownTopics + ")";
    }
}
