package io.kscale.assignor.internals.layout;

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
import java.util.stream.Collectors;

/**
 * The units of assignment of a set of topics (a group's subscription): with
 * {@link CoPartitioning#BY_TASK_COUNT}, topics with the same T form a co-partitioned group, and
 * task {@code t} of every topic in it forms unit {@code T:t} (see {@link Unit}); with
 * {@link CoPartitioning#NONE}, each topic is a group of its own and its units are
 * {@code topic:T:t}. Only units holding at least one partition are listed: a
 * placement engine has nothing to balance in an empty one. Immutable.
 *
 * <p>Example: {@code orders} (T=4, 8 partitions), {@code payments} (T=4, 4 partitions),
 * {@code audit} (T=2, 2 partitions) give units {@code 2:0 {audit 0}}, {@code 2:1 {audit 1}},
 * {@code 4:0 {orders 0, 4; payments 0}}, ..., {@code 4:3 {orders 3, 7; payments 3}}; every
 * partition is in exactly one unit, and partition p of a topic is in the unit of task
 * {@code p % T}. The units hold the partitions below both the layout's count, which never
 * shrinks, and the count of the metadata given to {@link #of(GroupLayout, Collection,
 * CoPartitioning, Map)}: a leader whose metadata is stale (or whose topic was re-created with
 * fewer partitions, where the metadata has no topic ids) assigns no partition that the metadata
 * lacks, since members could not fetch it, and still keeps T.
 */
public final class Units {

    private final List<Unit> units;
    private final Map<String, TopicLayout> topics;
    /** Topic to the units of its co-partitioned group, by task index. */
    private final Map<String, Unit[]> unitsByTopic;
    private final SortedSet<String> unknownTopics;

    private Units(List<Unit> units, Map<String, TopicLayout> topics, Map<String, Unit[]> unitsByTopic,
                  SortedSet<String> unknownTopics) {
        this.units = Collections.unmodifiableList(units);
        this.topics = topics;
        this.unitsByTopic = unitsByTopic;
        this.unknownTopics = Collections.unmodifiableSortedSet(unknownTopics);
    }

    /**
     * Builds the units of some topics.
     *
     * @param layout the group's layout
     * @param topics the topics to assign; those without a layout are left out and listed in
     *               {@link #unknownTopics()}
     * @param coPartitioning which topics share units
     * @return the units
     */
    public static Units of(GroupLayout layout, Collection<String> topics, CoPartitioning coPartitioning) {
        return of(layout, topics, coPartitioning, null);
    }

    /**
     * Builds the units of some topics, of the partitions that exist.
     *
     * @param existing partition count per topic in the metadata; a topic's units hold only its
     *                 partitions below this count (and the layout's); a topic without an entry is
     *                 left out and listed in {@link #unknownTopics()}
     * @see #of(GroupLayout, Collection, CoPartitioning)
     */
    public static Units of(GroupLayout layout, Collection<String> topics, CoPartitioning coPartitioning,
                           Map<String, Integer> existing) {
        // Groups in order of T, then of their first topic: the units' order, which placement ties follow.
        SortedMap<Integer, SortedMap<String, List<TopicLayout>>> groups = new TreeMap<>();
        Map<String, TopicLayout> known = new HashMap<>();
        SortedSet<String> unknown = new TreeSet<>();
        for (String topic : new TreeSet<>(topics)) {
            Optional<TopicLayout> topicLayout = existing == null ? layout.topic(topic)
                    : layout.topic(topic).flatMap(full -> within(full, existing.get(topic)));
            if (topicLayout.isEmpty()) {
                unknown.add(topic);
                continue;
            }
            known.put(topic, topicLayout.get());
            SortedMap<String, List<TopicLayout>> sameT = groups.computeIfAbsent(topicLayout.get().taskCount(),
                    t -> new TreeMap<>());
            String group = coPartitioning == CoPartitioning.NONE || sameT.isEmpty() ? topic : sameT.firstKey();
            sameT.computeIfAbsent(group, g -> new ArrayList<>()).add(topicLayout.get());
        }
        List<Unit> units = new ArrayList<>();
        Map<String, Unit[]> index = new HashMap<>();
        groups.forEach((taskCount, sameT) -> sameT.values().forEach(group -> {
            List<TopicLayout> members = List.copyOf(group);
            List<String> names = members.stream().map(TopicLayout::topic).collect(Collectors.toUnmodifiableList());
            int maxPartitions = members.stream().mapToInt(TopicLayout::partitionCount).max().orElse(0);
            String prefix = coPartitioning == CoPartitioning.NONE ? members.get(0).topic() + ":" : "";
            // Tasks at or beyond every topic's partition count hold nothing: skip them.
            Unit[] byTask = new Unit[Math.min(taskCount, maxPartitions)];
            for (int task = 0; task < byTask.length; task++) {
                byTask[task] = new Unit(prefix + taskCount + ":" + task, taskCount, task, members, names);
                units.add(byTask[task]);
            }
            members.forEach(member -> index.put(member.topic(), byTask));
        }));
        return new Units(units, known, index, unknown);
    }

    /** @return the layout as far as the metadata's partitions reach; empty if the metadata has none */
    private static Optional<TopicLayout> within(TopicLayout layout, Integer existing) {
        if (existing == null || existing < 1) {
            return Optional.empty();
        }
        return Optional.of(existing >= layout.partitionCount() ? layout
                : layout.withCounts(layout.taskCount(), existing));
    }

    /** @return the units, ordered by T, then first topic, then task; each with weight at least 1 */
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
        return unitOfTask(topic, layout.taskOf(partition));
    }

    /**
     * The unit that holds a task of a topic, for instance one a member reports a lag on.
     *
     * @param topic a topic
     * @param task a task index of it, under its current T
     * @return its unit; empty if the topic is not among these units' topics or the task holds no
     *         partition yet
     */
    public Optional<Unit> unitOfTask(String topic, int task) {
        Unit[] byTask = unitsByTopic.get(topic);
        return byTask == null || task < 0 || task >= byTask.length ? Optional.empty() : Optional.of(byTask[task]);
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
