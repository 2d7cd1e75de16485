package io.kscale.assignor.internals.placement;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The balanced target of a pool of tasks, computed from prior ownership so that only what
 * balance needs moves (Kafka Streams' HighAvailabilityTaskAssignor computes its target without
 * looking at prior owners, then undoes the needless moves it finds).
 *
 * <p>Three steps:
 * <ol>
 *   <li>Every task stays with its prior owner if that owner has capacity and is preferred
 *       ({@link CaughtUpClients}).</li>
 *   <li>The other tasks (new, or their owner left or lost its state), heaviest first, go to the
 *       preferred client whose load per capacity stays lowest; ties go to the smallest lag, then
 *       the client holding the fewest tasks of the task's group, then the lowest id. Preferred
 *       first because replay time outranks balance: a stateful task that step 3 moves away will
 *       wait on this client until its target has warmed up, exactly as a prior owner's. An orphan
 *       (nobody caught up on it) may instead go where it is caught up sooner, and stays there for
 *       this placement ({@link OrphanRestores}).</li>
 *   <li>Balance: tasks move from clients above their share to clients below it until no single
 *       move lowers the larger load per capacity of its pair. When all the pool's tasks weigh
 *       the same, {@link UnitBalancer} first counts how many tasks each client ends with, then
 *       picks the tasks, those with state at the destination first, so the choice does not drift
 *       between rounds; otherwise {@link GreedyBalancer} moves one task at a time.</li>
 * </ol>
 * Then {@link GroupSpread} swaps equal-weight stateless tasks to spread co-location groups.
 *
 * <p>Worked example, 12 tasks of weight 1, clients A, B, C with 4 each, D joins with nothing.
 * Step 1 keeps all 12. Step 3 counts 3-3-3-3: A, B and C give one each, D takes three. If D
 * reports a lag on B's task b3 (a warmup from an earlier round), b3 is B's; A and C give the
 * task of the group they hold most of, else their lowest id. 3 moves: what balance needs and
 * no more. Fed back as prior ownership, the result moves nothing.
 */
public final class BalancedTarget {

    private final Pool pool;
    private final Model model;
    private final CaughtUpClients caught;
    private final int[] clients;

    private BalancedTarget(Pool pool) {
        this.pool = pool;
        this.model = pool.model;
        this.caught = pool.caught;
        this.clients = pool.eligibleClients();
    }

    /**
     * Computes the target of the given tasks on top of a base load.
     *
     * @return the pool, whose {@link Pool#owner} is the target and {@link Pool#start} the
     *         assignment after steps 1 and 2
     */
    static Pool compute(Model model, CaughtUpClients caught, int[] tasks, long[] baseLoad) {
        Pool pool = new Pool(model, caught, tasks, baseLoad);
        BalancedTarget target = new BalancedTarget(pool);
        target.keepPriorOwners();
        target.placeUnowned();
        long unit = uniformWeight(model, tasks);
        if (unit > 0) {
            UnitBalancer.balance(pool, unit);
        } else {
            GreedyBalancer.balance(pool);
        }
        new GroupSpread(pool).spread();
        return pool;
    }

    /** @return the weight all the tasks share, or 0 if they differ (or there are none) */
    private static long uniformWeight(Model model, int[] tasks) {
        if (tasks.length == 0) {
            return 0;
        }
        long weight = model.weight[tasks[0]];
        for (int t : tasks) {
            if (model.weight[t] != weight) {
                return 0;
            }
        }
        return weight;
    }

    private void keepPriorOwners() {
        for (int t : pool.tasks) {
            int owner = model.priorOwner[t];
            if (owner >= 0 && caught.isPreferred(t, owner)) {
                pool.place(t, owner);
            }
        }
    }

    private void placeUnowned() {
        List<Integer> unowned = new ArrayList<>();
        for (int t : pool.tasks) {
            if (pool.owner[t] < 0) {
                unowned.add(t);
            }
        }
        OrphanRestores orphans = new OrphanRestores(model, caught);
        // Orphans with the most to restore first: the makespan heuristic of OrphanRestores.
        unowned.sort(Comparator.<Integer>comparingLong(t -> -model.weight[t])
                .thenComparingLong(t -> orphans.isOrphan(t) ? -orphans.rest(t) : 0)
                .thenComparingInt(t -> model.group[t]).thenComparingInt(t -> t));
        for (int t : unowned) {
            int[] preferred = caught.preferred(t);
            int[] candidates = preferred == null ? clients : preferred;
            int best = -1;
            for (int c : candidates) {
                if (best < 0 || compareHomes(t, c, best) < 0) {
                    best = c;
                }
            }
            int sooner = orphans.isOrphan(t) ? orphans.sooner(t, best, candidates) : -1;
            pool.place(t, sooner >= 0 ? sooner : best);
            if (sooner >= 0) {
                pool.pin(t);
            }
            if (orphans.isOrphan(t)) {
                orphans.queue(t, pool.owner[t]);
            }
        }
        pool.markStart();
    }

    private int compareHomes(int t, int c1, int c2) {
        long w = model.weight[t];
        int order = Ratios.compare(pool.load[c1] + w, model.capacity[c1], pool.load[c2] + w, model.capacity[c2]);
        if (order == 0) {
            order = Boolean.compare(caught.isCaughtUp(t, c2), caught.isCaughtUp(t, c1));
        }
        if (order == 0) {
            order = Long.compare(caught.lag(t, c1), caught.lag(t, c2));
        }
        if (order == 0) {
            int g = model.group[t];
            order = Ratios.compare(pool.groupCount(g, c1), model.capacity[c1], pool.groupCount(g, c2), model.capacity[c2]);
        }
        return order != 0 ? order : Integer.compare(c1, c2);
    }
}
