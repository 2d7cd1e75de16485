package io.kscale.assignor.internals.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Places tasks on clients: which client runs each task as active, which keep standby copies, and
 * which warm up a copy before a task moves to them (KIP-441, "Smooth Scaling Out for Kafka
 * Streams"). Pure: no Kafka types, no I/O, no clock, no randomness; the same request always gives
 * the same placement. Thread-safe and stateless: one instance may serve every rebalance.
 *
 * <p>The cost function, in this order:
 * <ol>
 *   <li><b>replay time</b>: a stateful task is never active on a client that would have to restore
 *       more than {@code acceptableRecoveryLag} while a caught-up client exists; the caught-up
 *       prior owner keeps it while the new owner warms up a copy. A task nobody is caught up on
 *       (an orphan: its owner crashed or left with its state, and no standby had it) must restore
 *       wherever it runs: it goes where it is caught up soonest, counting the orphans each client
 *       already restores, when that cuts the total time to caught-up by more than the move it
 *       costs ({@link OrphanRestores}); and a client restoring an active task warms nothing up
 *       until it has caught up;</li>
 *   <li><b>even load</b>: weight per unit of capacity, counting each client's base load from
 *       tasks outside the request ({@link ClientDescription#baseLoad()});</li>
 *   <li><b>spread</b> of each co-location group across clients;</li>
 *   <li><b>fewest movements</b>: ties keep prior owners, then break by client and task id.</li>
 * </ol>
 *
 * <p>The steps, each in a package-private class with its own rules:
 * {@link CaughtUpClients} finds who may run each stateful task now; {@link BalancedTarget}
 * computes the balanced target of the stateful tasks starting from prior ownership, so only what
 * balance needs moves (placing orphans by {@link OrphanRestores}), and {@link GroupSpread} spreads
 * groups within it; {@link ActivePlanner}
 * sends each task to its target if that client is caught up (so a warmup is promoted as soon as
 * it has caught up) and keeps it on a caught-up client otherwise; the stateless tasks are then
 * balanced on top of that load, freely; {@link StandbyPlanner} adds standbys;
 * {@link WarmupPlanner} spends the warmup budget on the smallest lags first and picks the
 * follow-up delay from the remaining lags.
 *
 * <p>Worked example (acceptable lag 10,000, 2 warmups, no standbys). Clients A, B, C own
 * stateful tasks a0..a3, b0..b3, c0..c3 (weight 1); D joins with no state.
 * <pre>
 *   round 1: target moves a0, b0, c0 to D (one from each, 3-3-3-3). D is not caught up, so
 *            A, B, C keep them; D warms up a0 and b0 (budget 2); c0 is deferred.
 *            Outcome CONVERGING, follow-up after the predicted catch-up time.
 *   round 2: D reports lags 0 on a0, b0: both move to D at once. c0 is still pending: D warms
 *            it up with the freed budget.
 *   round 3: D reports lag 0 on c0: it moves. Loads 3-3-3-3, outcome COMPLETE, no follow-up.
 *   round 4: the same input gives the same placement: nothing moves.
 * </pre>
 * Kafka Streams' HighAvailabilityTaskAssignor would compute a target from scratch (moving tasks
 * between A, B and C too), and promote a0 and b0 only at the next probing rebalance, 10 minutes
 * later by default.
 *
 * <p>Convergence bound. Feed each placement back as the next round's prior state, with every
 * copy (warmup or standby) caught up one round after it was placed and nothing else changing.
 * If the stateful tasks all weigh the same, {@code m} moves are pending after the first
 * placement and {@code maxWarmups = w >= 1}, then within {@code ceil(m / w) + 1} placements the
 * target is reached (balanced, outcome {@link PlacementOutcome#COMPLETE}) and placement
 * {@code ceil(m / w) + 2} returns its own input. Why: the counts per client computed from a
 * state where some target moves have completed come out the same ({@link UnitBalancer}); the
 * warmups placed in a round have all caught up in the next, and {@link ReadyMoves} makes at
 * least as many moves to caught-up clients as there are such warmups; so every round completes
 * {@code min(w, pending)} moves and no move is added. With unequal weights the greedy
 * {@link GreedyBalancer} may re-plan after moves complete: it converges, but may take a few
 * more rounds. One more round, too, when the first placement runs an orphan on a client that is
 * the target of a move: its warmup waits until the orphan has caught up. The property tests check
 * both on random requests, the first as stated.
 *
 * @see <a href="https://cwiki.apache.org/confluence/display/KAFKA/KIP-441%3A+Smooth+Scaling+Out+for+Kafka+Streams">KIP-441</a>
 */
public final class PlacementEngine {

    /** Creates an engine; it holds no state. */
    public PlacementEngine() {
    }

    /**
     * Places the tasks of a request.
     *
     * @param request a checked request
     * @return the placement; never null; an outcome rather than an exception for every valid request
     */
    public Placement place(PlacementRequest request) {
        Model model = Model.of(request);
        if (IntStream.range(0, model.clientCount()).noneMatch(model::eligible)) {
            return nothingPlaced(model);
        }
        CaughtUpClients caught = CaughtUpClients.of(model);
        Pool statefulTarget = BalancedTarget.compute(model, caught, tasks(model, true), model.baseLoad);
        ActivePlanner actives = ActivePlanner.plan(model, caught, statefulTarget);
        long[] statelessBase = model.baseLoad.clone();
        for (int c = 0; c < statelessBase.length; c++) {
            statelessBase[c] += actives.load[c];
        }
        Pool stateless = BalancedTarget.compute(model, caught, tasks(model, false), statelessBase);
        StandbyPlanner standbys = StandbyPlanner.plan(model, caught, actives);
        WarmupPlanner warmups = WarmupPlanner.plan(model, caught, actives, standbys);
        return assemble(model, actives, stateless, standbys, warmups);
    }

    private static int[] tasks(Model model, boolean stateful) {
        return IntStream.range(0, model.taskCount()).filter(t -> model.stateful[t] == stateful).toArray();
    }

    private static Placement assemble(Model model, ActivePlanner actives, Pool stateless, StandbyPlanner standbys,
                                      WarmupPlanner warmups) {
        List<List<String>> active = lists(model);
        List<List<String>> standby = lists(model);
        List<List<String>> warmup = lists(model);
        for (int t = 0; t < model.taskCount(); t++) {
            int client = model.stateful[t] ? actives.active[t] : stateless.owner[t];
            active.get(client).add(model.taskIds[t]);
            for (int c : standbys.standbys[t]) {
                standby.get(c).add(model.taskIds[t]);
            }
        }
        for (int[] copy : warmups.warmups) {
            warmup.get(copy[1]).add(model.taskIds[copy[0]]);
        }
        List<ClientPlacement> clients = new ArrayList<>(model.clientCount());
        for (int c = 0; c < model.clientCount(); c++) {
            clients.add(new ClientPlacement(model.clientIds[c], active.get(c), standby.get(c), warmup.get(c)));
        }
        int pending = actives.pending.size();
        PlacementOutcome outcome = pending == 0 ? PlacementOutcome.COMPLETE : PlacementOutcome.CONVERGING;
        return new Placement(clients, outcome, warmups.followUp, List.of(), pending, warmups.deferred, standbys.missing);
    }

    private static Placement nothingPlaced(Model model) {
        List<ClientPlacement> clients = new ArrayList<>(model.clientCount());
        for (String id : model.clientIds) {
            clients.add(new ClientPlacement(id, List.of(), List.of(), List.of()));
        }
        PlacementOutcome outcome = model.taskCount() == 0 ? PlacementOutcome.COMPLETE : PlacementOutcome.NO_CAPACITY;
        return new Placement(clients, outcome, FollowUp.none(), Arrays.asList(model.taskIds), 0, 0, 0);
    }

    private static List<List<String>> lists(Model model) {
        List<List<String>> lists = new ArrayList<>(model.clientCount());
        for (int c = 0; c < model.clientCount(); c++) {
            lists.add(new ArrayList<>());
        }
        return lists;
    }
}
