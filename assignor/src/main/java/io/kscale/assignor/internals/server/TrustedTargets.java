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
 * <p>Taken only where a cheap check shows the targets are what a full read would find usable,
 * given one fact of the coordinator: {@code isPartitionAssigned} is derived from the same targets
 * (the coordinator keeps an index of them). The conditions:
 * <ul>
 *   <li>every unit is one partition (each task group is one topic, none expanded beyond its T),
 *       so any target is whole units, and no unit is partly in a target (none is pinned);</li>
 *   <li>one eligibility class, no held topic: placement never needs a unit's owner before the
 *       evening looks at that owner (racks only choose among equally loaded members where a unit in
 *       no target goes);</li>
 *   <li>every entry of every target names a topic its member reads, with a non-empty set;</li>
 *   <li>the sizes add up to the number of existing partitions the coordinator says are
 *       assigned: with an entry per member and topic, a partition named twice, one that does not
 *       exist, or a null would make the sizes add up to more.</li>
 * </ul>
 * Otherwise, or where placement would read half the targets or more anyway
 * ({@link #membersToRead}), {@link #of} returns null and every target is read
 * ({@link PriorOwners#of}). A member's target is read when the evening first looks at that
 * member; a member that only gains units in no target gets its target back with their partitions
 * added ({@link PartitionsAdded}), and every other member its target as it is: what a full read
 * would give them.
 */
final class TrustedTargets {

    /** By member: the partitions its target holds (of placed topics, each a unit). */
    final long[] size;
    /**
     * The units no member's target holds, ascending: at most half the members' worth (more, and
     * {@link #of} reads every target instead), so placement looks at these and not at every unit.
     */
    final int[] inNoTarget;

    private TrustedTargets(long[] size, int[] inNoTarget) {
        this.size = size;
        this.inNoTarget = inNoTarget;
    }

    /** Whether the coordinator has a partition in some member's target: {@code GroupSpec::isPartitionAssigned}. */
    interface AssignedPartitions {
        boolean isAssigned(Uuid topic, int partition);
    }

    /** @return the targets by size, or null if they must be read partition by partition (see the class comment) */
    static TrustedTargets of(GroupMembers members, SubscribedTopics topics, TaskUnits units, AssignedPartitions assigned) {
        if (members.count() == 0 || units.classCount() > 1 || topics.anyHeld() || units.heaviest > 1) {
            return null;
        }
        SizeReader sizes = new SizeReader(topics);
        long[] size = new long[members.count()];
        for (int m = 0; m < members.count(); m++) {
            sizes.member = m;
            sizes.total = 0;
            members.currentTarget(m).forEach(sizes);
            if (!sizes.usable) {
                return null;
            }
            size[m] = sizes.total;
        }
        long sum = 0;
        for (long s : size) {
            sum += s;
        }
        if (sum > units.count() || membersToRead(size, units.count(), sum) * 2 > members.count()) {
            return null;
        }
        // If the sizes are right, exactly this many units are in no target; finding more means they are not.
        long expectedInNoTarget = units.count() - sum;
        int[] inNoTarget = new int[(int) Math.min(expectedInNoTarget, 16)];
        int notAssigned = 0;
        long inTargets = 0;
        for (int t = 0; t < topics.count(); t++) {
            // Every unit is one partition, so the topic's partition p is its task p: unit firstUnit + p,
            // with no division per partition (this loop asks about every partition of the group).
            // Topics are in unit order (a task group per topic), so the units in no target come ascending.
            Uuid id = topics.ids[t];
            int first = units.firstUnit[t];
            for (int p = 0; p < topics.partitions[t]; p++) {
                if (assigned.isAssigned(id, p)) {
                    if (++inTargets > sum) {
                        return null;
                    }
                } else {
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
        return inTargets == sum ? new TrustedTargets(size, Arrays.copyOf(inNoTarget, notAssigned)) : null;
    }

    /**
     * @return about how many members' targets placement would read, and more: a giver for each
     *         unit that moves to fill the members below the even share, and its taker (at most as
     *         many), and one for each unit in no target (whose taker is not read, see
     *         {@link PartitionsAdded}: counted so that {@link #inNoTarget} stays within half the
     *         members, and measured no further). Each read costs about its member's share of the
     *         partitions, so reading half the group or more costs as much as one pass over every
     *         target, on top of asking the coordinator about every partition: {@link #of} then
     *         reads every target up front (a member joining 50 members takes a unit from each).
     *         Both ways give the same assignment.
     */
    private static long membersToRead(long[] size, int units, long inTargets) {
        long share = units / size.length; // of() returned before for a group without members
        long below = 0;
        for (long s : size) {
            below += Math.max(0, share - s);
        }
        return 2 * below + Math.max(0, units - inTargets);
    }

    /** Adds up one member's target by size, and notes an entry that a full read would not use whole. */
    private static final class SizeReader implements BiConsumer<Uuid, Set<Integer>> {
        private final SubscribedTopics topics;
        private final SubscribedTopics.Subscriptions subscriptions;
        int member;
        long total;
        boolean usable = true;

        SizeReader(SubscribedTopics topics) {
            this.topics = topics;
            this.subscriptions = topics.subscriptions();
        }

        @Override
        public void accept(Uuid topic, Set<Integer> partitions) {
            int t = topics.indexOf(topic);
            int n = partitions == null ? 0 : partitions.size();
            if (t < 0 || n <= 0 || !subscriptions.subscribes(member, t)) {
                usable = false;
            }
            total += n;
        }
    }
}
