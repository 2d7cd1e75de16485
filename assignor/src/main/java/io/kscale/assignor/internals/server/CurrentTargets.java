package io.kscale.assignor.internals.server;

import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.Uuid;

/**
 * What members keep of their current targets when the assignor does not place a topic: the
 * partitions of a held topic (its T is not known yet), or of every topic when placement failed.
 * A member keeps a partition only if it still subscribes to the topic, the partition exists,
 * and no member before it (in {@link GroupMembers}' order) keeps it already: the targets come
 * from the broker, but a target naming a deleted topic, a partition beyond the count or one
 * partition twice must not become an assignment. Partitions nobody keeps stay unassigned.
 */
final class CurrentTargets {

    private CurrentTargets() {
    }

    /** @return by member: nothing kept, for a group with no held topic */
    @SuppressWarnings("unchecked")
    static Map<Uuid, int[]>[] none(GroupMembers members) {
        Map<Uuid, int[]>[] kept = new Map[members.count()];
        Arrays.fill(kept, Map.of());
        return kept;
    }

    /**
     * @param partitionCount the partition count of a topic whose partitions members keep, or
     *                       -1 (or 0) for a topic they do not keep here
     * @return by member: partitions kept, ascending, by topic id
     */
    @SuppressWarnings("unchecked")
    static Map<Uuid, int[]>[] kept(GroupMembers members, ToIntFunction<Uuid> partitionCount) {
        Map<Uuid, int[]>[] kept = new Map[members.count()];
        Map<Uuid, BitSet> claimed = new HashMap<>();
        Map<Uuid, Integer> counts = new HashMap<>();
        for (int m = 0; m < members.count(); m++) {
            kept[m] = new HashMap<>();
            for (Map.Entry<Uuid, Set<Integer>> topic : members.currentTarget(m).entrySet()) {
                Uuid id = topic.getKey();
                Set<Integer> partitions = topic.getValue();
                if (id == null || partitions == null || partitions.isEmpty() || !members.subscriptions[m].contains(id)) {
                    continue;
                }
                int n = counts.computeIfAbsent(id, partitionCount::applyAsInt);
                if (n <= 0) {
                    continue;
                }
                BitSet taken = claimed.computeIfAbsent(id, x -> new BitSet());
                BitSet mine = new BitSet();
                for (Integer p : partitions) {
                    if (p != null && p >= 0 && p < n && !taken.get(p)) {
                        mine.set(p);
                    }
                }
                if (!mine.isEmpty()) {
                    taken.or(mine);
                    kept[m].put(id, mine.stream().toArray());
                }
            }
        }
        return kept;
    }
}
