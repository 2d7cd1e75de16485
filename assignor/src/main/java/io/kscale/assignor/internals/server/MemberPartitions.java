package io.kscale.assignor.internals.server;

import java.util.Collections;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;

/** One member's target assignment, as the broker-side API takes it: partitions by topic id. Immutable. */
final class MemberPartitions implements MemberAssignment {

    private final Map<Uuid, java.util.Set<Integer>> partitions;

    MemberPartitions(Map<Uuid, java.util.Set<Integer>> partitions) {
        this.partitions = Collections.unmodifiableMap(partitions);
    }

    @Override
    public Map<Uuid, java.util.Set<Integer>> partitions() {
        return partitions;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MemberPartitions && partitions.equals(((MemberPartitions) o).partitions);
    }

    @Override
    public int hashCode() {
        return partitions.hashCode();
    }

    @Override
    public String toString() {
        return "MemberPartitions" + partitions;
    }
}
