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
        // By topic: the partitions a member before kept, and the count (<= 0: not kept here).
        // One bit set per topic, not one per member and topic: a member's own bits would reach
        // its highest partition, members x partitions / 8 bytes for a topic spread over them.
        Map<Uuid, BitSet> claimed = new HashMap<>();
        Map<Uuid, Integer> counts = new HashMap<>();
        int[] mine = new int[16];
        for (int m = 0; m < members.count(); m++) {
            Map<Uuid, int[]> keeps = Map.of();
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
                BitSet taken = claimed.computeIfAbsent(id, x -> new BitSet(n));
                int k = 0;
                for (Integer p : partitions) {
                    if (p != null && p >= 0 && p < n && !taken.get(p)) {
                        taken.set(p);
                        if (k == mine.length) {
                            mine = Arrays.copyOf(mine, Math.min(n, 2 * k)); // distinct partitions below n: at most n
                        }
                        mine[k++] = p;
                    }
                }
                if (k > 0) {
                    int[] ascending = Arrays.copyOf(mine, k);
                    Arrays.sort(ascending);
                    if (keeps.isEmpty()) {
                        keeps = new HashMap<>();
                    }
                    keeps.put(id, ascending);
                }
            }
            kept[m] = keeps;
        }
        return kept;
    }
}
