package io.kscale.assignor.internals.server;

import java.util.Set;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;

/**
 * Whether a member's rack hosts a replica of a unit, so that it reads the unit's partitions
 * from a local replica (KIP-881). A unit is judged by one representative partition (its task's
 * partition of its first topic): partitions of a task are usually spread alike, and asking the
 * describer about every partition of every unit would cost as much as the rest of the
 * assignment. Off when no member has a rack; then every member counts as local.
 */
final class RackLocality {

    private final GroupMembers members;
    private final TaskUnits units;
    private final SubscribedTopics topics;
    private final SubscribedTopicDescriber describer;
    private final Set<String>[] racks;

    @SuppressWarnings("unchecked")
    RackLocality(GroupMembers members, SubscribedTopics topics, TaskUnits units, SubscribedTopicDescriber describer) {
        this.members = members;
        this.units = units;
        this.topics = topics;
        this.describer = describer;
        this.racks = members.anyRack ? new Set[units.count()] : null;
    }

    boolean enabled() {
        return racks != null;
    }

    /** @return whether the member has a rack that hosts a replica of the unit; false when racks are off */
    boolean isLocal(int unit, int member) {
        if (racks == null || members.racks[member] == null) {
            return false;
        }
        return replicaRacks(unit).contains(members.racks[member]);
    }

    /** @return the racks that host a replica of the unit (its representative partition); only when racks are on */
    Set<String> replicaRacks(int unit) {
        Set<String> replicas = racks[unit];
        if (replicas == null) {
            long partition = units.representative(unit);
            replicas = describer.racksForPartition(topics.ids[(int) (partition >>> 32)], (int) partition);
            replicas = replicas == null ? Set.of() : replicas;
            racks[unit] = replicas;
        }
        return replicas;
    }

    /** @return the member's rack, or null if it has none */
    String rackOf(int member) {
        return members.racks[member];
    }
}
