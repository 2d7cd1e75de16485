package io.kscale.assignor.internals.placement;

/**
 * Where the orphans of step 2 of {@link BalancedTarget} restore: stateful tasks that nobody is
 * caught up on, and whose lag is known somewhere (their owner crashed or left with its state and
 * no standby had it). Such a task restores as an active task wherever it goes, so it is down until
 * it has caught up. Its balanced home (after a crash: the fresh replacement, which has room for
 * them all) would restore every orphan it gets at once, sharing one instance's rate.
 *
 * <p>The rule, the second half of the first rule of the cost function (replay time; it ranks
 * above even load): an orphan goes to another client when that cuts the total time to caught-up
 * (downtime, task-seconds) by more than the move it costs. The model: a client restores what it
 * holds at once, sharing its rate, so an orphan of {@code r} records to restore (its lag beyond
 * the acceptable one) on client c, which already got orphans of {@code Q(c)} records, {@code n(c)}
 * of them, this placement, is caught up after at most {@code (Q(c) + r) / rate(c)} and delays each
 * of the others by at most {@code r / rate(c)}. Placing it on c instead of its home h:
 * <ul>
 *   <li>saves its own time to caught-up, {@code (Q(h) + r) / rate(h) - (Q(c) + r) / rate(c)};</li>
 *   <li>costs c's orphans {@code n(c) * r / rate(c)};</li>
 *   <li>spares h's orphans {@code n(h) * r / rate(h)}, but costs a move: balance then gives h a
 *       caught-up task instead, which h warms up (no downtime for that task) while it restores
 *       its orphans, slowing them about as much, {@code n(h) * r / rate(h)}; plus a hand-off of
 *       about a second, not counted.</li>
 * </ul>
 * So the orphan is spread, to the client where this is best, when
 * <pre>
 *   (Q(h) + r) / rate(h)  &gt;  (Q(c) + r + n(c) * r) / rate(c)
 * </pre>
 * and is then pinned for this placement ({@link Pool#pin}): balance moves caught-up tasks to the
 * home instead, with warmups, so no orphan restores twice. Orphans are placed largest first (the
 * makespan heuristic). Rates are the clients' own or the settings' rate; unknown rates count as
 * the mean of the known ones (all alike if none is known). In later placements a spread orphan is
 * its client's prior active task, and the one least caught up elsewhere, so it stays.
 *
 * <p>Worked example (acceptable lag 10,000, every client restoring 10,000 records/s). A, B, C and
 * D run 4 tasks each; D crashes and a fresh E replaces it; D's tasks d0..d3 lag 1,010,000 records
 * everywhere (1,000,000 to restore: 100 s alone). d0: its home is E (the least loaded); nowhere
 * beats 100 s, so E. d1: home E again, where it would take 200 s; on A, which restores nothing,
 * 100 s: A. d2 goes to B and d3 to C likewise (E still 200 s against 100 s). Balance then moves
 * one caught-up task each from A, B and C to E: 3 moves, warmed up on E without downtime once E
 * has d0 ({@link WarmupPlanner} holds warmups back on a client restoring an active task). All on
 * E, the four would have shared E's rate: 400 s each, 1,600 task-seconds of downtime; spread,
 * 100 s each, 400 task-seconds. When a client leaves without a replacement, its orphans' homes
 * are the survivors, one each while their loads allow, and an orphan goes elsewhere only when a
 * client beats a home already busy: with equal sizes and rates, never, so no move is added.
 */
public final class OrphanRestores {

    private final Model model;
    private final CaughtUpClients caught;
    /** By client: records of the orphans given to it so far in this placement, beyond the acceptable lag. */
    private final double[] queued;
    /** By client: how many orphans it got so far in this placement. */
    private final int[] count;
    /** By client: records per second it restores, known or assumed. */
    private final double[] rate;

    OrphanRestores(Model model, CaughtUpClients caught) {
        this.model = model;
        this.caught = caught;
        this.queued = new double[model.clientCount()];
        this.count = new int[model.clientCount()];
        this.rate = new double[model.clientCount()];
        double known = 0;
        int count = 0;
        for (int c = 0; c < model.clientCount(); c++) {
            if (model.restoreRate[c] > 0) {
                known += model.restoreRate[c];
                count++;
            }
        }
        double assumed = count == 0 ? 1 : known / count;
        for (int c = 0; c < model.clientCount(); c++) {
            rate[c] = model.restoreRate[c] > 0 ? model.restoreRate[c] : assumed;
        }
    }

    /** @return whether the task is an orphan: stateful, nobody caught up, its lag known somewhere */
    boolean isOrphan(int task) {
        int[] preferred = caught.preferred(task);
        return model.stateful[task] && preferred != null && preferred.length > 0
                && !caught.isCaughtUp(task, preferred[0]);
    }

    /** @return the orphan's records to restore before the client is caught up on it */
    long rest(int task) {
        int[] preferred = caught.preferred(task);
        return Math.max(0, caught.lag(task, preferred[0]) - model.settings.acceptableRecoveryLag());
    }

    /**
     * @param task an orphan
     * @param home the client balance would give it
     * @param candidates the clients it may run on (its preferred clients), ascending
     * @return the client where spreading cuts the time to caught-up the most, by more than the
     *         move it costs (see the class comment); -1 if none does (lowest id on ties)
     */
    int sooner(int task, int home, int[] candidates) {
        double rest = rest(task);
        double atHome = (queued[home] + rest) / rate[home];
        int best = -1;
        double bestTime = atHome;
        for (int c : candidates) {
            if (c == home) {
                continue;
            }
            double elsewhere = (queued[c] + rest + count[c] * rest) / rate[c];
            if (elsewhere < bestTime) {
                best = c;
                bestTime = elsewhere;
            }
        }
        return best;
    }

    /** Records that the orphan restores on the client. */
    void queue(int task, int client) {
        queued[client] += rest(task);
        count[client]++;
    }
}
