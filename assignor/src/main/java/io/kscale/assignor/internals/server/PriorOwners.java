package io.kscale.assignor.internals.server;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;
import org.apache.kafka.common.Uuid;

/**
 * What the members' current targets say about the units, read in one pass over the targets:
 * <ul>
 *   <li>by unit, its <b>prior owner</b>: the member that holds most of its partitions and may
 *       still take it (subscribes to its topics), ties to the lowest member index; -1 if none;</li>
 *   <li>by member, whether its target is <b>whole units</b>: every entry a placed topic it
 *       subscribes to, with a non-empty set of partitions that exist, and every unit it touches
 *       held entire. Such a target equals the assignment that gives the member exactly those
 *       units, so when placement does, the target itself is the result ({@link #unchanged}).</li>
 *   <li>by unit, whether it is <b>pinned</b> to its prior owner: some of its partitions are in
 *       no member's target (the topic grew, or their member left) while the prior owner holds
 *       others. KIP-848's coordinator reconciles each partition on its own: a partition nobody
 *       owns goes to its target owner at once, one another member owns only after that member
 *       revoked it. Moved now, the unit's new partitions would reach its new owner while its old
 *       ones are still read by the prior owner: two members reading its keys at once. Kept, the
 *       prior owner gets them at once and revokes nothing. A later assignment may move it, whole.</li>
 * </ul>
 * On a member change of a large group most members keep what they have; handing their targets
 * back saves building a million partitions' worth of maps and sets again.
 *
 * <p>Example: T = 4, 8 partitions, units 0..3; m0's target is {0, 4, 1, 5} (units 0 and 1 whole),
 * m1's {2, 6, 3} (unit 3 half). m0's target is whole units, m1's is not. If placement gives m0
 * units 0 and 1 again, m0's result is its target; m1 gets a new set, even if it keeps 2 and 3.
 */
final class PriorOwners {

    /** {@link #readTarget}'s answer for a target read before. */
    static final int[] NO_UNITS = new int[0];

    /** By unit: its prior owner, or -1 (also, when targets are read on demand, for a unit not read yet). */
    final int[] prior;
    /** By unit: whether it must stay with its prior owner this time (see the class comment). */
    final boolean[] pinned;
    /** By member: how many units its target holds, all entire, or -1 if its target is not whole units. */
    private final int[] wholeUnits;
    /** The targets by size, whose members are read on demand ({@link #readTarget}); null if all were read up front. */
    final TrustedTargets bySize;
    /** With {@link #bySize}: by member, whether its target has been read. */
    private final boolean[] read;
    /** With {@link #bySize}: by member, the units of its target if it was read up front (ascending), else null. */
    private final int[][] readUpFront;
    private final GroupMembers members;
    private final TargetReader reader;

    private PriorOwners(int[] prior, boolean[] pinned, int[] wholeUnits, TrustedTargets bySize, GroupMembers members,
                        TargetReader reader) {
        this.prior = prior;
        this.pinned = pinned;
        this.wholeUnits = wholeUnits;
        this.bySize = bySize;
        this.read = bySize == null ? null : new boolean[wholeUnits.length];
        this.readUpFront = bySize == null ? null : new int[wholeUnits.length][];
        this.members = members;
        this.reader = reader;
    }

    /** @return the prior owners from every member's target, read now */
    static PriorOwners of(GroupMembers members, SubscribedTopics topics, TaskUnits units) {
        TargetReader reader = new TargetReader(topics, units, 0, units.count());
        int[] wholeUnits = new int[members.count()];
        for (int m = 0; m < members.count(); m++) {
            wholeUnits[m] = reader.read(m, members.currentTarget(m));
        }
        boolean[] pinned = new boolean[units.count()];
        for (int u = 0; u < pinned.length; u++) {
            pinned[u] = reader.prior[u] >= 0 && reader.partlyInTargets(u);
        }
        return new PriorOwners(reader.prior, pinned, wholeUnits, null, members, reader);
    }

    /**
     * @return the prior owners of targets taken by size: the targets that name a unit of several
     *         partitions read now ({@link TrustedTargets#readUpFront}), so those units' prior owners
     *         and pins are what a full read finds; every other target read by {@link #readTarget}
     *         when placement needs it (its units are one partition each, never pinned)
     */
    static PriorOwners onDemand(GroupMembers members, SubscribedTopics topics, TaskUnits units, TrustedTargets bySize) {
        // Counted: the span of the groups of several-partition units (a one-partition unit inside
        // it is counted too, with the same outcome: its only holder is its prior owner).
        int countFrom = units.count();
        int countTo = 0;
        for (int g : bySize.countedGroups) {
            countFrom = Math.min(countFrom, units.groupFirstUnit[g]);
            countTo = Math.max(countTo, units.groupEndUnit(g));
        }
        TargetReader reader = new TargetReader(topics, units, countFrom, Math.max(countFrom, countTo));
        boolean[] pinned = new boolean[units.count()];
        PriorOwners owners = new PriorOwners(reader.prior, pinned, new int[members.count()], bySize, members, reader);
        for (int i = 0; i < bySize.readUpFront.length; i++) {
            int m = bySize.readUpFront[i];
            owners.read[m] = true;
            reader.expect((int) bySize.upFrontSize[i]); // bounded: the sizes add up to at most the partitions
            owners.wholeUnits[m] = reader.read(m, members.currentTarget(m));
            owners.readUpFront[m] = reader.lastRead();
        }
        for (int g : bySize.countedGroups) {
            for (int u = units.groupFirstUnit[g]; u < units.groupEndUnit(g); u++) {
                pinned[u] = reader.prior[u] >= 0 && reader.partlyInTargets(u);
            }
        }
        return owners;
    }

    /**
     * @return the units of the member's target, ascending, if it was read up front (it names a unit
     *         of several partitions, {@link TrustedTargets#readUpFront}); null otherwise
     */
    int[] readUpFront(int member) {
        return readUpFront == null ? null : readUpFront[member];
    }

    /**
     * Reads a member's target now, if it was not read yet: its units get the member as their prior
     * owner. Only with {@link #bySize}.
     *
     * @return the units of its target, ascending; empty if it was read before
     */
    int[] readTarget(int member) {
        if (read[member]) {
            return NO_UNITS;
        }
        read[member] = true;
        // Its size is known (and bounded: the sizes add up to at most the units), so the units go
        // into an array of that size, handed out as it is.
        reader.expect((int) bySize.size[member]);
        wholeUnits[member] = reader.read(member, members.currentTarget(member));
        return reader.lastRead();
    }

    /**
     * Reads the targets member by member, as {@code Map.forEach} hands them over (no entry
     * objects, unlike an entry set iterator over an unmodifiable map).
     *
     * <p>The units in the counted span {@code [countFrom, countTo)} have their partitions counted
     * per member and in all targets: such a unit goes to the member holding most of it, and is
     * pinned if some of it is in no target. Every unit when all targets are read ({@link #of});
     * with targets taken by size ({@link TrustedTargets}), only the span of the units of several
     * partitions: the others are one partition each and in at most one target, so a unit's prior
     * owner is the member whose target names it, and only the prior owners are kept by unit (a
     * member change of a million partitions reads a few members' targets and would otherwise clear
     * four more arrays of a million).
     */
    private static final class TargetReader implements BiConsumer<Uuid, Set<Integer>>, IntConsumer {
        private final SubscribedTopics topics;
        private final SubscribedTopics.Subscriptions subscriptions;
        private final TaskUnits units;
        final int[] prior;
        /** The counted span of units: those the arrays below hold, at {@code u - countFrom}. */
        private final int countFrom;
        private final int countTo;
        /** By counted unit: the most partitions of it one member read holds. */
        private final int[] best;
        /** By counted unit: how many of its partitions the member being read holds. */
        private final int[] count;
        /** By counted unit: how many of its partitions the targets hold, all members together. */
        private final long[] inTargets;
        /** The units the member being read touches, each once. */
        private int[] touched;
        private int member;
        /** The topic whose partitions {@link #accept(int)} is handed. */
        private int readingTopic;
        private int touchedCount;
        private boolean whole;

        TargetReader(SubscribedTopics topics, TaskUnits units, int countFrom, int countTo) {
            this.topics = topics;
            this.subscriptions = topics.subscriptions();
            this.units = units;
            this.prior = new int[units.count()];
            Arrays.fill(prior, -1);
            this.countFrom = countFrom;
            this.countTo = countTo;
            this.best = new int[countTo - countFrom];
            this.count = new int[countTo - countFrom];
            this.inTargets = new long[countTo - countFrom];
            // Reading every target: one array for all (a unit is touched once per target). Else sized per target, expect().
            this.touched = countFrom == 0 && countTo == units.count() ? new int[units.count()] : NO_UNITS;
        }

        /** @return how many units the target holds, all entire, or -1 if it is not whole units */
        int read(int m, Map<Uuid, Set<Integer>> target) {
            member = m;
            touchedCount = 0;
            whole = true;
            target.forEach(this);
            for (int i = 0; i < touchedCount; i++) {
                int u = touched[i];
                if (u < countFrom || u >= countTo) {
                    continue; // one partition, touched once: its prior owner was set as it was read
                }
                int c = u - countFrom;
                if (count[c] > best[c]) {
                    best[c] = count[c];
                    prior[u] = m;
                }
                whole &= count[c] == units.weight[u];
                inTargets[c] += count[c];
                count[c] = 0;
            }
            return whole ? touchedCount : -1;
        }

        /** @return for a counted unit: whether the targets hold fewer of its partitions than it has */
        boolean partlyInTargets(int unit) {
            return inTargets[unit - countFrom] < units.weight[unit];
        }

        /**
         * Makes room for the units of the next target {@link #read}, when reading targets one by
         * one: at most {@code units} of them (as many as the partitions it names).
         */
        void expect(int units) {
            touched = new int[units];
        }

        /**
         * When reading targets one by one: the units of the target {@link #read} last, ascending;
         * the caller owns the array (the next read gets its own, {@link #expect}).
         */
        int[] lastRead() {
            int[] units = touchedCount == touched.length ? touched : Arrays.copyOf(touched, touchedCount);
            touched = NO_UNITS;
            Arrays.sort(units);
            return units;
        }

        @Override
        public void accept(Uuid topic, Set<Integer> partitions) {
            int t = topics.indexOf(topic);
            if (t < 0 || topics.isHeld(t) || partitions == null || !subscriptions.subscribes(member, t)) {
                whole = false;
                return;
            }
            whole &= !partitions.isEmpty();
            readingTopic = t;
            // A set yields each of its elements once, so counts are of distinct partitions.
            SortedPartitions.forEachNumber(partitions, this);
        }

        /** A partition of {@link #readingTopic} in the member's target. */
        @Override
        public void accept(int partition) {
            int u = units.unitOf(readingTopic, partition);
            if (u < 0) {
                whole = false;
                return;
            }
            if (u >= countFrom && u < countTo) {
                if (count[u - countFrom]++ > 0) {
                    return; // touched already
                }
            } else if (prior[u] < 0) {
                // A set yields a partition once, and a unit is one partition: the unit is new to this target.
                prior[u] = member; // as counting would: of equal holders, the first read
            }
            if (touchedCount == touched.length) { // not reached when the size was expected right
                touched = Arrays.copyOf(touched, Math.max(16, touchedCount * 2));
            }
            touched[touchedCount++] = u;
        }
    }

    /**
     * @return whether the member's target was read: always, unless the targets are taken by size
     *         ({@link #bySize}). A target not read holds units placement left where they were; the
     *         units the member owns (in {@code owner}) are then those it gained, in no target before.
     */
    boolean wasRead(int member) {
        return read == null || read[member];
    }

    /**
     * @param owner by unit: its member after placement; {@link UnitPlacer#NOT_READ} for a unit of a
     *              target not read, which stays where it was
     * @return by member: whether its assignment equals its current target, which is then whole
     *         units: it owns exactly the units its target holds (all of them its prior units,
     *         and as many), or its target was not read and it gained nothing
     */
    boolean[] unchanged(int[] owner) {
        int[] owned = new int[wholeUnits.length];
        boolean[] gained = new boolean[wholeUnits.length];
        for (int u = 0; u < owner.length; u++) {
            if (owner[u] >= 0) {
                owned[owner[u]]++;
                gained[owner[u]] |= prior[u] != owner[u];
            }
        }
        boolean[] unchanged = new boolean[wholeUnits.length];
        for (int m = 0; m < unchanged.length; m++) {
            // A target not read holds units that placement left where they were; its member owns the units it gained.
            unchanged[m] = wasRead(m) ? wholeUnits[m] >= 0 && !gained[m] && owned[m] == wholeUnits[m] : owned[m] == 0;
        }
        return unchanged;
    }
}
