package io.kscale.assignor.internals.placement;

/**
 * The third rule of the cost function: spread each co-location group (a sub-topology, or
 * co-partitioned units) across clients, without touching the balance the rules before it reached.
 *
 * <p>{@link BalancedTarget} already spreads groups when it picks which task to place or move;
 * this pass repairs what it could not, typically a balanced prior assignment from another
 * assignor. It swaps two tasks of equal weight, so no load changes: task x of group g from the
 * client holding most of g (per capacity) with task y of another group h from the client holding
 * least of g. A swap is made only if it lowers {@code Φ = Σ over groups and clients of count² /
 * capacity}, which every swap strictly lowers, so the pass ends. For equal capacities the
 * condition reads {@code (g on A − g on B) + (h on B − h on A) > 2}.
 *
 * <p>Example: A holds g0, g1 and B holds h0, h1 (stateless, weight 1, capacity 1). For g: A has
 * 2, B has 0; h: B has 2, A has 0; 2 + 2 &gt; 2, so g0 and h0 swap: A holds g1, h0 and B holds
 * g0, h1.
 *
 * <p>Stateless tasks only: a swap of stateful tasks gains no balance and would cost two warmups
 * (see {@link #isSwappable}). Stateful groups are spread when tasks are first placed and by the
 * choice of which tasks balance moves, so they stay clustered only if a balanced prior
 * assignment from elsewhere clustered them.
 *
 * <p>Best effort: only the most and least holding clients of a group are paired, so some spread
 * a wider search would find is left (documented; balance and warmup rules come first anyway).
 */
public final class GroupSpread {

    private final Pool pool;
    private final Model model;
    private final int[] clients;

    GroupSpread(Pool pool) {
        this.pool = pool;
        this.model = pool.model;
        this.clients = pool.eligibleClients();
    }

    void spread() {
        // Only groups with two or more swappable tasks can be spread further: a task alone in its
        // group (every unit of a consumer group) never lowers Φ, so its scan over all clients is skipped.
        int[] swappable = new int[model.groupCount];
        for (int t : pool.tasks) {
            if (isSwappable(t)) {
                swappable[model.group[t]]++;
            }
        }
        boolean[] inPool = new boolean[model.groupCount];
        for (int g = 0; g < model.groupCount; g++) {
            inPool[g] = swappable[g] >= 2;
        }
        boolean swapped = clients.length > 1;
        while (swapped) {
            swapped = false;
            for (int g = 0; g < model.groupCount; g++) {
                while (inPool[g] && swapOnce(g)) {
                    swapped = true;
                }
            }
        }
    }

    private boolean swapOnce(int g) {
        int most = clients[0];
        int least = clients[0];
        for (int c : clients) {
            if (compareCount(g, c, most) > 0) {
                most = c;
            }
            if (compareCount(g, c, least) < 0) {
                least = c;
            }
        }
        if (Ratios.compare(pool.groupCount(g, most), model.capacity[most],
                pool.groupCount(g, least), model.capacity[least]) == 0) {
            return false;
        }
        int[] best = null;
        for (int x : pool.held(most)) {
            if (model.group[x] != g) {
                continue;
            }
            for (int y : pool.held(least)) {
                if (model.group[y] != g && model.weight[y] == model.weight[x] && isSwappable(x) && isSwappable(y)
                        && lowersPhi(x, most, y, least)
                        && (best == null || compareSwaps(x, y, best[0], best[1], most, least) < 0)) {
                    best = new int[] {x, y};
                }
            }
        }
        if (best == null) {
            return false;
        }
        pool.move(best[0], least);
        pool.move(best[1], most);
        return true;
    }

    /** Compares the count of group g per capacity on two clients, ties by id (higher id counts as larger). */
    private int compareCount(int g, int c1, int c2) {
        int order = Ratios.compare(pool.groupCount(g, c1), model.capacity[c1], pool.groupCount(g, c2), model.capacity[c2]);
        return order != 0 ? order : Integer.compare(c2, c1);
    }

    /**
     * Whether swapping x (group g, on a) with y (group h, on b) lowers Φ:
     * {@code (1 − g_a + h_a) · cap_b + (1 + g_b − h_b) · cap_a < 0} (Φ's change times
     * {@code cap_a · cap_b / 2}).
     */
    private boolean lowersPhi(int x, int a, int y, int b) {
        int g = model.group[x];
        int h = model.group[y];
        long change = (1L - pool.groupCount(g, a) + pool.groupCount(h, a)) * model.capacity[b]
                + (1L + pool.groupCount(g, b) - pool.groupCount(h, b)) * model.capacity[a];
        return change < 0;
    }

    /** Lower task ids first. */
    private int compareSwaps(int x1, int y1, int x2, int y2, int a, int b) {
        int order = Integer.compare(x1, x2);
        return order != 0 ? order : Integer.compare(y1, y2);
    }

    /**
     * Whether the task may be swapped for spread alone: only stateless tasks. A stateful swap
     * gains no balance, costs two restores, and when one half completes before the other, the
     * next round plans a different swap and the first warmup is wasted (seen in the convergence
     * properties); even swaps of caught-up copies move actives in a round where nothing else
     * changed. Stateful groups are spread by which tasks balance moves (see
     * {@link UnitBalancer}).
     */
    private boolean isSwappable(int task) {
        return !model.stateful[task];
    }
}
