package io.kscale.assignor.internals.server;

import io.kscale.assignor.KeyPreservingServerAssignor;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One group's target assignment, computed by the broker-side assignor: the adapter between the
 * coordinator's types and the key-preserving rule. Used once, for one {@code assign()} call;
 * it shares nothing mutable with other calls except through the thread-safe
 * {@link TaskCountStore}, {@link TaskCountLog} and {@link ServerAssignorMetrics}, so calls for
 * different groups run concurrently without a lock.
 *
 * <p>The steps:
 * <ol>
 *   <li><b>Task counts</b> ({@link SubscribedTopics}): each subscribed topic id's T from the
 *       store; a topic new to the store gets its partition count, recorded; a topic whose T the
 *       store does not know yet is held.</li>
 *   <li><b>Held topics</b> ({@link CurrentTargets}): members keep exactly the partitions of them
 *       they hold in their current targets; nothing else of them is assigned, and T is never
 *       derived from today's count.</li>
 *   <li><b>Units</b> ({@link TaskUnits}): task t of the topics with the same T and the same
 *       subscribers; each unit's prior owner is the member holding most of its partitions in its
 *       current target.</li>
 *   <li><b>Placement</b> ({@link UnitPlacer}): sticky, balanced by partitions, rack-aware.</li>
 * </ol>
 * If anything fails unexpectedly, the assignment falls back to the current targets restricted
 * to what is valid (moving nothing), logged at ERROR and counted: a bug here must not fail the
 * group.
 *
 * <p>Worked example: topic id A, T = 4, grown from 4 to 8 partitions; m0 held tasks 0 and 1
 * (partitions 0, 1), m1 tasks 2 and 3. Unit 1 now holds partitions 1 and 5; m0 holds most of it
 * (1 of 2, nobody else any), so m0 keeps it and gets 5: m0 ends with 0, 1, 4, 5, m1 with 2, 3,
 * 6, 7, and every key stays with its member.
 */
public final class ServerAssignmentBuilder {

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingServerAssignor.class);

    private final GroupSpec spec;
    private final SubscribedTopicDescriber describer;
    private final TaskCountStore taskCounts;
    private final TaskCountLog taskCountLog;
    private final ServerAssignorMetrics metrics;

    /**
     * @param spec        the group, from the coordinator
     * @param describer   the subscribed topics' metadata, from the coordinator
     * @param taskCounts  the durable task counts
     * @param taskCountLog what was logged about task counts, shared by all calls
     * @param metrics     the assignor's metrics, shared by all calls
     */
    public ServerAssignmentBuilder(GroupSpec spec, SubscribedTopicDescriber describer, TaskCountStore taskCounts,
                                   TaskCountLog taskCountLog, ServerAssignorMetrics metrics) {
        this.spec = spec;
        this.describer = describer;
        this.taskCounts = taskCounts;
        this.taskCountLog = taskCountLog;
        this.metrics = metrics;
    }

    /** @return every member's target assignment; never throws */
    public GroupAssignment build() {
        long start = System.nanoTime();
        GroupMembers members = null;
        try {
            members = new GroupMembers(spec);
            return compute(members);
        } catch (RuntimeException e) {
            metrics.assignmentFellBack();
            log.error("Key-preserving assignment of {} failed; keeping the members' current targets (only partitions "
                    + "that exist, of topics they still subscribe to), moving nothing. This is a bug: please report it",
                    members == null ? "a group" : members, e);
            return fallback(members);
        } finally {
            metrics.assignmentComputed(System.nanoTime() - start);
        }
    }

    private GroupAssignment compute(GroupMembers members) {
        SubscribedTopics topics = SubscribedTopics.resolve(members, describer, taskCounts, taskCountLog);
        Map<Uuid, int[]>[] held = CurrentTargets.kept(members, id -> {
            int t = topics.indexOf(id);
            return t >= 0 && topics.isHeld(t) ? topics.partitions[t] : -1;
        });
        long[] baseLoad = new long[members.count()];
        for (int m = 0; m < members.count(); m++) {
            for (int[] partitions : held[m].values()) {
                baseLoad[m] += partitions.length;
            }
        }
        TaskUnits units = TaskUnits.of(topics);
        int[] prior = priorOwners(members, topics, units);
        RackLocality racks = new RackLocality(members, topics, units, describer);
        int[] owner = UnitPlacer.place(units, baseLoad, prior, racks);
        return assemble(members, topics, units, owner, held);
    }

    /**
     * By unit: the member that holds most of its partitions in its current target and may still
     * take it (subscribes to its topics), ties to the lowest member index; -1 if none.
     */
    private static int[] priorOwners(GroupMembers members, SubscribedTopics topics, TaskUnits units) {
        int[] prior = new int[units.count()];
        Arrays.fill(prior, -1);
        int[] best = new int[units.count()];
        int[] count = new int[units.count()];
        int[] touched = new int[units.count()];
        for (int m = 0; m < members.count(); m++) {
            int touchedCount = 0;
            for (Map.Entry<Uuid, Set<Integer>> target : members.currentTarget(m).entrySet()) {
                int t = topics.indexOf(target.getKey());
                Set<Integer> partitions = target.getValue();
                if (t < 0 || topics.isHeld(t) || partitions == null || !topics.subscribers[t].get(m)) {
                    continue;
                }
                for (Integer p : partitions) {
                    int u = p == null ? -1 : units.unitOf(t, p);
                    if (u >= 0 && count[u]++ == 0) {
                        touched[touchedCount++] = u;
                    }
                }
            }
            for (int i = 0; i < touchedCount; i++) {
                int u = touched[i];
                if (count[u] > best[u]) {
                    best[u] = count[u];
                    prior[u] = m;
                }
                count[u] = 0;
            }
        }
        return prior;
    }

    private static GroupAssignment assemble(GroupMembers members, SubscribedTopics topics, TaskUnits units, int[] owner,
                                            Map<Uuid, int[]>[] held) {
        @SuppressWarnings("unchecked")
        Map<Uuid, Set<Integer>>[] assigned = new Map[members.count()];
        for (int m = 0; m < members.count(); m++) {
            assigned[m] = new HashMap<>();
            for (Map.Entry<Uuid, int[]> kept : held[m].entrySet()) {
                assigned[m].put(kept.getKey(), new SortedPartitions(kept.getValue()));
            }
        }
        int[] count = new int[members.count()];
        for (int t = 0; t < topics.count(); t++) {
            if (topics.isHeld(t)) {
                continue;
            }
            int n = topics.partitions[t];
            int taskCount = topics.taskCounts[t];
            int first = units.firstUnit[t];
            for (int p = 0; p < n; p++) {
                count[owner[first + p % taskCount]]++;
            }
            int[][] partitions = new int[members.count()][];
            for (int m = topics.subscribers[t].nextSetBit(0); m >= 0; m = topics.subscribers[t].nextSetBit(m + 1)) {
                partitions[m] = new int[count[m]];
                count[m] = 0;
            }
            for (int p = 0; p < n; p++) {
                int m = owner[first + p % taskCount];
                partitions[m][count[m]++] = p;
            }
            for (int m = topics.subscribers[t].nextSetBit(0); m >= 0; m = topics.subscribers[t].nextSetBit(m + 1)) {
                if (count[m] > 0) {
                    assigned[m].put(topics.ids[t], new SortedPartitions(partitions[m]));
                }
                count[m] = 0;
            }
        }
        return groupAssignment(members, assigned);
    }

    private static GroupAssignment groupAssignment(GroupMembers members, Map<Uuid, Set<Integer>>[] assigned) {
        Map<String, MemberAssignment> result = new HashMap<>(members.count() * 2);
        for (int m = 0; m < members.count(); m++) {
            result.put(members.ids[m], new MemberPartitions(assigned[m]));
        }
        return new GroupAssignment(result);
    }

    /** The current targets restricted to what is valid; if even that fails, nothing. */
    private GroupAssignment fallback(GroupMembers members) {
        try {
            GroupMembers group = members != null ? members : new GroupMembers(spec);
            Map<Uuid, int[]>[] kept = CurrentTargets.kept(group, describer::numPartitions);
            @SuppressWarnings("unchecked")
            Map<Uuid, Set<Integer>>[] assigned = new Map[group.count()];
            for (int m = 0; m < group.count(); m++) {
                assigned[m] = new HashMap<>();
                for (Map.Entry<Uuid, int[]> topic : kept[m].entrySet()) {
                    assigned[m].put(topic.getKey(), new SortedPartitions(topic.getValue()));
                }
            }
            return groupAssignment(group, assigned);
        } catch (RuntimeException e) {
            log.error("Could not even keep the current targets; the group gets no partitions this time", e);
            return new GroupAssignment(Map.of());
        }
    }
}
