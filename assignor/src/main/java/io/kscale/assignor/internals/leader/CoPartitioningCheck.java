package io.kscale.assignor.internals.leader;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.KeyPreservingAssignorConfig;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds topics that lost co-partitioning to a task count, and warns once per topic (issue 17,
 * finding 4). With {@code kscale.assignor.co.partitioning=by-task-count}, topics read by the same
 * members are co-partitioned only when they have the same T. A topic added after another was
 * expanded gets its own partition count as T, so it is silently not co-partitioned with it.
 *
 * <p>The rule: topic {@code a} is a <b>mismatch</b> when a topic {@code b} with the same
 * subscribers has a smaller T that divides {@code a}'s partition count. Then {@code a} could have
 * T_b: partition p of {@code a} would be in task {@code p % T_b}, as partition p of {@code b} is,
 * so a key's records in both (written with the default partitioner, {@code hash % count}) would
 * meet on one member. Only the smaller T is offered: raising a topic's T would split its existing
 * tasks, and their keys' state, across members for good.
 *
 * <p>Example: {@code orders} has T=4 and 8 partitions (expanded from 4); {@code payments}, new,
 * has 8 partitions, so T=8. 4 divides 8: {@code payments} is a mismatch, and the WARN gives the fix,
 * {@code kscale.assignor.task.counts=payments:4} (payments' 8 tasks then merge into 4: its keys
 * move task once, so this is best done before it holds state). {@code orders} is none: its T is the
 * smaller. An {@code audit} topic with 6 partitions is none either: 4 does not divide 6.
 *
 * <p>Held by the assignor across rebalances, so each mismatch is logged once per leader, not at
 * every rebalance; a mismatch that goes away is forgotten, and logged again if it comes back. Used
 * by the consumer's thread only.
 */
public final class CoPartitioningCheck {

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingAssignor.class);

    /** The mismatches warned about, as {@code topic/T/smaller T}: only those still found. */
    private Set<String> warned = new HashSet<>();

    /** Creates a check that has warned about nothing yet. */
    public CoPartitioningCheck() {
    }

    /**
     * Finds the mismatches among classes of topics and logs the new ones.
     *
     * @param topicClasses the topics of each class (the topics read by the same members)
     * @param layout the group's layout: T and partition count of each topic
     * @return the number of mismatched topics
     */
    public Result check(Collection<? extends Collection<String>> topicClasses, GroupLayout layout) {
        Set<String> found = new HashSet<>();
        int warnings = 0;
        int mismatches = 0;
        for (Collection<String> topics : topicClasses) {
            for (Mismatch mismatch : mismatches(topics, layout)) {
                mismatches++;
                String key = mismatch.topic + "/" + mismatch.taskCount + "/" + mismatch.smallerTaskCounts;
                found.add(key);
                if (!warned.contains(key)) {
                    warnings++;
                    log.warn(mismatch.message());
                }
            }
        }
        warned = found;
        return new Result(mismatches, warnings);
    }

    /** The mismatches among topics read by the same members, in topic order. */
    static List<Mismatch> mismatches(Collection<String> topics, GroupLayout layout) {
        // T to the topics with it, ascending
        SortedMap<Integer, SortedSet<String>> byTaskCount = new TreeMap<>();
        for (String topic : topics) {
            layout.topic(topic).ifPresent(topicLayout ->
                    byTaskCount.computeIfAbsent(topicLayout.taskCount(), t -> new TreeSet<>()).add(topic));
        }
        List<Mismatch> mismatches = new ArrayList<>();
        if (byTaskCount.size() < 2) {
            return mismatches;
        }
        for (String topic : new TreeSet<>(topics)) {
            TopicLayout topicLayout = layout.topic(topic).orElse(null);
            if (topicLayout == null) {
                continue;
            }
            SortedMap<Integer, SortedSet<String>> smaller = new TreeMap<>();
            byTaskCount.headMap(topicLayout.taskCount()).forEach((taskCount, others) -> {
                if (topicLayout.partitionCount() % taskCount == 0) {
                    smaller.put(taskCount, others);
                }
            });
            if (!smaller.isEmpty()) {
                mismatches.add(new Mismatch(topic, topicLayout.taskCount(), topicLayout.partitionCount(), smaller));
            }
        }
        return mismatches;
    }

    /** What one check found. */
    public static final class Result {
        /** Topics not co-partitioned with a topic whose smaller T divides their count. */
        public final int mismatches;
        /** Of those, the ones logged this time (not seen by the previous check). */
        public final int warnings;

        Result(int mismatches, int warnings) {
            this.mismatches = mismatches;
            this.warnings = warnings;
        }
    }

    /** A topic that could share the smaller T of other topics its subscribers read. */
    static final class Mismatch {
        final String topic;
        final int taskCount;
        final int partitionCount;
        /** The smaller Ts that divide the topic's count, each with its topics. */
        final SortedMap<Integer, SortedSet<String>> smallerTaskCounts;

        Mismatch(String topic, int taskCount, int partitionCount, SortedMap<Integer, SortedSet<String>> smallerTaskCounts) {
            this.topic = topic;
            this.taskCount = taskCount;
            this.partitionCount = partitionCount;
            this.smallerTaskCounts = smallerTaskCounts;
        }

        String message() {
            int suggested = smallerTaskCounts.lastKey();
            SortedSet<String> partners = smallerTaskCounts.get(suggested);
            return "Topic '" + topic + "' (T=" + taskCount + ", " + partitionCount + " partitions) is not co-partitioned "
                    + "with " + preview(partners) + " (T=" + suggested + "), which the same members read: a key's records "
                    + "in them may reach different members. To co-partition it, set "
                    + KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG + "=" + topic + ":" + suggested + " on every member "
                    + "(with the entries already there): its " + taskCount + " tasks then merge into " + suggested
                    + " and its keys move task once, so do it before the topic holds state. "
                    + (smallerTaskCounts.size() > 1 ? "Other task counts that would co-partition it: "
                    + smallerTaskCounts.headMap(suggested) + ". " : "")
                    + "If the topics are unrelated, ignore this, or set " + KeyPreservingAssignorConfig.CO_PARTITIONING_CONFIG
                    + "=none. Logged once; counted in the metric co-partitioning-mismatches.";
        }

        private static String preview(SortedSet<String> topics) {
            List<String> names = new ArrayList<>();
            for (String topic : topics) {
                if (names.size() == 3) {
                    return names.stream().map(name -> "'" + name + "'").reduce((x, y) -> x + ", " + y).orElse("")
                            + " and " + (topics.size() - 3) + " more";
                }
                names.add(topic);
            }
            return names.stream().map(name -> "'" + name + "'").reduce((x, y) -> x + ", " + y).orElse("");
        }
    }
}
