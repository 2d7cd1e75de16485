package io.kscale.assignor.internals.server.store;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.layout.TopicLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task counts that the classic assignor ({@code KeyPreservingAssignor}) stored, indexed by
 * topic id fingerprint, to seed the broker side when a group migrates to {@code
 * group.protocol=consumer} (issue 18, "Migration from the classic assignor keeps T").
 *
 * <p>A classic layout topic is compacted and holds one record per group: key the group id,
 * value the {@link LayoutCodec} form of its {@link GroupLayout}, whose topics carry the 64-bit
 * fingerprint {@code msb ^ lsb} of their topic id. There may be several such topics (groups that
 * set their own {@code kscale.assignor.layout.store.topic}); this class keeps each group's newest
 * layout per topic (a tombstone removes the group from that topic only) and derives, per
 * fingerprint, the T to seed with from all of them. Topics without
 * a fingerprint (layouts made before topic ids) and provisional topics (never stored by the classic
 * side either) give no seed. A value that does not decode is logged once and ignored: the group's
 * previous layout, if any, stays.
 *
 * <p><b>When groups disagree</b> on a topic's T, whether their layouts live in one topic or in several, (say {@code g1} started at 4 partitions and kept
 * T=4, {@code g2} started after the doubling to 8 and has T=8), the broker side can keep only one,
 * since it keeps T per topic id for every group: the smallest T wins, and a WARN names the groups
 * (with their layout topic once layouts come from more than one) and their counts. Why the
 * smallest: it is the rule every broker reaches from the same layouts whatever their read order, and the smaller T is usually the older group's (the topic has only
 * grown since), whose expansions it kept; a group with a larger T regroups its keys once at the
 * migration and keeps them from then on, since a multiple of its old count is a multiple of the
 * smaller T when the larger is a multiple of it.
 *
 * <p><b>Untrusted.</b> A classic layout holds what members reported to their leader, and a broken
 * or hostile member may have reported any T (issue 25). So a seed is taken only where it fits the
 * topic: when a group first assigns the topic, the smallest T that is at most its partition count,
 * divides it, and was seen with no more partitions than it has ({@link Seed#taskCountFor}); with
 * none, the topic's T is its partition count, as without classic layouts.
 *
 * <p>Used by the store's thread only; {@link #index()} returns an immutable copy.
 */
final class ClassicSeeds {

    private static final Logger log = LoggerFactory.getLogger(KafkaTaskCountStore.class);
    /** Longer keys are no group id of ours (Kafka bounds nothing, but a group id is short in practice). */
    private static final int MAX_GROUP_ID_BYTES = 4096;

    /**
     * The seeds of one fingerprint: every T the classic layouts hold for it, smallest first, each
     * with the most partitions it was seen with and the groups that hold it.
     */
    static final class Seed {
        private final SortedMap<Integer, Integer> partitionCounts;
        private final SortedMap<Integer, List<String>> groups;

        Seed(SortedMap<Integer, Integer> partitionCounts, SortedMap<Integer, List<String>> groups) {
            this.partitionCounts = new TreeMap<>(partitionCounts);
            SortedMap<Integer, List<String>> copy = new TreeMap<>();
            groups.forEach((taskCount, names) -> copy.put(taskCount, List.copyOf(names)));
            this.groups = copy;
        }

        /**
         * The smallest T that fits a topic of {@code partitions} partitions (issue 25): at most the
         * count and a divisor of it, seen with no more partitions than the topic has. A classic
         * layout is what members reported to their leader: one that does not fit the topic is
         * not believed.
         *
         * @return T, or 0 if none fits
         */
        int taskCountFor(int partitions) {
            for (Map.Entry<Integer, Integer> candidate : partitionCounts.entrySet()) {
                int taskCount = candidate.getKey();
                if (taskCount <= partitions && partitions % taskCount == 0 && candidate.getValue() <= partitions) {
                    return taskCount;
                }
            }
            return 0;
        }

        /** @return the partition count T was seen with, at most */
        int partitionCount(int taskCount) {
            return partitionCounts.getOrDefault(taskCount, 0);
        }

        /** @return the groups whose layouts hold T */
        List<String> groups(int taskCount) {
            return groups.getOrDefault(taskCount, List.of());
        }

        @Override
        public String toString() {
            return groups.toString();
        }
    }

    /**
     * Each group's newest layout, by layout topic then group id (sorted: the index and its WARNs
     * come out the same every time, whatever the order the topics were read in).
     */
    private final SortedMap<String, SortedMap<String, GroupLayout>> layouts = new TreeMap<>();
    /** The disagreements already warned about, as "fingerprint Ts". */
    private final Set<String> warned = new HashSet<>();
    private long malformed;
    private Map<Long, Seed> index = Map.of();
    private boolean changed;

    /** @return the fingerprint under which the classic layouts know a topic id */
    static long fingerprint(Uuid topicId) {
        return topicId.getMostSignificantBits() ^ topicId.getLeastSignificantBits();
    }

    /**
     * Takes one record of a classic layout topic.
     *
     * @param topic  the layout topic it was read from
     * @param key    the group id, UTF-8; a record without one is ignored
     * @param value  the layout, null for a tombstone
     * @param offset the record's offset, for the logs
     */
    void onRecord(String topic, byte[] key, byte[] value, long offset) {
        if (key == null || key.length == 0 || key.length > MAX_GROUP_ID_BYTES) {
            malformed++;
            log.warn("Ignoring the record at offset {} of classic layout topic {}: its key is no group id", offset,
                    topic);
            return;
        }
        String group = new String(key, StandardCharsets.UTF_8);
        SortedMap<String, GroupLayout> groups = layouts.computeIfAbsent(topic, t -> new TreeMap<>());
        if (value == null) {
            changed |= groups.remove(group) != null;
            return;
        }
        java.util.Optional<GroupLayout> layout = LayoutCodec.decode(ByteBuffer.wrap(value));
        if (layout.isEmpty()) {
            malformed++;
            log.warn("Ignoring the layout of group {} at offset {} of classic layout topic {} ({} bytes): it does "
                    + "not decode. Its topics are seeded from the group's previous layout, if any.", group, offset,
                    topic, value.length);
            return;
        }
        groups.put(group, layout.get());
        changed = true;
    }

    /** @return the seed of every fingerprint the layouts hold; immutable */
    Map<Long, Seed> index() {
        if (!changed) {
            return index;
        }
        Map<Long, SortedMap<Integer, List<String>>> groupsByCount = new HashMap<>();
        Map<Long, Map<Integer, Integer>> partitionsByCount = new HashMap<>();
        long topicsWithLayouts = layouts.values().stream().filter(groups -> !groups.isEmpty()).count();
        for (Map.Entry<String, SortedMap<String, GroupLayout>> layoutTopic : layouts.entrySet()) {
            for (Map.Entry<String, GroupLayout> group : layoutTopic.getValue().entrySet()) {
                String name = topicsWithLayouts > 1 ? group.getKey() + " in " + layoutTopic.getKey() : group.getKey();
                for (TopicLayout topic : group.getValue().topics()) {
                    OptionalLong id = topic.topicId();
                    if (id.isEmpty() || topic.isProvisional()) {
                        continue;
                    }
                    groupsByCount.computeIfAbsent(id.getAsLong(), f -> new TreeMap<>())
                            .computeIfAbsent(topic.taskCount(), t -> new ArrayList<>()).add(name);
                    partitionsByCount.computeIfAbsent(id.getAsLong(), f -> new HashMap<>())
                            .merge(topic.taskCount(), topic.partitionCount(), Math::max);
                }
            }
        }
        Map<Long, Seed> seeds = new HashMap<>();
        for (Map.Entry<Long, SortedMap<Integer, List<String>>> topic : groupsByCount.entrySet()) {
            SortedMap<Integer, List<String>> counts = topic.getValue();
            int smallest = counts.firstKey();
            seeds.put(topic.getKey(), new Seed(new TreeMap<>(partitionsByCount.get(topic.getKey())), counts));
            if (counts.size() > 1 && warned.add(String.format("%016x %s", topic.getKey(), counts.keySet()))) {
                log.warn("Classic layouts disagree on the task count of the topic with id fingerprint {}: {}. The "
                        + "broker-side assignor keeps one T per topic for every group and seeds T={}, the smallest (if "
                        + "it fits the topic's partition count; else the next smallest that does); "
                        + "groups that had another T regroup their keys once when they move to group.protocol=consumer.",
                        String.format("%016x", topic.getKey()), counts, smallest);
            }
        }
        index = Map.copyOf(seeds);
        changed = false;
        return index;
    }

    /** @return the classic layout records that could not be read so far */
    long malformed() {
        return malformed;
    }
}
