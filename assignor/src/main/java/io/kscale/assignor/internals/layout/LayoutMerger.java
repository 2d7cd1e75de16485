package io.kscale.assignor.internals.layout;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Merges the layouts members reported (see {@link LayoutMerge} for the rules).
 *
 * <p>Example. After a restart, member A reports epoch 5 {orders T=4/8 partitions}, member B
 * epoch 5 {orders T=8/8} (a leader that lost its history), member C epoch 3 {orders T=4/4,
 * audit T=2/2}, member D is new and reports nothing (epoch 0). Per topic the highest epoch
 * wins: orders from epoch 5, where A and B disagree; the preferred entry has the most
 * partitions, then the smallest T: T=4/8, reported as a conflict. audit appears only at epoch 3
 * and is kept: a T is never forgotten because one member did not know it. The result differs
 * from what A and B reported at epoch 5, so it becomes epoch 6.
 *
 * <p>Members on an older kscale decode a layout without the fields it added later (topic ids,
 * missing-since stamps) and report it so. Such a layout is covered by the full one
 * ({@link TopicLayout#covers}): no conflict, and the full one wins at the same epoch.
 */
public final class LayoutMerger {

    /**
     * The preferred entry first: the most partitions (the freshest metadata, as Kafka cannot
     * shrink), then the smallest T (when one T divides the other, each of its tasks is a union of
     * the other's, so keys that shared a task under either layout still share one).
     */
    static final Comparator<TopicLayout> PREFERRED = Comparator.comparingInt(TopicLayout::partitionCount).reversed()
            .thenComparingInt(TopicLayout::taskCount)
            // Only to make the order total (a TreeSet keeps one of two layouts it finds equal):
            // layouts of one epoch that differ in id or stamp come from leaders that diverged.
            .thenComparingLong(topic -> topic.topicId().orElse(TopicLayout.NO_ID))
            .thenComparingLong(topic -> topic.missingSince().orElse(TopicLayout.NOT_MISSING))
            .thenComparing(TopicLayout::isProvisional);

    private LayoutMerger() {
    }

    static LayoutMerge merge(Collection<GroupLayout> reported) {
        // Most members report the same layout: merge each distinct one once.
        List<GroupLayout> distinct = new ArrayList<>(new HashSet<>(reported));
        if (distinct.isEmpty()) {
            return new LayoutMerge(GroupLayout.empty(), List.of());
        }
        distinct.sort(Comparator.comparingLong(GroupLayout::epoch).reversed());
        long maxEpoch = distinct.get(0).epoch();
        Map<String, Long> epochOf = new TreeMap<>();
        Map<String, TreeSet<TopicLayout>> candidates = new TreeMap<>();
        for (GroupLayout layout : distinct) {
            for (TopicLayout topic : layout.byName().values()) {
                Long seen = epochOf.putIfAbsent(topic.topic(), layout.epoch());
                if (seen == null || seen == layout.epoch()) {
                    candidates.computeIfAbsent(topic.topic(), name -> new TreeSet<>(PREFERRED)).add(topic);
                }
            }
        }
        SortedMap<String, TopicLayout> merged = new TreeMap<>();
        List<MergeConflict> conflicts = new ArrayList<>();
        for (Map.Entry<String, TreeSet<TopicLayout>> entry : candidates.entrySet()) {
            TreeSet<TopicLayout> options = withoutCovered(entry.getValue());
            merged.put(entry.getKey(), options.first());
            if (options.size() > 1) {
                conflicts.add(new MergeConflict(epochOf.get(entry.getKey()), options.first(),
                        new ArrayList<>(options.tailSet(options.first(), false))));
            }
        }
        List<GroupLayout> newest = new ArrayList<>();
        distinct.stream().filter(layout -> layout.epoch() == maxEpoch).forEach(newest::add);
        GroupLayout layout;
        if (!newest.stream().allMatch(candidate -> covers(merged, candidate.byName()))) {
            layout = GroupLayout.ofSorted(GroupLayout.nextEpoch(maxEpoch), merged);
        } else {
            // Usually every member reports the newest layout: hand it back as it is. Members on an
            // older kscale report it without ids and stamps: the same layout, so the same epoch.
            layout = newest.stream().filter(candidate -> candidate.byName().equals(merged)).findFirst()
                    .orElseGet(() -> GroupLayout.ofSorted(maxEpoch, merged));
        }
        return new LayoutMerge(layout, conflicts);
    }

    /** The options without those another option covers (the same layout as an older reader left it). */
    private static TreeSet<TopicLayout> withoutCovered(TreeSet<TopicLayout> options) {
        if (options.size() == 1) {
            return options;
        }
        TreeSet<TopicLayout> kept = new TreeSet<>(PREFERRED);
        for (TopicLayout option : options) {
            if (options.stream().noneMatch(other -> other != option && other.covers(option))) {
                kept.add(option);
            }
        }
        return kept;
    }

    /** Whether the merged topics are exactly the reported ones, each covering what was reported. */
    private static boolean covers(SortedMap<String, TopicLayout> merged, SortedMap<String, TopicLayout> reported) {
        if (!merged.keySet().equals(reported.keySet())) {
            return false;
        }
        for (TopicLayout topic : reported.values()) {
            if (!merged.get(topic.topic()).covers(topic)) {
                return false;
            }
        }
        return true;
    }
}
