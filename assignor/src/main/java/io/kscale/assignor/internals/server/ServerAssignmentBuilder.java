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
 *       current target ({@link PriorOwners}).</li>
 *   <li><b>Placement</b> ({@link UnitPlacer}): sticky, balanced by partitions, rack-aware; a unit
 *       with partitions in no target (it grew) stays with its prior owner.</li>
 *   <li><b>Assembly</b>: each member's partitions from its units, member by member; a member
 *       whose result equals its current target gets that target back.</li>
 * </ol>
 * Every step costs about the size of the group's input or result (members, topics, units,
 * target entries), never members x topics: a broker places a million partitions on 2,000
 * members on a member change.
 * If anything fails unexpectedly (any Throwable, an Error too), the assignment falls back to the current targets restricted
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
    /** The work of the last {@link #build()}'s placement, for tests; null before, or if it failed before placing. */
    private AssignmentWork work;

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
        } catch (Throwable e) {
            // Errors too: a StackOverflowError or OutOfMemoryError of one group's placement must not
            // fail the group, nor every later assignment of it that meets the same input.
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
        // Members keep partitions of held topics only; with none held (the usual case) there is nothing to read.
        Map<Uuid, int[]>[] held = CurrentTargets.none(members);
        long[] baseLoad = new long[members.count()];
        if (topics.anyHeld()) {
            held = CurrentTargets.kept(members, id -> {
                int t = topics.indexOf(id);
                return t >= 0 && topics.isHeld(t) ? topics.partitions[t] : -1;
            });
            for (int m = 0; m < members.count(); m++) {
                for (int[] partitions : held[m].values()) {
                    baseLoad[m] += partitions.length;
                }
            }
        }
        TaskUnits units = TaskUnits.of(topics);
        RackLocality racks = new RackLocality(members, topics, units, describer);
        TrustedTargets bySize = TrustedTargets.of(members, topics, units, spec::isPartitionAssigned);
        PriorOwners prior = bySize != null ? PriorOwners.onDemand(members, topics, units, bySize)
                : PriorOwners.of(members, topics, units);
        work = AssignmentWork.forGroup(units, members.count());
        int[] owner = UnitPlacer.place(units, baseLoad, prior, racks, work);
        return assemble(members, topics, units, owner, held, prior);
    }

    /** @return the work of the last {@link #build()}'s placement (tests read it), or null */
    AssignmentWork work() {
        return work;
    }

    /**
     * Builds each member's assignment member by member, from the units it owns, so that the work
     * is the size of the result, not topics x members: a member whose result equals its current
     * target ({@link PriorOwners#unchanged}) gets that target back as it is, and one whose target
     * was not read gets it back with the partitions of the units it gained added
     * ({@link PartitionsAdded}).
     */
    private static GroupAssignment assemble(GroupMembers members, SubscribedTopics topics, TaskUnits units, int[] owner,
                                            Map<Uuid, int[]>[] held, PriorOwners prior) {
        boolean[] unchanged = prior.unchanged(owner);
        // The units of each member, ascending: a counting sort of units by owner.
        // A unit of a target not read (UnitPlacer.NOT_READ) is in that member's target, handed back unchanged,
        // and is not sorted: on a member change of a large group, most units are such.
        int[] start = new int[members.count() + 1];
        for (int m : owner) {
            if (m >= 0) {
                start[m + 1]++;
            }
        }
        for (int m = 0; m < members.count(); m++) {
            start[m + 1] += start[m];
        }
        int[] byMember = new int[start[members.count()]];
        int[] next = Arrays.copyOf(start, members.count());
        for (int u = 0; u < owner.length; u++) {
            if (owner[u] >= 0) {
                byMember[next[owner[u]]++] = u;
            }
        }
        Map<String, MemberAssignment> result = new HashMap<>(capacity(members.count()));
        for (int m = 0; m < members.count(); m++) {
            Map<Uuid, Set<Integer>> assigned;
            if (unchanged[m]) {
                assigned = members.currentTarget(m);
            } else {
                assigned = memberAssignment(topics, units, Arrays.copyOfRange(byMember, start[m], start[m + 1]), held[m]);
                if (!prior.wasRead(m)) {
                    assigned = PartitionsAdded.toTarget(members.currentTarget(m), assigned);
                }
            }
            result.put(members.ids[m], new MemberPartitions(assigned));
        }
        return new GroupAssignment(result);
    }

    /** @return the partitions of a member's units (ascending) and those it keeps of held topics */
    private static Map<Uuid, Set<Integer>> memberAssignment(SubscribedTopics topics, TaskUnits units, int[] owned,
                                                            Map<Uuid, int[]> held) {
        int entries = held.size();
        for (int i = 0; i < owned.length; i = nextGroup(units, owned, i)) {
            entries += units.groupTopics[units.unitGroup[owned[i]]].length;
        }
        Map<Uuid, Set<Integer>> assigned = new HashMap<>(capacity(entries));
        held.forEach((topic, partitions) -> assigned.put(topic, new SortedPartitions(partitions)));
        for (int i = 0; i < owned.length; ) {
            int end = nextGroup(units, owned, i);
            int g = units.unitGroup[owned[i]];
            int taskCount = units.groupTaskCount[g];
            for (int t : units.groupTopics[g]) {
                int[] partitions = partitionsOf(owned, i, end, units.groupFirstUnit[g], taskCount, topics.partitions[t]);
                if (partitions.length > 0) {
                    assigned.put(topics.ids[t], new SortedPartitions(partitions));
                }
            }
            i = end;
        }
        return assigned;
    }

    /** @return the index past the run of units of one task group that starts at {@code from} */
    private static int nextGroup(TaskUnits units, int[] owned, int from) {
        int g = units.unitGroup[owned[from]];
        int end = from + 1;
        while (end < owned.length && units.unitGroup[owned[end]] == g) {
            end++;
        }
        return end;
    }

    /**
     * @return ascending, the partitions {@code p < partitionCount} of a topic whose task
     *         {@code p % taskCount} is one of the units {@code owned[from..end)} (ascending, of
     *         one task group starting at unit {@code firstUnit})
     */
    private static int[] partitionsOf(int[] owned, int from, int end, int firstUnit, int taskCount, int partitionCount) {
        long count = 0;
        for (int i = from; i < end; i++) {
            int task = owned[i] - firstUnit;
            count += task < partitionCount ? (partitionCount - task + taskCount - 1) / taskCount : 0;
        }
        int[] partitions = new int[(int) count];
        int n = 0;
        for (long base = 0; base < partitionCount; base += taskCount) {
            for (int i = from; i < end; i++) {
                long p = base + owned[i] - firstUnit;
                if (p >= partitionCount) {
                    break;
                }
                partitions[n++] = (int) p;
            }
        }
        return partitions;
    }

    /** @return a hash map capacity that holds {@code entries} without resizing */
    static int capacity(int entries) {
        return (int) Math.min(Integer.MAX_VALUE, entries * 4L / 3 + 1);
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
        } catch (Throwable e) {
            log.error("Could not even keep the current targets; the group gets no partitions this time", e);
            return new GroupAssignment(Map.of());
        }
    }
}
