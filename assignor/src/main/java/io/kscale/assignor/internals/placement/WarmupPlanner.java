package io.kscale.assignor.internals.placement;

import io.kscale.assignor.internals.placement.ActivePlanner.PendingMove;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Spends the warmup budget ({@code maxWarmups} copies at once, across all clients) on the pending
 * moves that bring balance soonest, and decides when to look again.
 *
 * <p>Pending moves whose target client already got a standby copy need no warmup. The others
 * are ranked by the target's lag (smallest first: it catches up first; unknown lags last), then
 * by weight (lightest first: it restores fastest), then task id; the first {@code maxWarmups}
 * get a warmup, the rest are deferred. A target that is restoring an active task (an orphan, see
 * {@link OrphanRestores}) gets no warmup yet: the warmup would share its restore rate with a task
 * that is down, and the move waits for no downtime anyway; the follow-up then also waits for that
 * active task to catch up, so the warmup starts when it has. Kafka Streams' HighAvailabilityTaskAssignor hands its
 * warmups out in task order instead, so a nearly caught-up copy may wait behind an empty one.
 *
 * <p>The follow-up rule is documented on {@link Placement#followUp()}. Example: acceptable lag
 * 10,000, 1,000 records/s, warmups with lags 40,000 and 130,000 on two clients that restore
 * nothing else: predicted catch-up in 30 s and 120 s, so the follow-up comes after 30 s (within
 * [minFollowUpDelay, probingInterval]); the copy that is ready then is promoted, and the freed
 * budget starts the next warmup. Were both warmups on one client, they would share its rate:
 * 60 s and 240 s.
 */
public final class WarmupPlanner {

    /** Pairs {task, client} of the warmups, in task order of the ranking. */
    final List<int[]> warmups = new ArrayList<>();
    int deferred;
    FollowUp followUp = FollowUp.none();

    private WarmupPlanner() {
    }

    static WarmupPlanner plan(Model model, CaughtUpClients caught, ActivePlanner actives, StandbyPlanner standbys) {
        WarmupPlanner plan = new WarmupPlanner();
        List<PendingMove> needWarmup = new ArrayList<>();
        List<int[]> catchingUp = new ArrayList<>();
        for (PendingMove move : actives.pending) {
            if (contains(standbys.standbys[move.task], move.target)) {
                catchingUp.add(new int[] {move.task, move.target});
            } else {
                needWarmup.add(move);
            }
        }
        needWarmup.sort(Comparator.<PendingMove>comparingLong(move -> caught.lag(move.task, move.target))
                .thenComparingLong(move -> model.weight[move.task]).thenComparingInt(move -> move.task));
        int budget = model.settings.maxWarmups();
        int[] restoringActive = needWarmup.isEmpty() ? null : restoringActives(model, caught, actives);
        boolean[] heldBack = new boolean[model.clientCount()];
        for (PendingMove move : needWarmup) {
            if (restoringActive[move.target] >= 0) {
                // A warmup would take restore rate from an active task that is down: wait for it
                // (held back, not deferred: the budget is not what it waits for).
                heldBack[move.target] = true;
            } else if (plan.warmups.size() < budget) {
                plan.warmups.add(new int[] {move.task, move.target});
            } else {
                plan.deferred++;
            }
        }
        catchingUp.addAll(plan.warmups);
        for (int client = 0; client < heldBack.length; client++) {
            if (heldBack[client]) {
                catchingUp.add(new int[] {restoringActive[client], client});
            }
        }
        // Counting every client's restoring copies takes a pass over all tasks: only when a follow-up is wanted.
        plan.followUp = catchingUp.isEmpty() ? FollowUp.none()
                : followUp(model, caught, catchingUp, restoringCopies(model, caught, actives, standbys, plan));
        return plan;
    }

    /**
     * @return by client, the active stateful task it restores (more than the acceptable lag behind)
     *         that is closest to caught up, or -1 if it restores none
     */
    private static int[] restoringActives(Model model, CaughtUpClients caught, ActivePlanner actives) {
        int[] closest = new int[model.clientCount()];
        java.util.Arrays.fill(closest, -1);
        for (int task = 0; task < model.taskCount(); task++) {
            int client = actives.active[task];
            if (client >= 0 && behind(caught.lag(task, client), model.settings.acceptableRecoveryLag())
                    && (closest[client] < 0 || caught.lag(task, client) < caught.lag(closest[client], client))) {
                closest[client] = task;
            }
        }
        return closest;
    }

    /**
     * How many copies each client restores at once after this placement: its warmups, and its
     * active and standby tasks more than the acceptable lag behind. They share the client's
     * restore rate, so each catches up that many times slower than alone (a prediction from the
     * full rate asked for follow-ups before anything had caught up: the placement simulation
     * counted half its rebalances idle).
     */
    private static int[] restoringCopies(Model model, CaughtUpClients caught, ActivePlanner actives,
                                         StandbyPlanner standbys, WarmupPlanner plan) {
        int[] copies = new int[model.clientCount()];
        long acceptable = model.settings.acceptableRecoveryLag();
        for (int task = 0; task < model.taskCount(); task++) {
            int active = actives.active[task];
            if (active >= 0 && behind(caught.lag(task, active), acceptable)) {
                copies[active]++;
            }
            for (int client : standbys.standbys[task]) {
                if (behind(caught.lag(task, client), acceptable)) {
                    copies[client]++;
                }
            }
        }
        for (int[] warmup : plan.warmups) {
            copies[warmup[1]]++;
        }
        return copies;
    }

    private static boolean behind(long lag, long acceptable) {
        return lag == Model.UNKNOWN || lag > acceptable;
    }

    private static boolean contains(int[] clients, int client) {
        for (int c : clients) {
            if (c == client) {
                return true;
            }
        }
        return false;
    }

    /** @param catchingUp the copies catching up for a pending move; not empty */
    private static FollowUp followUp(Model model, CaughtUpClients caught, List<int[]> catchingUp, int[] restoringCopies) {
        PlacementSettings settings = model.settings;
        Duration soonest = settings.probingInterval();
        for (int[] copy : catchingUp) {
            int client = copy[1];
            Duration predicted = catchUpTime(model, client, caught.lag(copy[0], client), Math.max(1, restoringCopies[client]));
            if (predicted.compareTo(soonest) < 0) {
                soonest = predicted;
            }
        }
        return FollowUp.after(soonest.compareTo(settings.minFollowUpDelay()) < 0 ? settings.minFollowUpDelay() : soonest);
    }

    /**
     * @param sharing how many copies share the client's restore rate, at least 1
     * @return the predicted catch-up time; the client's measuring delay if its rate is unknown, or
     *         the probing interval if the lag is unknown or neither is set (not yet bounded below)
     */
    private static Duration catchUpTime(Model model, int client, long lag, int sharing) {
        long rate = model.restoreRate[client];
        if (lag == Model.UNKNOWN) {
            return model.settings.probingInterval();
        }
        if (rate == 0) {
            Duration measure = model.measureAfter[client];
            return measure == null || measure.compareTo(model.settings.probingInterval()) > 0
                    ? model.settings.probingInterval() : measure;
        }
        return Duration.ofSeconds(catchUpSeconds(lag, model.settings.acceptableRecoveryLag(), sharing, rate));
    }

    /**
     * The catch-up prediction itself, shared with {@link RestoreRateLearner}: a copy {@code lag}
     * records behind, restoring at {@code rate / sharing}, is within {@code acceptable} after
     * {@code ceil(sharing * (lag - acceptable) / rate)} seconds. Saturates rather than overflows
     * for huge lags; callers cap the delay at the probing interval anyway.
     *
     * @param sharing at least 1
     * @param rate at least 1
     */
    static long catchUpSeconds(long lag, long acceptable, int sharing, long rate) {
        long remaining = Math.max(0, lag - acceptable);
        remaining = remaining > Long.MAX_VALUE / sharing ? Long.MAX_VALUE : remaining * sharing;
        return remaining / rate + (remaining % rate == 0 ? 0 : 1);
    }
}
