package io.kscale.assignor.internals.leader;

import io.kscale.assignor.internals.layout.Unit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Rack awareness for consumers that set {@code client.rack} (KIP-881's idea, for fetching from
 * a replica in the consumer's own rack): after placement, swaps units of equal weight between
 * two members when that puts more partitions on a member whose rack holds one of their replicas.
 *
 * <p>Why swaps of equal weight: they change no member's load, so balance holds, and a unit moves
 * whole, so key affinity holds. A swap happens only when it strictly raises the number of
 * partitions read from a local replica, so the pass ends, and the next rebalance (where the
 * prior owners are the swapped ones) finds nothing to swap: no flapping. Without racks on the
 * members or on the replicas, nothing happens and nothing is computed.
 *
 * <p>Worked example: units u and v of 2 partitions each; u's replicas are in rack r1, v's in r2.
 * The engine put u on B (rack r2) and v on A (rack r1): 0 local partitions. Swapped, u is on A
 * and v on B: 4 local partitions, same loads.
 */
public final class RackAlignment {

    private RackAlignment() {
    }

    /**
     * Swaps units between members to read more partitions from a replica in the member's rack.
     *
     * @param owners unit id to member, changed in place
     * @param units the units of {@code owners}
     * @param racks member to rack, for members that have one
     * @param metadata where the replicas are
     * @return the number of swaps made
     */
    public static int align(Map<String, String> owners, List<Unit> units, Map<String, String> racks, Cluster metadata) {
        if (racks.isEmpty()) {
            return 0;
        }
        Map<String, Map<String, Integer>> localByUnit = new HashMap<>();
        for (Unit unit : units) {
            Map<String, Integer> local = replicasPerRack(unit, metadata);
            if (!local.isEmpty()) {
                localByUnit.put(unit.id(), local);
            }
        }
        if (localByUnit.isEmpty()) {
            return 0;
        }
        List<Unit> candidates = new ArrayList<>(units);
        int swaps = 0;
        for (Unit unit : units) {
            String owner = owners.get(unit.id());
            if (owner == null || local(localByUnit, unit, racks.get(owner)) == unit.weight()) {
                continue;
            }
            Optional<Unit> partner = bestPartner(unit, owner, candidates, owners, racks, localByUnit);
            if (partner.isPresent()) {
                owners.put(unit.id(), owners.get(partner.get().id()));
                owners.put(partner.get().id(), owner);
                swaps++;
            }
        }
        return swaps;
    }

    private static Optional<Unit> bestPartner(Unit unit, String owner, List<Unit> candidates, Map<String, String> owners,
                                              Map<String, String> racks, Map<String, Map<String, Integer>> localByUnit) {
        Unit best = null;
        long bestGain = 0;
        for (Unit other : candidates) {
            String otherOwner = owners.get(other.id());
            if (other.weight() != unit.weight() || otherOwner == null || otherOwner.equals(owner)) {
                continue;
            }
            long before = local(localByUnit, unit, racks.get(owner)) + local(localByUnit, other, racks.get(otherOwner));
            long after = local(localByUnit, unit, racks.get(otherOwner)) + local(localByUnit, other, racks.get(owner));
            if (after - before > bestGain) {
                best = other;
                bestGain = after - before;
            }
        }
        return Optional.ofNullable(best);
    }

    /** Partitions of the unit with a replica in the rack (0 without a rack). */
    private static long local(Map<String, Map<String, Integer>> localByUnit, Unit unit, String rack) {
        if (rack == null) {
            return 0;
        }
        return localByUnit.getOrDefault(unit.id(), Map.of()).getOrDefault(rack, 0);
    }

    /** For each rack, how many of the unit's partitions have a replica there. */
    private static Map<String, Integer> replicasPerRack(Unit unit, Cluster metadata) {
        Map<String, Integer> perRack = new HashMap<>();
        unit.forEachPartition((topic, partition) -> {
            PartitionInfo info = metadata.partition(new TopicPartition(topic, partition));
            if (info == null || info.replicas() == null) {
                return;
            }
            Set<String> racks = new HashSet<>();
            for (Node replica : info.replicas()) {
                if (replica != null && replica.hasRack()) {
                    racks.add(replica.rack());
                }
            }
            racks.forEach(rack -> perRack.merge(rack, 1, Integer::sum));
        });
        return perRack;
    }
}
