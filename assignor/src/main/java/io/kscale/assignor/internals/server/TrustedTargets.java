package io.kscale.assignor.internals.server;

import java.util.Arrays;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.kafka.common.Uuid;

/**
 * The members' current targets read by their sizes, without reading their partitions: what the
 * coordinator's {@code isPartitionAssigned} and each set's size tell, where that is all
 * placement needs. Reading every partition of every boxed target costs more than all of
 * {@code uniform}'s call on a member change, and most members keep their target unchanged.
 *
 * <p>Only the units of <b>one partition</b> (a task group of one topic, not expanded beyond its
 * T) are taken by size. A unit of several partitions (a grown topic's task, or co-partitioned
 * topics') may be split between targets or partly in none, and its prior owner and whether it is
 * pinned come from counting its partitions per member: every member whose target names such a
 * topic is read in full up front ({@link #readUpFront}), as {@link PriorOwners#of} reads them
 * all. When a topic grows among many, that is its few holders, not the whole group.
 *
 * <p>Taken only where a cheap check shows the targets are what a full read would find usable,
 * given one fact of the coordinator: {@code isPartitionAssigned} is derived from the same targets
 * (the coordinator keeps an index of them). The conditions:
 * <ul>
 *   <li>one eligibility class, no held topic: placement never needs a unit's owner before the
 *       evening looks at that owner (racks only choose among equally loaded members where a unit in
 *       no target goes);</li>
 *   <li>every entry of every target names a topic its member reads, with a non-empty set;</li>
 *   <li>the sizes add up to the number of existing partitions the coordinator says are
 *       assigned: with an entry per member and topic, a partition named twice, one that does not
 *       exist, or a null would make the sizes add up to more. So a one-partition unit is in at
 *       most one target, whole, and never pinned.</li>
 * </ul>
 * Otherwise, or where placement would read half the targets or more anyway
 * ({@link #membersToRead}), {@link #of} returns null and every target is read
 * ({@link PriorOwners#of}). A member's target is read when the evening first takes a unit from
 * that member; a member that only gains units gets its target back with their partitions
 * added ({@link PartitionsAdded}), and every other member its target as it is: what a full read
 * would give them.
 */
final class TrustedTargets {

    /** By member: the partitions of one-partition units its target holds (each such unit whole). */
    final long[] size;
    /**
     * The one-partition units no member's target holds, ascending: at most half the members' worth
     * (more, and {@link #of} reads every target instead), so placement looks at these and not at every unit.
     */
    final int[] inNoTarget;
    /** The task groups whose units may hold several partitions, ascending: their holders are read up front. */
    final int[] countedGroups;
    /** The members whose targets name a topic of {@link #countedGroups}, ascending. */
    final int[] readUpFront;
    /** Parallel to {@link #readUpFront}: the partitions its target names, all topics. */
    final long[] upFrontSize;

    private TrustedTargets(long[] size, int[] inNoTarget, int[] countedGroups, int[] readUpFront, long[] upFrontSize) {
        this.size = size;
        this.inNoTarget = inNoTarget;
        this.countedGroups = countedGroups;
        this.readUpFront = readUpFront;
        this.upFrontSize = upFrontSize;
    }

    /** Whether the coordinator has a partition in some member's target: {@code GroupSpec::isPartitionAssigned}. */
    interface AssignedPartitions {
        boolean isAssigned(Uuid topic, int partition);
    }

    /** @return the targets by size, or null if they must be read partition by partition (see the class comment) */
    static TrustedTargets of(GroupMembers members, SubscribedTopics topics, TaskUnits units, AssignedPartitions assigned) {
        if (members.count() == 0 || units.classCount() > 1 || topics.anyHeld()) {
            return null;
        }
        boolean[] counted = countedTopics(topics, units);
        long partitions = 0;
        long onePartitionUnits = 0;
        for (int t = 0; t < topics.count(); t++) {
            partitions += topics.partitions[t];
            onePartitionUnits += counted[t] ? 0 : topics.partitions[t];
        }
        long share = partitions / members.count();
        SizeReader sizes = new SizeReader(topics, counted);
        long[] size = new long[members.count()];
        int[] readUpFront = new int[16];
        long[] upFrontSize = new long[16];
        int upFront = 0;
        long sum = 0;
        long inOnePartitionUnits = 0;
        long belowShare = 0;
        long aboveShare = 0;
        for (int m = 0; m < members.count(); m++) {
            sizes.member = m;
            sizes.total = 0;
            sizes.inCounted = 0;
            members.currentTarget(m).forEach(sizes);
            if (!sizes.usable) {
                return null;
            }
            size[m] = sizes.total - sizes.inCounted;
            sum += sizes.total;
            inOnePartitionUnits += size[m];
            belowShare += Math.max(0, share - sizes.total);
            aboveShare += sizes.total > share ? 1 : 0;
            if (sizes.inCounted > 0) {
                if (upFront == readUpFront.length) {
                    readUpFront = Arrays.copyOf(readUpFront, 2 * upFront);
                    upFrontSize = Arrays.copyOf(upFrontSize, 2 * upFront);
                }
                readUpFront[upFront] = m;
                upFrontSize[upFront++] = sizes.total;
            }
        }
        if (sum > partitions || inOnePartitionUnits > onePartitionUnits) {
            return null;
        }
        // If the sizes are right, exactly this many one-partition units are in no target; finding more means they are not.
        long expectedInNoTarget = onePartitionUnits - inOnePartitionUnits;
        if (membersToRead(belowShare, aboveShare, upFront, expectedInNoTarget) * 2 > members.count()) {
            return null;
        }
        int[] inNoTarget = new int[(int) Math.min(expectedInNoTarget, 16)];
        int notAssigned = 0;
        long inTargets = 0;
        for (int t = 0; t < topics.count(); t++) {
            // A topic not counted has one partition per unit, so its partition p is its task p: unit
            // firstUnit + p, with no division per partition (this loop asks about every partition of
            // the group). Topics are in unit order (a task group per topic), so the units in no target come ascending.
            Uuid id = topics.ids[t];
            int first = units.firstUnit[t];
            for (int p = 0; p < topics.partitions[t]; p++) {
                if (assigned.isAssigned(id, p)) {
                    if (++inTargets > sum) {
                        return null;
                    }
                } else if (!counted[t]) {
                    if (notAssigned == expectedInNoTarget) {
                        return null;
                    }
                    if (notAssigned == inNoTarget.length) {
                        inNoTarget = Arrays.copyOf(inNoTarget, (int) Math.min(expectedInNoTarget, 2L * notAssigned));
                    }
                    inNoTarget[notAssigned++] = first + p;
                }
            }
        }
        if (inTargets != sum) {
            return null;
        }
        return new TrustedTargets(size, Arrays.copyOf(inNoTarget, notAssigned), countedGroups(units, counted),
                Arrays.copyOf(readUpFront, upFront), Arrays.copyOf(upFrontSize, upFront));
    }

    /** @return by topic: whether its task group's units may hold more than one partition (it is read in full) */
    private static boolean[] countedTopics(SubscribedTopics topics, TaskUnits units) {
        boolean[] counted = new boolean[topics.count()];
        for (int g = 0; g < units.groupTopics.length; g++) {
            int[] groupTopics = units.groupTopics[g];
            boolean onePartition = groupTopics.length == 1 && topics.partitions[groupTopics[0]] <= units.groupTaskCount[g];
            for (int t : groupTopics) {
                counted[t] = !onePartition;
            }
        }
        return counted;
    }

    /** @return the task groups of the counted topics, ascending */
    private static int[] countedGroups(TaskUnits units, boolean[] counted) {
        int[] groups = new int[units.groupTopics.length];
        int n = 0;
        for (int g = 0; g < groups.length; g++) {
            if (counted[units.groupTopics[g][0]]) {
                groups[n++] = g;
            }
        }
        return Arrays.copyOf(groups, n);
    }

    /**
     * @param belowShare the partitions members' targets hold fewer than the even share, all members together
     * @param aboveShare the members whose targets hold more than the even share
     * @return about how many members' targets placement would read, and more: a giver for each
     *         partition that moves to fill the members below the even share, at most every member
     *         above it (a taker's target is not read, {@link PartitionsAdded}); the targets read up
     *         front; and one for each one-partition unit in no target (whose taker is not read
     *         either: counted so that {@link #inNoTarget} stays within half the members, and
     *         measured no further). Each read costs about its member's share of the partitions, so
     *         reading half the group or more costs as much as one pass over every target, on top
     *         of asking the coordinator about every partition: {@link #of} then reads every target
     *         up front (a member joining 50 members takes a unit from each). Both ways give the
     *         same assignment.
     */
    private static long membersToRead(long belowShare, long aboveShare, int readUpFront, long onePartitionInNoTarget) {
        return Math.min(belowShare, aboveShare) + readUpFront + onePartitionInNoTarget;
    }

    /** Adds up one member's target by size, and notes an entry that a full read would not use whole. */
    private static final class SizeReader implements BiConsumer<Uuid, Set<Integer>> {
        private final SubscribedTopics topics;
        private final SubscribedTopics.Subscriptions subscriptions;
        private final boolean[] counted;
        int member;
        long total;
        /** Of {@link #total}: the partitions of topics whose units are counted. */
        long inCounted;
        boolean usable = true;

        SizeReader(SubscribedTopics topics, boolean[] counted) {
            this.topics = topics;
            this.subscriptions = topics.subscriptions();
            this.counted = counted;
        }

        @Override
        public void accept(Uuid topic, Set<Integer> partitions) {
            int t = topics.indexOf(topic);
            int n = partitions == null ? 0 : partitions.size();
            if (t < 0 || n <= 0 || !subscriptions.subscribes(member, t)) {
                usable = false;
                return;
            }
            total += n;
            inCounted += counted[t] ? n : 0;
        }
    }
}
