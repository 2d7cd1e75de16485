package io.kscale.assignor.internals.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Step 3 of {@link BalancedTarget} for a pool of tasks with unequal weights (pinned tasks stay, see
 * {@link Pool#pin}): while some client
 * could give a task to another and so lower the larger of the two loads per capacity
 * ({@link Pool#improves}), the most loaded clients give one to the clients that end up least
 * loaded. Which task: a stateless one placed in step 2 (free to move) first, then one the
 * receiver is caught up on, then one the giver is caught up on (not an orphan it is restoring), then
 * the smallest lag on the receiver (a warmup in progress is picked
 * again), then the move that leaves the pair most even, then the task whose group is most
 * over-represented on the giver, then the lowest ids.
 *
 * <p>Receivers: the clients least loaded after receiving the task, and, for a stateful task,
 * every client caught up on it (a standby, or a warmup that has caught up) to which the move is
 * improving too. Without the second kind, a caught-up client won only on a tie of loads, and a
 * livelock followed (a fresh-seed property run found it): a plan moves a heavy task h to Q and a
 * light task s from P to Q; s warms up and moves, then h warms up on Q; with s on Q, P is now
 * the least loaded after receiving h, the re-plan sends h to P and s back, and h's warmup on Q
 * is thrown away, with period 4, forever. Now the caught-up move of h ranks first
 * among the moves of its level while it still evens its pair, so the copy is used.
 *
 * <p>Each move lowers the largest load of its pair, so the descending list of loads falls
 * lexicographically and the loop ends, in a state where no single move improves a pair. The
 * path depends on the order of moves, so after some moves completed the next round may pick
 * other tasks; {@link UnitBalancer} avoids that when all weights are equal.
 *
 * <p>Example: A holds tasks of weight 4, 1 and 1, B nothing. A (6) gives the 4 to B? B would hold
 * 4 &lt; 6: improving, and the pair's larger load becomes 4 (giving a 1 leaves 5), so yes: A 2, B 4.
 * Then no move improves: A could take nothing from B (2 + 4 = 6 &gt; 4).
 */
public final class GreedyBalancer {

    private final Pool pool;
    private final Model model;
    private final CaughtUpClients caught;
    private final int[] clients;

    private GreedyBalancer(Pool pool) {
        this.pool = pool;
        this.model = pool.model;
        this.caught = pool.caught;
        this.clients = pool.eligibleClients();
    }

    static void balance(Pool pool) {
        new GreedyBalancer(pool).run();
    }

    private void run() {
        for (Move move = bestMove(); move != null; move = bestMove()) {
            pool.move(move.task, move.to);
        }
    }

    /**
     * @return the best improving move from the most loaded clients that have one, to the clients
     *         least loaded after it or to a client caught up on the task; null if balanced
     */
    private Move bestMove() {
        Integer[] byLoad = Arrays.stream(clients).boxed().toArray(Integer[]::new);
        Arrays.sort(byLoad, (c1, c2) -> {
            int order = pool.compareLoad(c2, c1);
            return order != 0 ? order : Integer.compare(c1, c2);
        });
        Receivers receivers = new Receivers();
        for (int level = 0; level < byLoad.length; ) {
            int end = level + 1;
            while (end < byLoad.length && pool.compareLoad(byLoad[end], byLoad[level]) == 0) {
                end++;
            }
            Move best = null;
            for (int i = level; i < end; i++) {
                best = bestReadyMoveFrom(byLoad[i], best);
                best = bestMoveFrom(byLoad[i], receivers, best);
            }
            if (best != null) {
                return best;
            }
            level = end;
        }
        return null;
    }

    /**
     * The best of {@code best} and the improving moves of the giver's stateful tasks to any client
     * caught up on them, not only the least loaded: a warmup that has caught up is used while its
     * move still evens the load (see the class comment).
     */
    private Move bestReadyMoveFrom(int giver, Move best) {
        for (int t : pool.held(giver)) {
            int[] caughtUp = caught.preferred(t);
            if (pool.isPinned(t) || !model.stateful[t] || caughtUp == null || !caught.isCaughtUp(t, caughtUp[0])) {
                continue;
            }
            for (int receiver : caughtUp) {
                if (receiver != giver && pool.improves(giver, receiver, model.weight[t])) {
                    Move move = new Move(t, giver, receiver);
                    if (best == null || compare(move, best) < 0) {
                        best = move;
                    }
                }
            }
        }
        return best;
    }

    private Move bestMoveFrom(int giver, Receivers receivers, Move best) {
        for (int t : pool.held(giver)) {
            if (pool.isPinned(t)) {
                continue;
            }
            long w = model.weight[t];
            for (int receiver : receivers.leastLoadedAfter(w, giver)) {
                if (pool.improves(giver, receiver, w)) {
                    Move move = new Move(t, giver, receiver);
                    if (best == null || compare(move, best) < 0) {
                        best = move;
                    }
                }
            }
        }
        return best;
    }

    private int compare(Move x, Move y) {
        int order = Boolean.compare(y.isFree(), x.isFree());
        if (order == 0) {
            order = Boolean.compare(caught.isCaughtUp(y.task, y.to), caught.isCaughtUp(x.task, x.to));
        }
        if (order == 0) {
            order = Boolean.compare(caught.isCaughtUp(y.task, y.from), caught.isCaughtUp(x.task, x.from));
        }
        if (order == 0) {
            order = Long.compare(caught.lag(x.task, x.to), caught.lag(y.task, y.to));
        }
        if (order == 0) {
            order = x.compareLargestLoadAfter(y);
        }
        if (order == 0) {
            order = y.compareGroupSurplus(x);
        }
        if (order == 0) {
            order = Integer.compare(x.task, y.task);
        }
        return order != 0 ? order : Integer.compare(x.to, y.to);
    }

    /** A candidate move of one task from a giver to a receiver. */
    private final class Move {
        final int task;
        final int from;
        final int to;

        Move(int task, int from, int to) {
            this.task = task;
            this.from = from;
            this.to = to;
        }

        /**
         * A stateless task placed on the giver in this pass: it never ran there, moving it costs
         * nothing. A stateful task placed in step 2 sits on a caught-up client that will keep
         * running it if the move has to wait, so it is no freer than a prior owner's task (and
         * next round it is one: the target does not drift between rounds).
         */
        boolean isFree() {
            return !model.stateful[task] && model.priorOwner[task] != from;
        }

        /** Compares the larger load per capacity of the pair after the move. */
        int compareLargestLoadAfter(Move other) {
            long[] mine = largestAfter();
            long[] theirs = other.largestAfter();
            return Ratios.compare(mine[0], mine[1], theirs[0], theirs[1]);
        }

        private long[] largestAfter() {
            long w = model.weight[task];
            long giver = pool.load[from] - w;
            long receiver = pool.load[to] + w;
            return Ratios.compare(giver, model.capacity[from], receiver, model.capacity[to]) >= 0
                    ? new long[] {giver, model.capacity[from]} : new long[] {receiver, model.capacity[to]};
        }

        /** Compares how much more of the task's group the giver holds than the receiver, per capacity. */
        int compareGroupSurplus(Move other) {
            long[] mine = groupSurplus();
            long[] theirs = other.groupSurplus();
            return Ratios.compare(mine[0], mine[1], theirs[0], theirs[1]);
        }

        private long[] groupSurplus() {
            int g = model.group[task];
            long capFrom = model.capacity[from];
            long capTo = model.capacity[to];
            return new long[] {pool.groupCount(g, from) * capTo - pool.groupCount(g, to) * capFrom, capFrom * capTo};
        }
    }

    /** The clients sorted by load per capacity after receiving a given weight, cached per weight for one search. */
    private final class Receivers {
        private final Map<Long, Integer[]> byWeight = new HashMap<>();

        /** @return the clients other than the giver whose load per capacity after receiving {@code w} is lowest (ties) */
        List<Integer> leastLoadedAfter(long w, int giver) {
            Integer[] sorted = byWeight.computeIfAbsent(w, this::sortedAfter);
            List<Integer> least = new ArrayList<>(2);
            for (int c : sorted) {
                if (c == giver) {
                    continue;
                }
                if (!least.isEmpty() && Ratios.compare(pool.load[c] + w, model.capacity[c],
                        pool.load[least.get(0)] + w, model.capacity[least.get(0)]) != 0) {
                    break;
                }
                least.add(c);
            }
            return least;
        }

        private Integer[] sortedAfter(long w) {
            Integer[] sorted = Arrays.stream(clients).boxed().toArray(Integer[]::new);
            Arrays.sort(sorted, (c1, c2) -> {
                int order = Ratios.compare(pool.load[c1] + w, model.capacity[c1], pool.load[c2] + w, model.capacity[c2]);
                return order != 0 ? order : Integer.compare(c1, c2);
            });
            return sorted;
        }
    }
}
