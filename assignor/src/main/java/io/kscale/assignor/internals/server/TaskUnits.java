package io.kscale.assignor.internals.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The units of placement of a group: task {@code t} of every co-partitioned topic, as in the
 * client side's {@code internals.layout.Units}, over topic ids instead of names and in flat
 * arrays, because a broker serves groups of up to a million partitions and places them on each
 * member change.
 *
 * <p>Topics with the same T and the same subscribers form a <b>task group</b>; task {@code t} of
 * a task group is one unit, holding partition {@code p} of each of its topics with
 * {@code p % T == t}, and goes to one member, so a key's records in two such topics (a join)
 * meet there. Topics with the same subscribers form an <b>eligibility class</b>: the members
 * that may take the units of its task groups. Held topics have no units.
 *
 * <p>Example: members m0, m1 read A (T = 4, 8 partitions) and B (T = 4, 4 partitions); m1 alone
 * reads C (T = 2, 2 partitions). Task group {A, B}: units 0..3, unit 1 holding and B-1
 * (weight 3), eligible m0 and m1. Task group {C}: units 4 and 5, weight 1 each, eligible m1.
 */
final class TaskUnits {

    /** By topic: its first unit, or -1 if it has none (held). */
    final int[] firstUnit;
    /** By unit: the number of partitions it holds (at least 1). */
    final long[] weight;
    /** The least and the greatest {@link #weight}; {@code Long.MAX_VALUE} and 0 without units. */
    final long lightest;
    final long heaviest;
    /** By unit: its task group. */
    final int[] unitGroup;
    /** By task group: its topics, ascending; its T; its first unit; its eligibility class. */
    final int[][] groupTopics;
    final int[] groupTaskCount;
    final int[] groupFirstUnit;
    private final int[] groupClass;
    /** By class: its members, ascending. */
    final int[][] classMembers;
    private final SubscribedTopics topics;

    private TaskUnits(SubscribedTopics topics, int[] firstUnit, long[] weight, long lightest, long heaviest,
                      int[] unitGroup, int[][] groupTopics, int[] groupTaskCount, int[] groupFirstUnit, int[] groupClass,
                      int[][] classMembers) {
        this.topics = topics;
        this.firstUnit = firstUnit;
        this.weight = weight;
        this.lightest = lightest;
        this.heaviest = heaviest;
        this.unitGroup = unitGroup;
        this.groupTopics = groupTopics;
        this.groupTaskCount = groupTaskCount;
        this.groupFirstUnit = groupFirstUnit;
        this.groupClass = groupClass;
        this.classMembers = classMembers;
    }

    static TaskUnits of(SubscribedTopics topics) {
        // Topics with the same readers (distinct subscriptions that name them) have the same subscribers.
        Map<IntsKey, Integer> classes = new LinkedHashMap<>();
        int[] topicClass = new int[topics.count()];
        List<Integer> firstTopicOfClass = new ArrayList<>();
        Map<List<Object>, List<Integer>> groups = new LinkedHashMap<>();
        for (int t = 0; t < topics.count(); t++) {
            if (topics.isHeld(t)) {
                continue;
            }
            int topic = t;
            int c = classes.computeIfAbsent(new IntsKey(topics.readers[t]), key -> {
                firstTopicOfClass.add(topic);
                return classes.size();
            });
            topicClass[t] = c;
            groups.computeIfAbsent(List.of(topics.taskCounts[t], c), key -> new ArrayList<>()).add(t);
        }
        int[][] classMembers = new int[classes.size()][];
        for (int c = 0; c < classMembers.length; c++) {
            classMembers[c] = topics.subscribers(firstTopicOfClass.get(c));
        }

        int[] firstUnit = new int[topics.count()];
        Arrays.fill(firstUnit, -1);
        int[][] groupTopics = new int[groups.size()][];
        int[] groupTaskCount = new int[groups.size()];
        int[] groupFirstUnit = new int[groups.size()];
        int[] groupClass = new int[groups.size()];
        long units = 0;
        int g = 0;
        for (Map.Entry<List<Object>, List<Integer>> group : groups.entrySet()) {
            groupTopics[g] = group.getValue().stream().mapToInt(Integer::intValue).toArray();
            groupTaskCount[g] = (Integer) group.getKey().get(0);
            groupFirstUnit[g] = (int) units;
            groupClass[g] = topicClass[groupTopics[g][0]];
            int widest = 0;
            for (int t : groupTopics[g]) {
                widest = Math.max(widest, topics.partitions[t]);
                firstUnit[t] = (int) units;
            }
            // Tasks at or beyond every topic's partition count hold nothing: no unit for them.
            units += Math.min(groupTaskCount[g], widest);
            g++;
        }
        if (units > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("too many units: " + units);
        }
        long[] weight = new long[(int) units];
        long lightest = Long.MAX_VALUE;
        long heaviest = 0;
        int[] unitGroup = new int[(int) units];
        for (g = 0; g < groupTopics.length; g++) {
            int end = g + 1 < groupTopics.length ? groupFirstUnit[g + 1] : (int) units;
            int taskCount = groupTaskCount[g];
            // Task k < T holds n / T partitions of a topic of n, one more if k < n % T: add the
            // whole parts, and the remainders' ones as a running sum (no division per unit and topic).
            long whole = 0;
            for (int t : groupTopics[g]) {
                int n = topics.partitions[t];
                whole += n / taskCount;
                int remainder = n % taskCount;
                if (remainder > 0) {
                    weight[groupFirstUnit[g]]++;
                    if (groupFirstUnit[g] + remainder < end) {
                        weight[groupFirstUnit[g] + remainder]--;
                    }
                }
            }
            long ones = 0;
            for (int u = groupFirstUnit[g]; u < end; u++) {
                ones += weight[u];
                weight[u] = whole + ones;
                unitGroup[u] = g;
            }
            if (end > groupFirstUnit[g]) {
                // Task 0 holds the most partitions of its group, the last task the fewest.
                heaviest = Math.max(heaviest, weight[groupFirstUnit[g]]);
                lightest = Math.min(lightest, weight[end - 1]);
            }
        }
        return new TaskUnits(topics, firstUnit, weight, lightest, heaviest, unitGroup, groupTopics, groupTaskCount,
                groupFirstUnit, groupClass, classMembers);
    }

    int count() {
        return weight.length;
    }

    int classCount() {
        return classMembers.length;
    }

    /** @return the unit's eligibility class: its task group's, so that no array by unit holds it */
    int classOf(int unit) {
        return groupClass[unitGroup[unit]];
    }

    /** @return the unit of a partition of a topic, or -1 if the topic has no units or the partition does not exist */
    int unitOf(int topic, int partition) {
        if (topic < 0 || firstUnit[topic] < 0 || partition < 0 || partition >= topics.partitions[topic]) {
            return -1;
        }
        // The topic's group starts at firstUnit; its task is partition % T, with no division for a
        // topic not expanded (every partition below T): targets are read partition by partition.
        int taskCount = topics.taskCounts[topic];
        return firstUnit[topic] + (partition < taskCount ? partition : partition % taskCount);
    }

    /**
     * @return the unit's partition of its first topic that has one, as {@code topic << 32 | partition}:
     *         a representative for rack lookups
     */
    long representative(int unit) {
        int task = taskOf(unit);
        for (int t : groupTopics[unitGroup[unit]]) {
            if (task < topics.partitions[t]) {
                return (long) t << 32 | task;
            }
        }
        throw new IllegalStateException("unit " + unit + " holds no partition");
    }

    /** @return the unit past the task group's last one */
    int groupEndUnit(int group) {
        return group + 1 < groupFirstUnit.length ? groupFirstUnit[group + 1] : count();
    }

    /** @return the unit's task index */
    int taskOf(int unit) {
        return unit - groupFirstUnit[unitGroup[unit]];
    }
}
