package io.kscale.assignor.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Step 3 of {@link BalancedTarget} for a pool whose tasks all weigh the same (every Kafka
 * Streams task; key-preserving units of equal size): decides first how many tasks each client
 * ends with, then which tasks move, so that the choice does not depend on the order of moves.
 *
 * <p><b>How many.</b> Whole units move, one at a time, from the most loaded client per capacity
 * to the one least loaded after receiving, while that lowers the larger of the two (lowest id
 * on ties). Only counts change here, no task is picked yet.
 *
 * <p><b>Which.</b> Clients that hold more than their count give, clients that hold fewer take.
 * Every pair of a giver's task and a taker is ranked once: caught up on the taker first, then
 * smallest lag on the taker (a warmup in progress), then a stateless task placed in step 2
 * (free to move), then the task whose group the giver holds most of relative to the taker, then
 * the lowest task and taker ids. Pairs are taken in that order while both sides still need it.
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
 * 3-4-3, a0 is caught up on C and moves at once, and the next warmup starts.
 */
final class UnitBalancer {

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
                // a giver needs a pool task to give: its load above the base load
                if (want[c] - unit >= pool.load[c] - pool.held(c).size() * unit
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

    /** The most moves of stateful tasks to caught-up takers the counts allow ({@link ReadyMoves}). */
    private void moveToCaughtUpTakers() {
        List<Integer> tasks = new ArrayList<>();
        List<Integer> givers = new ArrayList<>();
        List<int[]> takers = new ArrayList<>();
        for (int giver : clients) {
            for (int t : surplus(giver) > 0 ? pool.held(giver) : Collections.<Integer>emptySet()) {
                int[] caughtUp = Arrays.stream(model.clientsWithLag(t))
                        .filter(c -> c != giver && surplus(c) < 0 && model.eligible(c) && pool.caught.isCaughtUp(t, c)).toArray();
                if (caughtUp.length > 0) {
                    tasks.add(t);
                    givers.add(giver);
                    takers.add(caughtUp);
                }
            }
        }
        long[] give = new long[model.clientCount()];
        long[] take = new long[model.clientCount()];
        for (int c : clients) {
            give[c] = Math.max(0, surplus(c)) / unit;
            take[c] = Math.max(0, -surplus(c)) / unit;
        }
        int[] takerOf = ReadyMoves.plan(givers.stream().mapToInt(Integer::intValue).toArray(),
                takers.toArray(new int[0][]), give, take);
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
     * Ranks every pair of a task on a giver and a taker once, then takes pairs in that order while
     * the giver holds too many and the taker too few. One pass fills every taker: while a taker
     * is short and a giver over, the pair of that taker with one of the giver's remaining tasks
     * is still ahead.
     */
    private void moveTasks() {
        moveToCaughtUpTakers();
        List<Pair> pairs = new ArrayList<>();
        for (int giver : clients) {
            if (surplus(giver) <= 0) {
                continue;
            }
            for (int t : pool.held(giver)) {
                for (int taker : clients) {
                    if (surplus(taker) < 0) {
                        pairs.add(new Pair(t, giver, taker));
                    }
                }
            }
        }
        pairs.sort(Pair::compareTo);
        for (Pair pair : pairs) {
            if (pool.owner[pair.task] == pair.giver && surplus(pair.giver) > 0 && surplus(pair.taker) < 0) {
                pool.move(pair.task, pair.taker);
            }
        }
    }

    /** A candidate move, with its ranking keys computed once from the state before any move. */
    private final class Pair implements Comparable<Pair> {
        final int task;
        final int giver;
        final int taker;
        private final boolean caughtUp;
        private final long lag;
        private final boolean free;
        private final long groupSurplus;
        private final long capacities;

        Pair(int task, int giver, int taker) {
            this.task = task;
            this.giver = giver;
            this.taker = taker;
            this.caughtUp = pool.caught.isCaughtUp(task, taker);
            this.lag = pool.caught.lag(task, taker);
            this.free = !model.stateful[task] && model.priorOwner[task] != giver;
            int g = model.group[task];
            this.groupSurplus = (long) pool.groupCount(g, giver) * model.capacity[taker]
                    - (long) pool.groupCount(g, taker) * model.capacity[giver];
            this.capacities = (long) model.capacity[giver] * model.capacity[taker];
        }

        @Override
        public int compareTo(Pair other) {
            int order = Boolean.compare(other.caughtUp, caughtUp);
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
