package io.kscale.assignor.internals.server;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Places the units of a group on its members: sticky first, then balanced by partition count,
 * rack-local where that costs no balance. Pure and single-use: one instance per {@code assign()}.
 *
 * <p>Steps:
 * <ol>
 *   <li><b>Keep</b>: a unit stays with its prior owner (the member that held most of its
 *       partitions in its current target) if that member may still take it. A <b>pinned</b> unit
 *       (some of its partitions in no target, as after its topic grew) never moves in the later
 *       steps: moved, its new partitions would reach the new owner before the old owner revoked
 *       the old ones ({@link PriorOwners}).</li>
 *   <li><b>Place the rest</b> (new units, units of members that left), class by class, most
 *       constrained class first, heaviest unit first: on the least loaded member of the unit's
 *       class; among equally loaded members, on one whose rack hosts a replica
 *       ({@link RackLocality}), else the lowest index. Units of one weight are placed level by
 *       level, without a heap ({@link #placeByLevels}): each member takes as many units as the
 *       heap would give it, as a run of consecutive units (with racks, of the units placed on its
 *       rack).</li>
 *   <li><b>Even</b>, when every member reads the same topics (one class): while the most loaded
 *       member can give a unit of weight {@code w} to the least loaded one with
 *       {@code load(min) + w < load(max)}, it gives one, first a unit placed in step 2 (moving it
 *       costs nothing), then a kept one; among those, the weight closest to half the gap. Each
 *       move lowers the sum of squared loads, so the loop ends; at the end, with units of one
 *       weight w, the spread is at most w.</li>
 *   <li>When members read different topics, instead ({@link SpreadNarrower}): <b>even the free
 *       units</b> (placed in step 2) along paths of classes that share members, which costs no
 *       move; then <b>narrow the spread</b>: lower the largest load and raise the smallest along
 *       cheapest paths (A gives a unit of x to B, B one of y to C; a direct move is a path of one
 *       link), all members of a level or none. With units of one weight the spread ends the least
 *       any assignment reaches, and no kept unit moves for a member in the middle.</li>
 * </ol>
 *
 * <p>Why not {@code internals.placement}'s {@code PlacementEngine}, which the classic adapter and
 * Kafka Streams use: it plans warmups and standbys from lags, which the broker never sees, names
 * tasks and clients by strings, and compares every task with every client when it places new
 * ones; a broker places up to a million units per member change. This class keeps the same cost
 * order without the lag terms (stickiness, then balance) in arrays and heaps. (It used the
 * engine's {@code CrossGroupBalancer} for chains; that one shifts along any cost-reducing path,
 * evening the middle too, which moved 5 partitions where {@code uniform} moved 1 at equal spread.)
 *
 * <p>Worked example: members m0 and m1 hold units 0..3 (m0: 0, 1; m1: 2, 3, weight 1 each); m2
 * joins. Keep: 2-2-0. Place: nothing new. Even: m0 (2) gives to m2 (0)? 0 + 1 &lt; 2, yes: m0's
 * kept unit closest to half the gap goes, 1-2-1... then m1 (2) and m2 (1): 1 + 1 is not below 2,
 * stop. One unit moved, what {@code uniform} moves too.
 */
final class UnitPlacer {

    /** An owner: the unit is in no member's target and not placed yet. */
    static final int UNOWNED = -1;
    /**
     * An owner: the unit stays in the target of a member not read yet (targets read by size,
     * {@link TrustedTargets}); reading that member's target replaces it with the member.
     */
    static final int NOT_READ = -2;

    private final TaskUnits units;
    private final RackLocality racks;
    private final PriorOwners priorOwners;
    private final int[] prior;
    /** By unit: stays with its prior owner, whatever the balance ({@link PriorOwners#pinned}). */
    private final boolean[] pinned;
    private final long[] load;
    private final int[] owner;
    /** By unit: kept from the current target in step 1. */
    private final boolean[] kept;
    /** The units step 1 keeps nowhere, ascending: step 2 places them. */
    private int[] unowned;
    private final AssignmentWork work;
    /** Scratch for the member heaps of {@link #placeUnowned}, by member: reused class after class. */
    private final int[] heapPosition;
    private final int[] rackHeapPosition;

    private UnitPlacer(TaskUnits units, long[] baseLoad, PriorOwners priorOwners, RackLocality racks,
                       AssignmentWork work) {
        this.units = units;
        this.priorOwners = priorOwners;
        this.pinned = priorOwners.pinned;
        this.work = work;
        this.racks = racks;
        this.prior = priorOwners.prior;
        this.load = baseLoad.clone();
        this.owner = new int[units.count()];
        this.kept = new boolean[units.count()];
        this.heapPosition = new int[baseLoad.length];
        this.rackHeapPosition = racks.enabled() ? new int[baseLoad.length] : heapPosition;
    }

    /**
     * @param baseLoad    by member: partitions it holds outside these units (of held topics)
     * @param priorOwners by unit: the member to keep it on ({@link PriorOwners#prior}, a member of
     *                    the unit's class, or -1), and whether it stays there whatever the balance
     *                    ({@link PriorOwners#pinned}); or, for targets read by size
     *                    ({@link PriorOwners#bySize}), the units in some target, each member's
     *                    read when the evening takes a unit from it, or up front if it holds a
     *                    unit of several partitions (a member that only gains units is not read:
     *                    its units are its target and those)
     * @param work        counts the work done, and bounds it
     * @return by unit: its member, or {@link #NOT_READ} for a unit that stays in a target not read
     */
    static int[] place(TaskUnits units, long[] baseLoad, PriorOwners priorOwners, RackLocality racks,
                       AssignmentWork work) {
        UnitPlacer placer = new UnitPlacer(units, baseLoad, priorOwners, racks, work);
        placer.keepPriorOwners();
        int[][] unownedByClass = placer.unownedByClass();
        Integer[] order = placer.classesMostConstrainedFirst();
        for (int c : order) {
            placer.placeUnowned(c, unownedByClass[c]);
        }
        if (units.classCount() > 1) {
            SpreadNarrower.balance(units, placer.load, placer.owner, placer.prior, placer.pinned, work);
        } else {
            placer.evenAll();
        }
        return placer.owner;
    }

    /**
     * Step 1: sets each unit's owner (its prior owner, {@link #NOT_READ}, or {@link #UNOWNED}) and
     * notes the units kept nowhere. With targets read by size, every one-partition unit but those
     * in no target ({@link TrustedTargets#inNoTarget}) stays where it is, not read: two array
     * fills, and later steps look only at the units in no target (on a member change of a million
     * units, a few hundred), at the units of several partitions, whose holders were read up front,
     * and at the members.
     */
    private void keepPriorOwners() {
        TrustedTargets bySize = priorOwners.bySize;
        if (bySize != null) {
            keepBySize(bySize);
            return;
        }
        int[] notKept = new int[16];
        int count = 0;
        for (int u = 0; u < owner.length; u++) {
            if (prior[u] >= 0) {
                kept[u] = true;
                owner[u] = prior[u];
                load[prior[u]] += units.weight[u];
            } else {
                owner[u] = UNOWNED;
                if (count == notKept.length) {
                    notKept = Arrays.copyOf(notKept, count * 2);
                }
                notKept[count++] = u;
            }
        }
        unowned = Arrays.copyOf(notKept, count);
    }

    private void keepBySize(TrustedTargets bySize) {
        Arrays.fill(owner, NOT_READ);
        Arrays.fill(kept, true);
        for (int u : bySize.inNoTarget) {
            owner[u] = UNOWNED;
            kept[u] = false;
        }
        for (int m = 0; m < load.length; m++) {
            load[m] += bySize.size[m];
        }
        // Units of several partitions: kept on their prior owners as a full read keeps them.
        int[] notKept = bySize.inNoTarget;
        int count = notKept.length;
        for (int g : bySize.countedGroups) {
            for (int u = units.groupFirstUnit[g]; u < units.groupEndUnit(g); u++) {
                if (prior[u] >= 0) {
                    owner[u] = prior[u];
                    load[prior[u]] += units.weight[u];
                } else {
                    owner[u] = UNOWNED;
                    kept[u] = false;
                    if (count == notKept.length) {
                        notKept = Arrays.copyOf(notKept, Math.max(16, count * 2));
                    }
                    notKept[count++] = u;
                }
            }
        }
        // The one-partition units of the targets read up front are their members' (each in one target).
        for (int m : bySize.readUpFront) {
            for (int u : priorOwners.readUpFront(m)) {
                if (owner[u] == NOT_READ) {
                    owner[u] = m;
                }
            }
        }
        unowned = count == bySize.inNoTarget.length ? notKept : Arrays.copyOf(notKept, count);
        if (bySize.countedGroups.length > 0) {
            Arrays.sort(unowned); // ascending, as a pass over every unit finds them
        }
    }

    /** @return by class, its units in {@link #unowned}, ascending */
    private int[][] unownedByClass() {
        if (units.classCount() == 1) {
            return new int[][] {unowned};
        }
        int[] counts = new int[units.classCount()];
        for (int u : unowned) {
            counts[units.classOf(u)]++;
        }
        int[][] byClass = new int[counts.length][];
        for (int c = 0; c < counts.length; c++) {
            byClass[c] = new int[counts[c]];
        }
        int[] next = new int[counts.length];
        for (int u : unowned) {
            int c = units.classOf(u);
            byClass[c][next[c]++] = u;
        }
        return byClass;
    }

    private Integer[] classesMostConstrainedFirst() {
        Integer[] order = new Integer[units.classCount()];
        for (int c = 0; c < order.length; c++) {
            order[c] = c;
        }
        Arrays.sort(order, Comparator.<Integer>comparingInt(c -> units.classMembers[c].length).thenComparingInt(c -> c));
        return order;
    }

    /** Step 2 for one class: places its units that step 1 kept nowhere. */
    private void placeUnowned(int c, int[] classUnowned) {
        // Heaviest first, then by index: sort (weight descending, unit) packed in longs, no boxing.
        int n = classUnowned.length;
        if (n == 0) {
            return;
        }
        long[] pending = new long[n];
        for (int i = 0; i < n; i++) {
            int u = classUnowned[i];
            pending[i] = (Integer.MAX_VALUE - Math.min(units.weight[u], Integer.MAX_VALUE)) << 32 | u;
        }
        Arrays.sort(pending);
        int[] classMembers = units.classMembers[c];
        work.heapOps += 2L * classMembers.length + 4L * n;
        if (placeByLevels(classMembers, pending, n)) {
            return;
        }
        MemberHeap members = MemberHeap.lightestFirst(load, classMembers.length, heapPosition);
        members.addAll(classMembers);
        Map<String, MemberHeap> byRack = racks.enabled() ? rackHeaps(classMembers) : Map.of();
        for (int i = 0; i < n; i++) {
            int u = (int) pending[i];
            int m = members.peek();
            if (!byRack.isEmpty() && !racks.isLocal(u, m)) {
                m = leastLoadedLocal(u, m, byRack);
            }
            owner[u] = m;
            load[m] += units.weight[u];
            members.update(m);
            MemberHeap rack = byRack.isEmpty() ? null : byRack.get(racks.rackOf(m));
            if (rack != null) {
                rack.update(m);
            }
        }
    }

    /**
     * The placement of {@link #placeUnowned} without a heap, where it is a sequence of levels:
     * units of one weight w on members whose loads differ by multiples of w. The heap hands units,
     * in order, to the members by (load, index), each coming back w heavier; so at level
     * {@code v} (the least load, then v + w, ...) every member whose load is {@code v} takes a
     * unit. The members at a level are those that were at the previous one and those whose load
     * starts there, merged by index. Each level but the last places a unit per member it visits,
     * so this costs O(units + members log members), not O(units x log members): most of a fresh
     * group's time on the heap.
     *
     * <p>Every member ends as loaded as with the heap, but takes its units as one run of the
     * pending order, members in index order, where the heap deals them out one by one: a fresh
     * member of a group of 1,000 topics gets one stretch over a topic or two, as {@code uniform}
     * hands them out, not one partition of each of 500 topics. Its consumer then fetches from
     * fewer topics, and its target, handed back on the next change, has a few entries to read
     * instead of hundreds. With racks, the heap and the rack heaps decide unit by unit which rack
     * each unit goes to ({@link RackLevel}), and then each rack's units are handed to its members
     * as runs in the same way ({@link RackLevel#handOutRuns}): as many units rack-local, each
     * member as loaded, and its units a stretch of its rack's share of every topic.
     *
     * @param pending the units to place, sorted heaviest first, then by index ({@code n} of them)
     * @return false, having placed nothing, if the units or loads are not such levels
     */
    private boolean placeByLevels(int[] classMembers, long[] pending, int n) {
        long w = units.weight[(int) pending[0]];
        if (classMembers.length == 0 || w <= 0 || w != units.weight[(int) pending[n - 1]]) {
            return false; // sorted by weight: the first and last differ if any two do
        }
        long residue = Math.floorMod(load[classMembers[0]], w);
        // By (load, position in classMembers): positions ascend as member indexes do.
        long[] byLoad = new long[classMembers.length];
        for (int i = 0; i < classMembers.length; i++) {
            int m = classMembers[i];
            if (load[m] < 0 || load[m] > Integer.MAX_VALUE || Math.floorMod(load[m], w) != residue) {
                return false;
            }
            byLoad[i] = load[m] << 32 | i;
        }
        Arrays.sort(byLoad);
        RackLevel rackLevel = racks.enabled() ? new RackLevel(classMembers, n) : null;
        int[] takes = new int[classMembers.length];
        int[] level = new int[classMembers.length];
        int[] merged = new int[classMembers.length];
        int atLevel = 0;
        int started = 0;
        long value = byLoad[0] >>> 32;
        for (int placed = 0; placed < n; value += w) {
            int from = started;
            while (started < byLoad.length && byLoad[started] >>> 32 == value) {
                started++;
            }
            if (started > from) {
                atLevel = mergeByIndex(level, atLevel, byLoad, from, started, merged);
                int[] swap = level;
                level = merged;
                merged = swap;
            }
            int end = (int) Math.min(n, (long) placed + atLevel);
            if (rackLevel != null) {
                rackLevel.place(level, atLevel, pending, placed, end, takes);
            } else {
                for (int i = 0; i < end - placed; i++) {
                    takes[level[i]]++;
                }
            }
            placed = end;
        }
        if (rackLevel != null) {
            rackLevel.handOutRuns(pending, n, takes);
        } else { // one run of the pending order per member, in index order
            int next = 0;
            for (int i = 0; i < classMembers.length; i++) {
                for (int k = 0; k < takes[i]; k++) {
                    owner[(int) pending[next++]] = classMembers[i];
                }
            }
        }
        for (int i = 0; i < classMembers.length; i++) {
            load[classMembers[i]] += takes[i] * w;
        }
        return true;
    }

    /**
     * Merges the positions {@code level[0, count)} (ascending) with those packed in the low halves of
     * {@code byLoad[from, to)} (ascending) into {@code into}, ascending.
     *
     * @return the number of members merged
     */
    private static int mergeByIndex(int[] level, int count, long[] byLoad, int from, int to, int[] into) {
        int a = 0;
        int b = from;
        int n = 0;
        while (a < count || b < to) {
            if (b == to || (a < count && level[a] < (int) byLoad[b])) {
                into[n++] = level[a++];
            } else {
                into[n++] = (int) byLoad[b++];
            }
        }
        return n;
    }

    /** @return the class's members that have a rack, a heap per rack (they share one position array) */
    private Map<String, MemberHeap> rackHeaps(int[] classMembers) {
        Map<String, Integer> sizes = new HashMap<>();
        for (int m : classMembers) {
            if (racks.rackOf(m) != null) {
                sizes.merge(racks.rackOf(m), 1, Integer::sum);
            }
        }
        Map<String, MemberHeap> byRack = new HashMap<>();
        sizes.forEach((rack, size) -> byRack.put(rack, MemberHeap.lightestFirst(load, size, rackHeapPosition)));
        for (int m : classMembers) {
            if (racks.rackOf(m) != null) {
                byRack.get(racks.rackOf(m)).add(m);
            }
        }
        return byRack;
    }

    /**
     * Among the members as loaded as the least loaded one ({@code least}), the one of lowest index
     * whose rack hosts a replica of the unit: the least loaded of each replica's rack is the only
     * candidate of that rack. O(racks of the unit's replicas x log members), where popping the
     * equally loaded members one by one costs as many as there are (all of them, in a fresh group).
     *
     * @return that member, or {@code least} if none is local
     */
    private int leastLoadedLocal(int unit, int least, Map<String, MemberHeap> byRack) {
        Set<String> replicas = racks.replicaRacks(unit);
        int best = -1;
        if (replicas.size() <= byRack.size()) {
            for (String rack : replicas) {
                best = lighterLocal(byRack.get(rack), least, best);
            }
        } else {
            for (Map.Entry<String, MemberHeap> rack : byRack.entrySet()) {
                if (replicas.contains(rack.getKey())) {
                    best = lighterLocal(rack.getValue(), least, best);
                }
            }
        }
        work.heapOps += Math.min(replicas.size(), byRack.size());
        return best >= 0 ? best : least;
    }

    private int lighterLocal(MemberHeap rack, int least, int best) {
        if (rack == null || rack.isEmpty()) {
            return best;
        }
        int m = rack.peek();
        return load[m] == load[least] && (best < 0 || m < best) ? m : best;
    }

    /**
     * Step 3, when every member reads the same topics (one class, or none): the most loaded member
     * that can give a unit to the least loaded one with an improving move gives it. Givers are
     * looked at heaviest first (ties to the highest index), takers lightest first (ties to the
     * lowest), each in a {@link MemberHeap}: per move O(log members), and no boxing.
     */
    private void evenAll() {
        if (units.classCount() == 0) {
            return;
        }
        int[] members = units.classMembers[0];
        if (members.length < 2 || spread(members) <= units.lightest) { // one class: every unit is of it
            return; // a move needs a unit lighter than the spread: none can make a pair better off
        }
        HoldingsByMember holdings = new HoldingsByMember();
        MemberHeap takers = MemberHeap.lightestFirst(load, members.length, new int[load.length]);
        // The members that may still give. One that cannot give now cannot later unless it takes a
        // unit: its load only falls, the least load only rises (a taker ends below its giver's old
        // load), so its gap only shrinks, and its units only leave. So it is looked at once, not
        // again for every move (half the members holding only partitions of a held topic would be
        // looked at on each of thousands of moves).
        MemberHeap givers = MemberHeap.heaviestFirst(load, members.length, new int[load.length]);
        takers.addAll(members);
        givers.addAll(members);
        work.heapOps += 3L * members.length;
        while (!work.spent()) {
            int taker = takers.peek();
            int giver = -1;
            int move = -1;
            while (!givers.isEmpty()) {
                int candidate = givers.peek();
                work.scans++;
                long gap = load[candidate] - load[taker];
                if (gap < 2) {
                    return; // no giver left is two above the lightest: no move improves
                }
                work.heapOps++;
                move = holdings.giving(candidate).pick(gap);
                if (move >= 0) {
                    giver = candidate;
                    break;
                }
                givers.poll();
                work.heapOps++;
            }
            if (move < 0) {
                return;
            }
            long w = units.weight[move];
            holdings.of(giver).remove(move, w, kept[move]);
            kept[move] = false;
            holdings.of(taker).add(move, w, false);
            owner[move] = taker;
            load[giver] -= w;
            load[taker] += w;
            takers.update(giver);
            takers.update(taker);
            givers.update(giver);
            if (givers.contains(taker)) {
                givers.update(taker);
            } else {
                givers.add(taker); // it took a unit: it may give again
            }
            work.heapOps += 4 + 4L * (1 + 1 + 1) + 2; // per move, as the budget is sized: the giver and the taker, one class each
        }
    }

    /**
     * Only with targets read by size: reads the member's target if not yet, making its units'
     * owner the member (they stay where they were until a move takes them).
     *
     * @return the units read now, ascending; empty if none or read before
     */
    private int[] readTarget(int member) {
        int[] read = priorOwners.readTarget(member);
        work.scans += read.length;
        for (int u : read) {
            if (owner[u] == NOT_READ) {
                owner[u] = member;
            }
        }
        return read;
    }

    private long spread(int[] members) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int m : members) {
            min = Math.min(min, load[m]);
            max = Math.max(max, load[m]);
        }
        return max - min;
    }

    /**
     * {@link #placeByLevels} with racks. Level by level ({@link #place}), each unit, in order, goes
     * to the member of lowest index among those at the level that have not taken a unit yet and
     * whose rack hosts a replica of it, else to the lowest index of them; the member the heap and
     * the rack heaps of {@link #placeUnowned} would pick. The level's members are kept in index
     * order per rack, each rack with a cursor past the members that took a unit, so a unit costs
     * a look at its replicas' racks: O(units x replicas + members) per class, where the heaps cost
     * O(units x log members). That decides how many units each member takes and which rack each
     * unit goes to; {@link #handOutRuns} then decides which of its rack's units a member takes.
     */
    private final class RackLevel {
        private final int[] classMembers;
        /** By position in classMembers: its rack's number, or -1 if it has none. */
        private final int[] rackOf;
        private final Map<String, Integer> rackNumbers = new HashMap<>();
        /** The level's positions grouped by rack, ascending within each: rack r's at [start[r], start[r + 1]). */
        private final int[] byRack;
        private final int[] start;
        private final int[] cursor;
        /** By position: the number of the level at which it took a unit (so nothing is cleared between levels). */
        private final int[] tookAt;
        private int levelNumber;
        /** By index in the pending order: the position {@link #place} placed that unit on. */
        private final int[] placedOn;

        RackLevel(int[] classMembers, int pending) {
            this.classMembers = classMembers;
            this.rackOf = new int[classMembers.length];
            for (int i = 0; i < classMembers.length; i++) {
                String rack = racks.rackOf(classMembers[i]);
                rackOf[i] = rack == null ? -1 : rackNumbers.computeIfAbsent(rack, r -> rackNumbers.size());
            }
            this.byRack = new int[classMembers.length];
            this.start = new int[rackNumbers.size() + 1];
            this.cursor = new int[rackNumbers.size()];
            this.tookAt = new int[classMembers.length];
            this.placedOn = new int[pending];
        }

        /**
         * Places {@code pending[from, to)} on the positions {@code level[0, count)} (ascending),
         * at most one unit each, counting each position's units into {@code takes}.
         */
        void place(int[] level, int count, long[] pending, int from, int to, int[] takes) {
            int stamp = ++levelNumber;
            Arrays.fill(start, 0);
            for (int i = 0; i < count; i++) {
                if (rackOf[level[i]] >= 0) {
                    start[rackOf[level[i]] + 1]++;
                }
            }
            for (int r = 0; r < cursor.length; r++) {
                start[r + 1] += start[r];
                cursor[r] = start[r];
            }
            for (int i = 0; i < count; i++) {
                int r = rackOf[level[i]];
                if (r >= 0) {
                    byRack[cursor[r]++] = level[i];
                }
            }
            System.arraycopy(start, 0, cursor, 0, cursor.length);
            int lowest = 0;
            for (int k = from; k < to; k++) {
                int u = (int) pending[k];
                int best = Integer.MAX_VALUE;
                for (String rack : racks.replicaRacks(u)) {
                    Integer r = rackNumbers.get(rack);
                    if (r != null) {
                        while (cursor[r] < start[r + 1] && tookAt[byRack[cursor[r]]] == stamp) {
                            cursor[r]++;
                        }
                        if (cursor[r] < start[r + 1]) {
                            best = Math.min(best, byRack[cursor[r]]);
                        }
                    }
                }
                if (best == Integer.MAX_VALUE) {
                    while (tookAt[level[lowest]] == stamp) {
                        lowest++;
                    }
                    best = level[lowest];
                }
                tookAt[best] = stamp;
                takes[best]++;
                placedOn[k] = best;
                work.scans++;
            }
        }

        /**
         * Sets the owners of {@code pending[0, n)}: the units {@link #place} put on a rack's
         * members (or on members without a rack), in the pending order, are handed to those
         * members in index order, each taking as many as it took there, as one run. Moving a unit
         * between members of one rack changes neither its locality nor a load; dealt out level by
         * level, the members of a rack would each read one partition of nearly every topic.
         * O(units + members).
         */
        void handOutRuns(long[] pending, int n, int[] takes) {
            int groups = cursor.length + 1; // each rack, then the members without one
            int[] first = new int[groups + 1];
            for (int k = 0; k < n; k++) {
                first[groupOf(placedOn[k]) + 1]++;
            }
            for (int g = 0; g < groups; g++) {
                first[g + 1] += first[g];
            }
            int[] next = Arrays.copyOf(first, groups);
            int[] byGroup = new int[n];
            for (int k = 0; k < n; k++) {
                byGroup[next[groupOf(placedOn[k])]++] = (int) pending[k];
            }
            System.arraycopy(first, 0, next, 0, groups);
            for (int i = 0; i < classMembers.length; i++) {
                int g = groupOf(i);
                for (int t = 0; t < takes[i]; t++) {
                    owner[byGroup[next[g]++]] = classMembers[i];
                }
            }
            work.scans += 2L * n + classMembers.length;
        }

        private int groupOf(int position) {
            return rackOf[position] >= 0 ? rackOf[position] : cursor.length;
        }
    }

    /**
     * Each member's {@link Holdings}, made when the evening first looks at them: it looks at few
     * members (those it takes units from or gives units to), and making them all up front costs
     * as much as a million units boxed. Made from the owners as they were before the evening,
     * which stay right for a member until a move touches it, and a move makes both of its members'
     * holdings first. With targets read by size, a member's target is read only when the evening
     * looks at it as a giver ({@link #giving}): a taker's units are added to what it holds, and its
     * target, handed back with them, need not be read (a grown topic's few holders give a unit
     * to each of hundreds of members).
     */
    private final class HoldingsByMember {
        private final Holdings[] made = new Holdings[load.length];
        /** Units by owner before the evening, ascending: those of member m at [start[m], start[m + 1]). */
        private final int[] start = new int[load.length + 1];
        private final int[] byOwner;

        HoldingsByMember() {
            // With targets read by size, only the units placed in step 2 are indexed here: the
            // others are NOT_READ until their member's target is read, or in a target read up
            // front, whose units placedAndReadUpFront takes from that read.
            boolean placedOnly = priorOwners.bySize != null;
            int candidates = placedOnly ? unowned.length : owner.length;
            for (int i = 0; i < candidates; i++) {
                int m = owner[placedOnly ? unowned[i] : i];
                if (m >= 0) {
                    start[m + 1]++;
                }
            }
            for (int m = 0; m < load.length; m++) {
                start[m + 1] += start[m];
            }
            byOwner = new int[start[load.length]];
            int[] next = Arrays.copyOf(start, load.length);
            for (int i = 0; i < candidates; i++) {
                int u = placedOnly ? unowned[i] : i;
                if (owner[u] >= 0) {
                    byOwner[next[owner[u]]++] = u;
                }
            }
        }

        /** @return the member's holdings, of a member that may only take (its target not read for them) */
        Holdings of(int member) {
            if (made[member] == null) {
                made[member] = priorOwners.bySize == null ? fromOwners(member) : placedAndReadUpFront(member);
            }
            return made[member];
        }

        /** @return the member's holdings, with its kept units: read now, with targets read by size, if not yet */
        Holdings giving(int member) {
            Holdings holdings = of(member);
            if (priorOwners.bySize != null && !priorOwners.wasRead(member)) {
                // Its target's units are all kept, one partition each (weight 1), none pinned, and it
                // kept none yet: the read array (ascending) is its kept stack as adding them one by one makes it.
                holdings.keepAll(readTarget(member), 1);
            }
            return holdings;
        }

        /**
         * With targets read by size: the units placed on the member in step 2 (free), and, if its
         * target was read up front, the units it keeps of it, as {@link #fromOwners} has them; a
         * target not read yet is read when the member gives ({@link #giving}).
         */
        private Holdings placedAndReadUpFront(int member) {
            Holdings holdings = new Holdings();
            int[] readUpFront = priorOwners.readUpFront(member);
            if (readUpFront != null) {
                work.scans += readUpFront.length;
                for (int u : readUpFront) {
                    if (owner[u] == member && !pinned[u]) {
                        holdings.add(u, units.weight[u], kept[u]);
                    }
                }
            }
            work.scans += start[member + 1] - start[member];
            for (int i = start[member]; i < start[member + 1]; i++) {
                int u = byOwner[i];
                holdings.add(u, units.weight[u], kept[u]);
            }
            return holdings;
        }

        /** Every target read up front: the member's units are those it owned before the evening. */
        private Holdings fromOwners(int member) {
            Holdings holdings = new Holdings();
            work.scans += start[member + 1] - start[member];
            for (int i = start[member]; i < start[member + 1]; i++) {
                int u = byOwner[i];
                if (!pinned[u]) {
                    holdings.add(u, units.weight[u], kept[u]);
                }
            }
            return holdings;
        }
    }
}
