package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;

/** Invariants of every broker-side assignment, and measures of it, shared by the server tests. */
public final class ServerChecks {

    private ServerChecks() {
    }

    /** @return topic id to partition to member; fails if a partition is assigned twice or to a non-subscriber */
    public static Map<Uuid, Map<Integer, String>> owners(TestGroup group, GroupAssignment assignment) {
        Map<Uuid, Map<Integer, String>> owners = new HashMap<>();
        assignment.members().forEach((member, assigned) -> assigned.partitions().forEach((topic, partitions) -> {
            assertThat(group.subscription(member)).as("%s subscribes to %s", member, topic).contains(topic);
            for (int p : partitions) {
                assertThat(p).as("partition of %s", topic).isBetween(0, group.partitions(topic) - 1);
                String before = owners.computeIfAbsent(topic, t -> new HashMap<>()).put(p, member);
                assertThat(before).as("%s-%d assigned to %s and %s", topic, p, before, member).isNull();
            }
        }));
        return owners;
    }

    /** Fails unless every partition of every topic is assigned (no topic is held). */
    public static void assertComplete(TestGroup group, GroupAssignment assignment, Set<Uuid> topics) {
        Map<Uuid, Map<Integer, String>> owners = owners(group, assignment);
        for (Uuid topic : topics) {
            assertThat(owners.getOrDefault(topic, Map.of())).as("partitions of %s", topic).hasSize(group.partitions(topic));
        }
    }

    /** Fails unless all partitions of a task (p % taskCount) of the topic are on one member. */
    public static Map<Integer, String> taskOwners(TestGroup group, GroupAssignment assignment, Uuid topic, int taskCount) {
        Map<Integer, String> byTask = new HashMap<>();
        owners(group, assignment).getOrDefault(topic, Map.of()).forEach((p, member) -> {
            String other = byTask.putIfAbsent(p % taskCount, member);
            assertThat(other == null || other.equals(member)).as("task %d of %s on %s and %s", p % taskCount, topic, other,
                    member).isTrue();
        });
        return byTask;
    }

    /** @return partitions per member (every member of the group, 0 if none) */
    public static Map<String, Integer> loads(TestGroup group, GroupAssignment assignment) {
        Map<String, Integer> loads = new HashMap<>();
        group.members().forEach(m -> loads.put(m, 0));
        assignment.members().forEach((member, assigned) -> loads.merge(member,
                assigned.partitions().values().stream().mapToInt(Set::size).sum(), Integer::sum));
        return loads;
    }

    /** @return the number of partitions whose member differs between the group's current targets and the assignment, among partitions that had one */
    public static int moved(TestGroup group, GroupAssignment assignment) {
        int moved = 0;
        for (String member : group.members()) {
            MemberAssignment now = assignment.members().get(member);
            for (Map.Entry<Uuid, Set<Integer>> before : group.target(member).entrySet()) {
                Set<Integer> kept = now == null ? Set.of() : now.partitions().getOrDefault(before.getKey(), Set.of());
                for (int p : before.getValue()) {
                    if (!kept.contains(p)) {
                        moved++;
                    }
                }
            }
        }
        return moved;
    }
}
