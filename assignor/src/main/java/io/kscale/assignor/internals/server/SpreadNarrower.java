package io.kscale.assignor.internals.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Balances a group whose members read different topics, the last steps of {@link UnitPlacer}
 * once kept units are back and the rest placed, moving kept units only where the spread
 * ({@code max - min} load) needs it.
 *
 * <p>A surplus may need a chain of classes: A reads x and y, B reads y and z, C reads z; A holds
 * 4, B 3, C 2; no direct move helps, but A gives a unit of y to B and B one of z to C: 3/3/3, two
 * moves for one unit of load. Evening every such chain (the sum of squared loads, what this
 * replaced) moved up to 5 partitions where {@code uniform} moved 1 at the same spread: most of
 * those shifts evened members in the middle. So:
 * <ol>
 *   <li><b>Even the free units</b> ({@link #shiftFreeOnce}): units placed this time (new, or of
 *       members that left) shift along any path that lowers the sum of squared loads, from a
 *       level's members to lighter ones, as many paths per search as share no member. Moving them
 *       costs nothing, and the next steps start from the best they give.</li>
 *   <li><b>Lower the top</b>: every member at the largest load L looks for the cheapest path to
 *       a member v with {@code load(v) + w < L} (each link: a member gives one unit of weight w of
 *       a class it shares with the next). If every member at L finds one, L falls; if one of them
 *       finds none, no assignment of these units has a largest load below L (the members it
 *       reaches hold units only they may take, at least L - 1 each on average plus its surplus),
 *       so the shifts made at this level are undone and the step ends.</li>
 *   <li><b>Raise the bottom</b>, the mirror: every member at the smallest load l looks for the
 *       cheapest path from a member u with {@code load(u) - w > l}; all or nothing per level.</li>
 * </ol>
 * Only the two ends of a path change load, and an end never crosses the level being fixed, so the
 * last step keeps the top. With units of one weight, the least spread any assignment reaches has
 * the largest load least and the smallest greatest at once (Harvey, Ladner, Lovász, Tamir,
 * "Semi-matchings for bipartite graphs and load balancing", 2006); the level a member finds no
 * path from is such a bound. A level whose members' paths compete for the same light member may
 * stop above it, as the paths are taken one by one rather than as one flow;
 * {@code ServerVersusUniformPropertyTest} checks that the spread is never wider than
 * {@code uniform}'s.
 *
 * <p>Cost of a path: the partitions it takes from the members that held them before this
 * assignment (a unit placed this time, or moved already, moves for free), found by a 0-1
 * breadth-first search: a class is expanded at most once per cost, so one search visits each
 * member-class pair at most twice. All-or-nothing levels keep the moves to those that narrow the
 * spread: with moves made for a level that cannot be reached, a member would lose partitions for
 * nothing.
 *
 * <p>Worked example: A reads x, y; B reads y, z; C reads z; loads 4/3/2, units of weight 1, all
 * kept. Top at 4: A searches; B (3 + 1 is not below 4) is passed through via y, C reached via z
 * (2 + 1 &lt; 4): the path A -y-&gt; B -z-&gt; C, cost 2, gives 3/3/3. Top at 3: A finds nobody
 * below 2, so the level stays (nothing to undo). Bottom at 3: nobody above 4, it stays. Two moves;
 * had D, reading only w, held 5, the top could not fall below 5 and A would have kept its 4.
 *
 * <p>Pure and single-use; it changes the placer's arrays in place.
 */
final class SpreadNarrower {

    private static final Logger log = LoggerFactory.getLogger(SpreadNarrower.class);

    private static final int UNSEEN = Integer.MAX_VALUE;

    private final TaskUnits units;
    private final long[] load;
    private final int[] owner;
    private final int[] prior;
    private final int[][] classesOf;
    private final boolean[] placeable;
    private final long[] weights;
    /**
     * By member, then by the index of a class in {@link #classesOf} (ascending classes): the units
     * of that class the member holds, by weight, free ones apart; null while it holds none. Arrays,
     * not a map by (member, class): the searches look these up for every member they reach.
     */
    private final Holdings[][] holdings;
    /**
     * The assignment's work, every step counted. A search of a group whose members read many
     * topics each visits every member-class pair, and the loops search until no path is left: on
     * a million partitions that could hold the coordinator thread for minutes. When the budget is
     * spent the loops stop where they are, which leaves a valid assignment, balanced less than it
     * could be.
     */
    private final AssignmentWork work;
    /** The moves of the level being tried, to undo them if it cannot be reached: unit, from. */
    private final List<int[]> journal = new ArrayList<>();

    /** By member, valid where {@link #seen} holds the current search's {@link #stamp}. */
    private final int[] dist;
    private final int[] parent;
    private final int[] via;
    /** By member: the stamp of the last search that reached it, and of the last that finished it. */
    private final int[] seen;
    private final int[] finished;
    /** The members of the level {@link #shiftFreeOnce} searches from. */
    private final int[] sources;
    /** {@link #shiftFreePaths}' breadth-first order; its depth-first path and each step's next class. */
    private final int[] layered;
    private final int[] path;
    private final int[] nextClass;
    /** By class, for {@link #shiftFreePaths}: the layer it was first given from, and how far its members were tried. */
    private final int[] classLayer;
    private final int[] classCursor;
    /** By cost (0, 1) and class: the stamp of the last search that expanded the class at that cost. */
    private final int[][] expanded;
    private int stamp;
    /**
     * Placeable members by load, descending, then by index, kept up to date by {@link #move}: the
     * levels of {@link #shiftFreeOnce}, and the lightest and heaviest load any search can reach,
     * at which it stops.
     */
    private final TreeSet<Integer> byLoadDescending;
    private long leastUnplaceable = Long.MAX_VALUE;
    /** The placeable members' load, all together (moves keep it), and their number. */
    private long placeableTotal;
    private long placeableCount;
    /** By member: the units in its holdings that move for free (not on their prior owner); all together. */
    private final int[] freeHeld;
    private long freeTotal;

    private SpreadNarrower(TaskUnits units, long[] load, int[] owner, int[] prior, boolean[] pinned,
                           AssignmentWork work) {
        this.units = units;
        this.work = work;
        this.load = load;
        this.owner = owner;
        this.prior = prior;
        int members = load.length;
        this.classesOf = classesOf(units, members);
        this.placeable = new boolean[members];
        this.holdings = new Holdings[members][];
        for (int m = 0; m < members; m++) {
            placeable[m] = classesOf[m].length > 0;
            holdings[m] = new Holdings[classesOf[m].length];
        }
        work.scans += members + AssignmentWork.memberClassPairs(units);
        work.heapOps += 2L * owner.length;
        this.freeHeld = new int[members];
        for (int u = 0; u < owner.length; u++) {
            if (pinned[u]) {
                continue; // in its member's load, never in its holdings: no path moves it
            }
            holding(owner[u], units.classOf(u)).add(u, units.weight[u], isKept(u));
            countFree(u, 1);
        }
        this.weights = distinctWeightsDescending(units, pinned);
        this.dist = new int[members];
        this.parent = new int[members];
        this.via = new int[members];
        this.seen = new int[members];
        this.finished = new int[members];
        this.sources = new int[members];
        this.layered = new int[members];
        this.path = new int[members];
        this.nextClass = new int[members];
        this.classLayer = new int[units.classCount()];
        this.classCursor = new int[units.classCount()];
        this.expanded = new int[2][units.classCount()];
        this.byLoadDescending = new TreeSet<>((a, b) -> load[a] != load[b] ? Long.compare(load[b], load[a])
                : Integer.compare(a, b));
        for (int m = 0; m < members; m++) {
            if (placeable[m]) {
                byLoadDescending.add(m);
                placeableTotal += load[m];
                placeableCount++;
            } else {
                leastUnplaceable = Math.min(leastUnplaceable, load[m]);
            }
        }
        work.heapOps += members;
    }

    /** @return by member, the classes it reads, ascending: a counting sort of the classes' members */
    private static int[][] classesOf(TaskUnits units, int members) {
        int[] counts = new int[members];
        for (int c = 0; c < units.classCount(); c++) {
            for (int m : units.classMembers[c]) {
                counts[m]++;
            }
        }
        int[][] classesOf = new int[members][];
        for (int m = 0; m < members; m++) {
            classesOf[m] = new int[counts[m]];
        }
        int[] next = new int[members];
        for (int c = 0; c < units.classCount(); c++) {
            for (int m : units.classMembers[c]) {
                classesOf[m][next[m]++] = c;
            }
        }
        return classesOf;
    }

    /**
     * @return the weights of the units that may move, each once, heaviest first. Kept sorted as
     *         they are found: k distinct positive weights sum to at least k(k + 1) / 2 partitions,
     *         so there are at most about 1,400 of them on a million partitions, and inserting
     *         them costs less than a pass over the units.
     */
    private static long[] distinctWeightsDescending(TaskUnits units, boolean[] pinned) {
        long[] ascending = new long[4];
        int count = 0;
        for (int u = 0; u < units.count(); u++) {
            if (pinned[u]) {
                continue;
            }
            long w = units.weight[u];
            int i = Arrays.binarySearch(ascending, 0, count, w);
            if (i < 0) {
                if (count == ascending.length) {
                    ascending = Arrays.copyOf(ascending, count * 2);
                }
                i = -i - 1;
                System.arraycopy(ascending, i, ascending, i + 1, count - i);
                ascending[i] = w;
                count++;
            }
        }
        long[] descending = new long[count];
        for (int i = 0; i < count; i++) {
            descending[i] = ascending[count - 1 - i];
        }
        return descending;
    }

    /**
     * Evens the free units, then narrows the spread: the steps of the class comment, on one
     * narrower (its holdings are built once, from every unit that may move).
     *
     * @param load   by member: its load, changed in place
     * @param owner  by unit: its member, changed in place
     * @param prior  by unit: the member that held it before this assignment, or -1
     * @param pinned by unit: whether it stays where it is
     */
    static void balance(TaskUnits units, long[] load, int[] owner, int[] prior, boolean[] pinned, AssignmentWork work) {
        if (owner.length == 0) {
            return;
        }
        SpreadNarrower narrower = new SpreadNarrower(units, load, owner, prior, pinned, work);
        // Evening the free units lowers the sum of squared loads with each path, so it ends; it
        // moves no partition a member held before.
        while (narrower.shiftFreeOnce()) {
            // the sum of squared loads fell
        }
        narrower.logIfSpent("evening the units placed this time");
        while (narrower.shiftLevel(true)) {
            // the top fell by at least one
        }
        while (narrower.shiftLevel(false)) {
            // the bottom rose by at least one
        }
        narrower.logIfSpent("narrowing the spread");
    }

    /**
     * Paths of free units from the members of one load level, the top level first, from all of
     * them at once (what the replaced chain balancer did too: one search per level, not per
     * member).
     *
     * @return whether any path was shifted
     */
    private boolean shiftFreeOnce() {
        if (work.spent()) {
            return false;
        }
        if (byLoadDescending.isEmpty()) {
            return false;
        }
        long least = Math.min(leastUnplaceable, load[byLoadDescending.last()]);
        for (long w : weights) {
            Iterator<Integer> members = byLoadDescending.iterator();
            int next = members.next();
            while (next >= 0 && least + w < load[next]) {
                // the next level: a run of members of one load, in index order
                long level = load[next];
                int count = 0;
                while (next >= 0 && load[next] == level) {
                    sources[count++] = next;
                    next = members.hasNext() ? members.next() : -1;
                }
                work.scans += count;
                if (shiftFreePaths(count, level, w) > 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Moves every member at the top (or bottom) level off it along cheapest paths, or none.
     *
     * @return whether the level was left by all its members
     */
    private boolean shiftLevel(boolean top) {
        long level = top ? Long.MIN_VALUE : Long.MAX_VALUE;
        work.scans += 2L * load.length;
        for (int m = 0; m < load.length; m++) {
            if (placeable[m]) {
                level = top ? Math.max(level, load[m]) : Math.min(level, load[m]);
            }
        }
        journal.clear();
        if (!top && weights.length == 1) {
            int alone = aloneAtTheBottom();
            if (alone >= 0 && freeTotal == freeHeld[alone] && raiseAlone(alone) > 0) {
                return true;
            }
        }
        // Moves keep the placeable members' total: every one of them below L (above l) needs
        // total <= (L - 1) x n (>= (l + 1) x n). Without it a member of the level is bound to find
        // no path, after the others' searches and moves, which would then be undone.
        if (top ? placeableTotal > (level - 1) * placeableCount : placeableTotal < (level + 1) * placeableCount) {
            return false;
        }
        for (int m = 0; m < load.length; m++) {
            if (!placeable[m] || load[m] != level) {
                continue;
            }
            boolean shifted = top && giveToAloneAtTheBottom(m, level) || shiftCheapest(m, level, top);
            if (!shifted || work.spent()) {
                undo(); // all or nothing per level, also when the budget ran out within it
                return false;
            }
        }
        return true;
    }

    /**
     * The path {@link #searchDown} finds from x at the top {@code level} when it is one link,
     * without the search: every unit has one weight w, x holds no free unit, the least loaded
     * member s is alone at its load (a member joined), and x holds a unit of a class s reads.
     * Every path from x then costs at least 1 (its first link gives a kept unit), the direct one
     * costs 1 and ends at the lightest member, so the search ends there, through the first class
     * of x (ascending) that relaxed s: the same move, where the search visits x's classes and
     * their members first. A member joining 10,000 partitions on 50 members is most of the top's
     * shifts.
     *
     * @return whether x gave s a unit
     */
    private boolean giveToAloneAtTheBottom(int x, long level) {
        if (weights.length != 1) {
            return false;
        }
        long w = weights[0];
        int s = aloneAtTheBottom();
        if (s < 0 || s == x || freeHeld[x] > 0 || load[s] + w >= level) {
            return false;
        }
        for (int i = 0; i < classesOf[x].length; i++) {
            work.scans++;
            Holdings held = holdings[x][i];
            if (held != null && held.has(w) && Arrays.binarySearch(classesOf[s], classesOf[x][i]) >= 0) {
                move(held.take(w), x, s);
                return true;
            }
        }
        return false;
    }

    /** @return the placeable member of least load if no other has that load, else -1 */
    private int aloneAtTheBottom() {
        if (byLoadDescending.isEmpty()) {
            return -1;
        }
        int last = byLoadDescending.last();
        Integer next = byLoadDescending.lower(last);
        return next == null || load[next] > load[last] ? last : -1;
    }

    /**
     * The bottom level when it is one member, {@code s}, and every unit has one weight w and none
     * is free but those on s (a member joining a group whose units all stay: the newcomer at 0
     * takes hundreds of units one level at a time). Then {@link #searchUp} from s finds, level
     * after level, the heaviest member that shares a class with s and holds a unit of w there,
     * ties to the first it relaxes: the first class of s (in s's class order) in which it holds
     * one, then its place in that class. Only s and that giver change: so the givers are ranked
     * once, by a pass over s's classes, and taken from a sorted set level after level, as long as
     * s stays alone at the bottom and the heaviest can give; the same moves as one search per
     * level, which would cost s's whole neighbourhood each time.
     *
     * @return how many levels s rose (each a level reached: nothing to undo)
     */
    private int raiseAlone(int s) {
        long w = weights[0];
        long[] rank = new long[load.length];
        int[] viaClass = new int[load.length];
        Arrays.fill(rank, -1);
        work.scans += load.length;
        TreeSet<Integer> givers = new TreeSet<>((a, b) -> load[a] != load[b] ? Long.compare(load[b], load[a])
                : Long.compare(rank[a], rank[b]));
        for (int i = 0; i < classesOf[s].length; i++) {
            int c = classesOf[s][i];
            int[] members = units.classMembers[c];
            work.scans += members.length;
            for (int k = 0; k < members.length; k++) {
                int x = members[k];
                if (x != s && rank[x] < 0 && holds(x, c, w)) {
                    rank[x] = (long) i << 32 | k;
                    viaClass[x] = c;
                    givers.add(x);
                    work.heapOps++;
                }
            }
        }
        int raised = 0;
        while (!work.spent() && !givers.isEmpty() && aloneAtTheBottom() == s && freeTotal == freeHeld[s]) {
            long level = load[s];
            int x = givers.first();
            if (placeableTotal < (level + 1) * placeableCount || load[x] - w <= level) {
                break; // no level above for all, or no direct giver: a longer path is the search's to find
            }
            givers.remove(x);
            move(holding(x, viaClass[x]).take(w), x, s);
            journal.clear(); // s left its level alone: reached
            raised++;
            if (!holds(x, viaClass[x], w)) {
                rerank(x, s, w, rank, viaClass);
            }
            if (rank[x] >= 0) {
                givers.add(x);
            }
            work.heapOps += 2;
        }
        return raised;
    }

    /** Ranks x again by the first class of s in which it still holds a unit of w, or -1 if none. */
    private void rerank(int x, int s, long w, long[] rank, int[] viaClass) {
        rank[x] = -1;
        work.scans += classesOf[s].length;
        for (int i = 0; i < classesOf[s].length && rank[x] < 0; i++) {
            int c = classesOf[s][i];
            if (Arrays.binarySearch(classesOf[x], c) >= 0 && holds(x, c, w)) {
                rank[x] = (long) i << 32 | Arrays.binarySearch(units.classMembers[c], x);
                viaClass[x] = c;
            }
        }
    }

    private boolean holds(int member, int c, long w) {
        Holdings held = holdings[member][Arrays.binarySearch(classesOf[member], c)];
        return held != null && held.has(w);
    }

    /** One path for the member at {@code level}, the cheapest over all weights; false if none. */
    private boolean shiftCheapest(int member, long level, boolean top) {
        int bestCost = UNSEEN;
        long bestWeight = 0;
        int bestEnd = -1;
        boolean lastSearchIsBest = false;
        for (long w : weights) {
            int end = top ? searchDown(member, level, w) : searchUp(member, level, w);
            lastSearchIsBest = end >= 0 && dist[end] < bestCost;
            if (lastSearchIsBest) {
                bestCost = dist[end];
                bestWeight = w;
                bestEnd = end;
            }
        }
        if (bestCost == UNSEEN) {
            return false;
        }
        if (!lastSearchIsBest) {
            // The path is in the arrays of the last search only: search the best weight again
            // (with units of one weight, the usual case, the one search is the best).
            bestEnd = top ? searchDown(member, level, bestWeight) : searchUp(member, level, bestWeight);
        }
        shiftPath(bestEnd, bestWeight, top);
        return true;
    }

    /** Along the path the last search found, from its source (parent -1) to {@code end}. */
    private void shiftPath(int end, long bestWeight, boolean top) {
        for (int v = end; parent[v] >= 0; v = parent[v]) {
            // top: parent[v] gives to v; bottom: v gives to parent[v]
            int giver = top ? parent[v] : v;
            int taker = top ? v : parent[v];
            move(holding(giver, via[v]).take(bestWeight), giver, taker);
        }
    }

    /**
     * Cheapest path from {@code source} (at the top level) through givers of a unit of weight w
     * to a member v with {@code load(v) + w < level}.
     *
     * @return v, or -1
     */
    private int searchDown(int source, long level, long w) {
        ArrayDeque<Integer> queue = reset();
        start(queue, source);
        int best = -1;
        // Nobody is lighter than the lightest placeable member: once it is the best, the search is done.
        long lightest = load[byLoadDescending.last()];
        while (!queue.isEmpty() && (best < 0 || load[best] > lightest)) {
            int x = queue.poll();
            if (finished[x] == stamp) {
                continue;
            }
            if (best >= 0 && dist[x] > dist[best]) {
                break;
            }
            finished[x] = stamp;
            if (load[x] + w < level && (best < 0 || load[x] < load[best])) {
                best = x; // of the cheapest, the lightest: it needs the load most
            }
            work.scans += 1 + classesOf[x].length;
            for (int i = 0; i < classesOf[x].length; i++) {
                int c = classesOf[x][i];
                Holdings held = holdings[x][i];
                if (held == null || !held.has(w)) {
                    continue;
                }
                int cost = held.hasFree(w) ? 0 : 1;
                if (expanded[cost][c] == stamp) {
                    continue;
                }
                expanded[cost][c] = stamp;
                work.scans += units.classMembers[c].length;
                for (int y : units.classMembers[c]) {
                    relax(queue, x, y, c, cost);
                }
            }
        }
        return best;
    }

    /**
     * The shifts of {@link #shiftFreeOnce} from the {@code count} members in {@link #sources}, all
     * at {@code level}: paths over free units of weight w to members v with
     * {@code load(v) + w < level}, as many as share no member, found as Hopcroft and Karp find
     * augmenting paths. A breadth-first search from all of them at once gives each member its
     * layer (links from the level); then a depth-first search from each of them follows only links
     * from one layer to the next, visiting each member once in all: a member it leaves without a
     * path cannot reach one later. A path changes the load of its two ends only and the holdings
     * of its own members only, so each is a shift that one search per path would have made, for
     * the price of two searches: in a fresh group a level has a hundred members, and a search
     * visits most of the group.
     *
     * @return how many paths were shifted
     */
    private int shiftFreePaths(int count, long level, long w) {
        stamp++;
        work.searches += 2;
        int tail = 0;
        for (int i = 0; i < count; i++) {
            seen[sources[i]] = stamp;
            dist[sources[i]] = 0;
            layered[tail++] = sources[i];
        }
        for (int head = 0; head < tail; head++) {
            int x = layered[head];
            work.scans += 1 + classesOf[x].length;
            for (int i = 0; i < classesOf[x].length; i++) {
                int c = classesOf[x][i];
                Holdings held = holdings[x][i];
                if (held == null || expanded[0][c] == stamp || !held.hasFree(w)) {
                    continue;
                }
                // Members of c are at most one layer below the first member that gives from c.
                expanded[0][c] = stamp;
                classLayer[c] = dist[x];
                classCursor[c] = 0;
                work.scans += units.classMembers[c].length;
                for (int y : units.classMembers[c]) {
                    if (seen[y] != stamp) {
                        seen[y] = stamp;
                        dist[y] = dist[x] + 1;
                        layered[tail++] = y;
                    }
                }
            }
        }
        int shifted = 0;
        for (int i = 0; i < count; i++) {
            int end = layeredPathFrom(sources[i], level, w);
            if (end >= 0) {
                shiftPath(end, w, true);
                shifted++;
            }
        }
        return shifted;
    }

    /**
     * Depth-first, from layer to layer, through members no earlier call of this search visited.
     *
     * @return the member v with {@code load(v) + w < level} reached (the path in {@link #parent}
     *         and {@link #via}), or -1
     */
    private int layeredPathFrom(int source, long level, long w) {
        int depth = 0;
        path[0] = source;
        nextClass[0] = 0;
        finished[source] = stamp;
        parent[source] = -1;
        while (depth >= 0) {
            int x = path[depth];
            int next = -1;
            while (next < 0 && nextClass[depth] < classesOf[x].length) {
                int i = nextClass[depth];
                int c = classesOf[x][i];
                Holdings held = holdings[x][i];
                if (expanded[0][c] == stamp && classLayer[c] == dist[x] && held != null && held.hasFree(w)) {
                    int[] members = units.classMembers[c];
                    while (next < 0 && classCursor[c] < members.length) {
                        int y = members[classCursor[c]++];
                        work.scans++;
                        if (dist[y] == dist[x] + 1 && finished[y] != stamp) {
                            next = y;
                            via[y] = c;
                        }
                    }
                }
                if (next < 0) {
                    nextClass[depth]++;
                }
            }
            if (next < 0) {
                depth--; // x reaches no member that can take w: never visited again in this search
                continue;
            }
            finished[next] = stamp;
            parent[next] = x;
            if (load[next] + w < level) {
                return next;
            }
            path[++depth] = next;
            nextClass[depth] = 0;
        }
        return -1;
    }

    /**
     * Cheapest path from a member u with {@code load(u) - w > level} through givers of a unit of
     * weight w to {@code source} (at the bottom level), searched backwards from the source.
     *
     * @return u, or -1
     */
    private int searchUp(int source, long level, long w) {
        ArrayDeque<Integer> queue = reset();
        start(queue, source);
        int best = -1;
        // Nobody is heavier than the heaviest placeable member: once it is the best, the search is done.
        long heaviest = load[byLoadDescending.first()];
        while (!queue.isEmpty() && (best < 0 || load[best] < heaviest)) {
            int y = queue.poll();
            if (finished[y] == stamp) {
                continue;
            }
            if (best >= 0 && dist[y] > dist[best]) {
                break;
            }
            finished[y] = stamp;
            if (y != source && load[y] - w > level && (best < 0 || load[y] > load[best])) {
                best = y; // of the cheapest, the heaviest: it has the load to spare most
            }
            work.scans++;
            for (int c : classesOf[y]) {
                if (expanded[0][c] == stamp) {
                    continue;
                }
                expanded[0][c] = stamp;
                work.scans += units.classMembers[c].length;
                for (int x : units.classMembers[c]) {
                    Holdings held = holdings[x][Arrays.binarySearch(classesOf[x], c)];
                    if (held != null && held.has(w)) {
                        relax(queue, y, x, c, held.hasFree(w) ? 0 : 1);
                    }
                }
            }
        }
        return best;
    }

    /**
     * Starts a search: a new stamp makes every member unseen and every class unexpanded at once,
     * so a search costs what it visits, not a pass over all members and classes.
     */
    private ArrayDeque<Integer> reset() {
        stamp++;
        work.searches++;
        return new ArrayDeque<>();
    }

    private void start(ArrayDeque<Integer> queue, int source) {
        seen[source] = stamp;
        dist[source] = 0;
        parent[source] = -1;
        queue.add(source);
    }

    private void relax(ArrayDeque<Integer> queue, int from, int to, int c, int cost) {
        int d = dist[from] + cost;
        if (finished[to] == stamp || (seen[to] == stamp && d >= dist[to])) {
            return;
        }
        seen[to] = stamp;
        dist[to] = d;
        parent[to] = from;
        via[to] = c;
        if (cost == 0) {
            queue.addFirst(to);
        } else {
            queue.addLast(to);
        }
    }

    private void move(int unit, int from, int to) {
        int c = units.classOf(unit);
        long w = units.weight[unit];
        countFree(unit, -1);
        holding(from, c).remove(unit, w, isKept(unit));
        owner[unit] = to;
        holding(to, c).add(unit, w, isKept(unit));
        countFree(unit, 1);
        byLoadDescending.remove(from);
        byLoadDescending.remove(to);
        work.heapOps += 4;
        load[from] -= w;
        load[to] += w;
        byLoadDescending.add(from);
        byLoadDescending.add(to);
        journal.add(new int[] {unit, from});
    }

    private void undo() {
        for (int i = journal.size() - 1; i >= 0; i--) {
            int[] step = journal.get(i);
            move(step[0], owner[step[0]], step[1]);
        }
        journal.clear();
    }

    /** Counts a unit of the holdings on its owner, if it is free to move ({@code delta} 1), or no longer ({@code -1}). */
    private void countFree(int unit, int delta) {
        if (!isKept(unit)) {
            freeHeld[owner[unit]] += delta;
            freeTotal += delta;
        }
    }

    /** On the member that held it before: moving it costs its partitions. */
    private boolean isKept(int unit) {
        return owner[unit] == prior[unit];
    }

    private Holdings holding(int member, int c) {
        int i = Arrays.binarySearch(classesOf[member], c);
        if (holdings[member][i] == null) {
            holdings[member][i] = new Holdings();
        }
        return holdings[member][i];
    }

    private void logIfSpent(String step) {
        if (work.exhausted) {
            log.debug("Stopped {} when the work budget was spent ({}): the assignment is valid, its spread may be "
                    + "wider than the least possible", step, work);
        }
    }
}
