package io.kscale.assignor.internals.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Step 3 of {@link BalancedTarget} for a pool whose tasks all weigh the same (every Kafka
 * Streams task; key-preserving units of equal size): decides first how many tasks each client
 * ends with, then which tasks move, so that the choice does not depend on the order of moves.
 *
 * <p><b>How many.</b> Whole units move, one at a time, from the most loaded client per capacity
 * to the one least loaded after receiving, while that lowers the larger of the two (lowest id
 * on ties). Only counts change here, no task is picked yet.
 *
 * <p><b>Which.</b> Clients that hold more than their count give, clients that hold fewer take;
 * tasks pinned to their client for this round ({@link Pool#pin}) are not given. Every pair of a
 * giver's task and a taker is ranked: caught up on the taker first, then caught up on the giver
 * (a task the giver is still restoring, an orphan, moves last: its restore would be thrown away),
 * then smallest lag on the taker (a warmup in progress; less to replay), then a stateless task placed
 * in step 2 (free to move), then the task whose group the giver holds most of relative to the
 * taker, counted as the moves are made, then the lowest task and taker ids. The best pair is taken
 * while both sides still need it, and the group counts updated, so each sub-topology ends spread
 * whenever the lags do not decide (a newcomer with no state has the same lag, or none, on every
 * task): a multi-round scale-out keeps, each round, the part of the plan already warmed up, and
 * the rest is re-planned around it to the same spread.
 *
 * <p>Why counts first: a greedy that picks task and taker together (as {@link GreedyBalancer}
 * must for unequal weights) can take a different path next round once some moves have
 * completed, and abandon a warmup that was about to finish. Counts computed from a state where
 * some target moves have completed come out the same, and a pair whose warmup has caught up now
 * ranks ahead of every pair that still needs one ({@link ReadyMoves} takes as many of those as
 * the counts allow), so it is taken again.
 *
 * <p>Example: A and B hold 5 stateful tasks each, C none (capacity 1 each). Counts: A gives to
 * C (4-5-1), B gives (4-4-2), A gives (3-4-3); so A gives 2, B gives 1. With one warmup, A's
 * lowest task a0 warms up on C. Next round A and B still hold 5 each, the counts are again
 * 3-4-3, a0 is caught up on C and moves at once, and the next warmup starts. With groups: A
 * holds g0..g3 and h0..h3, B joins, counts 4-4: A gives g0 (ids), then h0 (A now holds more of h
 * than of g, relative to B), then g1, h1; each ends with two of each group.
 */
public final class UnitBalancer {

    private final Pool pool;
    private final Model model;
    private final int[] clients;
    private final long unit;
    private final long[] want;

    private UnitBalancer(Pool pool, long unit) {
        this.pool = pool;
        this.model = pool.model;
        this.clients = pool.eligibleClients();
        this.unit = unit;
        this.want = pool.load.clone();
    }

    /** Balances a pool whose tasks all weigh {@code unit}. */
    static void balance(Pool pool, long unit) {
        UnitBalancer balancer = new UnitBalancer(pool, unit);
        balancer.countUnits();
        balancer.moveTasks();
    }

    /** Computes {@link #want}, the load each client should end with. */
    private void countUnits() {
        while (true) {
            int giver = -1;
            int taker = -1;
            for (int c : clients) {
                // a giver needs a pool task to give: its load above the base load (pinned tasks are base load)
                if (want[c] - unit >= pool.load[c] - pool.movable(c) * unit
                        && (giver < 0 || Ratios.compare(want[c], model.capacity[c], want[giver], model.capacity[giver]) > 0)) {
                    giver = c;
                }
            }
            for (int c : clients) {
                if (c != giver && (taker < 0 || Ratios.compare(want[c] + unit, model.capacity[c],
                        want[taker] + unit, model.capacity[taker]) < 0)) {
                    taker = c;
                }
            }
            if (giver < 0 || taker < 0
                    || Ratios.compare(want[taker] + unit, model.capacity[taker], want[giver], model.capacity[giver]) >= 0) {
                return;
            }
            want[giver] -= unit;
            want[taker] += unit;
        }
    }

    /**
     * The most moves of stateful tasks to caught-up takers the counts allow ({@link ReadyMoves}),
     * starting from the spread-first choice: the ranked moves of {@link #takeBest} over the
     * caught-up pairs, made for real to count groups, then undone. Without that start the flow
     * picks any maximum, blind to groups: with standbys, a taker holding copies of one whole
     * sub-topology would take just that one.
     */
    private void moveToCaughtUpTakers() {
        List<Integer> tasks = new ArrayList<>();
        List<Integer> givers = new ArrayList<>();
        List<int[]> takers = new ArrayList<>();
        List<Pair> pairs = new ArrayList<>();
        for (int giver : clients) {
            for (int t : surplus(giver) > 0 ? pool.held(giver) : Collections.<Integer>emptySet()) {
                if (pool.isPinned(t)) {
                    continue;
                }
                int[] caughtUp = Arrays.stream(model.clientsWithLag(t))
                        .filter(c -> c != giver && surplus(c) < 0 && model.eligible(c) && pool.caught.isCaughtUp(t, c)).toArray();
                if (caughtUp.length > 0) {
                    tasks.add(t);
                    givers.add(giver);
                    takers.add(caughtUp);
                    for (int taker : caughtUp) {
                        pairs.add(new Pair(t, giver, taker));
                    }
                }
            }
        }
        long[] give = new long[model.clientCount()];
        long[] take = new long[model.clientCount()];
        for (int c : clients) {
            give[c] = Math.max(0, surplus(c)) / unit;
            take[c] = Math.max(0, -surplus(c)) / unit;
        }
        Map<Integer, Integer> taskTaker = new HashMap<>();
        for (Pair tried : takeBest(pairs)) {
            taskTaker.put(tried.task, tried.taker);
            pool.move(tried.task, tried.giver);
        }
        int[] start = tasks.stream().mapToInt(t -> taskTaker.getOrDefault(t, -1)).toArray();
        int[] takerOf = ReadyMoves.plan(givers.stream().mapToInt(Integer::intValue).toArray(),
                takers.toArray(new int[0][]), give, take, start);
        for (int i = 0; i < takerOf.length; i++) {
            if (takerOf[i] >= 0) {
                pool.move(tasks.get(i), takerOf[i]);
            }
        }
    }

    private long surplus(int client) {
        return pool.load[client] - want[client];
    }

    /**
     * Takes moves best first while the giver holds too many and the taker too few, by the ranking
     * of the class comment. The group term is live: each move lowers it for the pairs of the
     * moved task's group from that giver and to that taker, so the next move of that group comes
     * from the client that now holds most of it, and goes to the one that now holds least. Ranked
     * once from the state before any move, instead, every task of a group would tie and the lowest
     * ids would fill the first taker with one group (seen over multi-round scale-outs: each round
     * kept a different part of the first round's plan, and a sub-topology ended clustered).
     *
     * <p>A lazy queue keeps this near sorting time: a move only lowers group terms, never raises
     * one, so a queued key is an upper bound of the pair's current one. A pair whose key is still
     * current when it comes out of the queue is therefore the best; one whose key fell goes back in.
     */
    private void moveTasks() {
        moveToCaughtUpTakers();
        List<Pair> pairs = new ArrayList<>();
        for (int giver : clients) {
            if (surplus(giver) <= 0) {
                continue;
            }
            for (int t : pool.held(giver)) {
                if (pool.isPinned(t)) {
                    continue;
                }
                for (int taker : clients) {
                    if (surplus(taker) < 0) {
                        pairs.add(new Pair(t, giver, taker));
                    }
                }
            }
        }
        takeBest(pairs);
    }

    /**
     * Makes the moves of the given pairs, best first by the ranking, while the giver holds too
     * many and the taker too few, counting groups as it goes (see {@link #moveTasks}).
     *
     * @return the moves made, in order
     */
    private List<Pair> takeBest(List<Pair> pairs) {
        PriorityQueue<Pair> queue = new PriorityQueue<>(pairs);
        List<Pair> made = new ArrayList<>();
        while (!queue.isEmpty()) {
            Pair pair = queue.poll();
            if (pool.owner[pair.task] != pair.giver || surplus(pair.giver) <= 0 || surplus(pair.taker) >= 0) {
                continue;
            }
            if (pair.refreshGroupSurplus()) {
                queue.add(pair);
            } else {
                pool.move(pair.task, pair.taker);
                made.add(pair);
            }
        }
        return made;
    }

    /** A candidate move, with its ranking keys; only the group term changes as moves are made. */
    private final class Pair implements Comparable<Pair> {
        final int task;
        final int giver;
        final int taker;
        private final boolean caughtUp;
        private final boolean settled;
        private final long lag;
        private final boolean free;
        private long groupSurplus;
        private final long capacities;

        Pair(int task, int giver, int taker) {
            this.task = task;
            this.giver = giver;
            this.taker = taker;
            this.caughtUp = pool.caught.isCaughtUp(task, taker);
            this.settled = pool.caught.isCaughtUp(task, giver);
            this.lag = pool.caught.lag(task, taker);
            this.free = !model.stateful[task] && model.priorOwner[task] != giver;
            this.groupSurplus = currentGroupSurplus();
            this.capacities = (long) model.capacity[giver] * model.capacity[taker];
        }

        /**
         * How much more of the task's group the giver holds than the taker, per capacity (the
         * numerator over {@link #capacities}).
         */
        private long currentGroupSurplus() {
            int g = model.group[task];
            return (long) pool.groupCount(g, giver) * model.capacity[taker]
                    - (long) pool.groupCount(g, taker) * model.capacity[giver];
        }

        /** @return whether the group term fell since the pair was ranked (then it is updated) */
        boolean refreshGroupSurplus() {
            long now = currentGroupSurplus();
            if (now == groupSurplus) {
                return false;
            }
            groupSurplus = now;
            return true;
        }

        @Override
        public int compareTo(Pair other) {
            int order = Boolean.compare(other.caughtUp, caughtUp);
            if (order == 0) {
                order = Boolean.compare(other.settled, settled);
            }
            if (order == 0) {
                order = Long.compare(lag, other.lag);
            }
            if (order == 0) {
                order = Boolean.compare(other.free, free);
            }
            if (order == 0) {
                order = Ratios.compare(other.groupSurplus, other.capacities, groupSurplus, capacities);
            }
            if (order == 0) {
                order = Integer.compare(task, other.task);
            }
            return order != 0 ? order : Integer.compare(taker, other.taker);
        }
    }
}
