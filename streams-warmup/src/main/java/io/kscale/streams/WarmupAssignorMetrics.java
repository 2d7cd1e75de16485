package io.kscale.streams;

import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.metrics.ClientMetrics;
import io.kscale.assignor.internals.placement.RestoreRateLearner;
import org.apache.kafka.common.metrics.Sensor;

/**
 * The metrics of the {@link WarmupTaskAssignor}s that one stream thread's consumer ran as group
 * leader, in JMX as {@code kscale.streams:type=warmup-task-assignor,client-id=<consumer client.id>}:
 * two counters, and gauges that describe the last assignment it computed and what the leader's
 * {@link RestoreRateLearner} knew then.
 *
 * <p>Why this shape: Streams makes a new assignor for every rebalance, never closes it, and hands
 * task assignors no metrics registry of its own, so these live in a JVM-wide registry of their own
 * ({@link #JMX}, the consumer assignor's {@link AssignorMetrics.Registry} mechanism under another
 * domain), one per client id, kept and removed by {@link LeaderMetrics}. The client id is the
 * consumer's, not the application's: it is what the consumer's close announces, and it names
 * one stream thread of one instance, as Streams' own thread metrics do, so no application tag is
 * needed. The gauges read two immutable values set at each assignment (what it does, what the
 * learner knew), so a gauge never mixes two assignments; until this thread leads again, they
 * keep describing its last one.
 */
final class WarmupAssignorMetrics {

    static final String JMX_PREFIX = "kscale.streams";
    static final String TYPE = "warmup-task-assignor";
    /** The JVM-wide registry of the Streams plug-in, closed (no MBean left) with its last client. */
    static final AssignorMetrics.Registry JMX = new AssignorMetrics.Registry(JMX_PREFIX);

    private final String clientId;
    private final ClientMetrics metrics;
    private final Sensor assignments;
    private final Sensor fallbacks;
    private volatile AssignmentSummary last = AssignmentSummary.NONE;
    private volatile RestoreRateLearner.Snapshot learned = RestoreRateLearner.Snapshot.EMPTY;

    WarmupAssignorMetrics(AssignorMetrics.Registry registry, String clientId) {
        this.clientId = clientId;
        this.metrics = new ClientMetrics(registry, TYPE, clientId);
        this.assignments = metrics.counter("assignments-total", "Rebalances this stream thread computed the task "
                + "assignment of as group leader, fallbacks included (not those that failed for want of a client "
                + "with a processing thread).");
        this.fallbacks = metrics.counter("fallbacks-total", "Assignments in which kscale did not place the tasks by "
                + "its cost function but kept them on their prior owners: every lag was unknown (changelog end "
                + "offsets could not be looked up; a WARN says so), or the placement failed or was invalid and the "
                + "safe prior-owner assignment replaced it (an ERROR says so; please report it). Each comes with a "
                + "follow-up rebalance after probing.rebalance.interval.ms.");
        metrics.gauge("moved-active-tasks", "Active tasks the last assignment gave to a client other than the one "
                + "that ran them (a task whose owner left is placed, not moved).", (config, now) -> last.movedActives);
        metrics.gauge("warmup-tasks", "Warmup copies in the last assignment: standbys restoring the state of a task "
                + "that is to move to their client.", (config, now) -> last.warmups);
        metrics.gauge("standby-tasks", "Standby copies in the last assignment, warmups not included.",
                (config, now) -> last.standbys);
        metrics.gauge("pending-moves", "Moves of the last assignment that wait until their new owner has caught up "
                + "(warming up, or waiting for warmup budget, max.warmup.replicas); 0 when balanced.",
                (config, now) -> last.pendingMoves);
        metrics.gauge("follow-up-delay-ms", "Milliseconds from the last assignment to the follow-up rebalance it "
                + "scheduled; 0 if it scheduled none (a scheduled one is at least 10 s away).",
                (config, now) -> last.followUp.map(delay -> delay.toMillis()).orElse(0L));
        metrics.gauge("learned-restore-rate-clients", "Clients of the group whose restore rate the leader had "
                + "learned at the last assignment (0 when kscale.warmup.restore.records.per.second is set).",
                (config, now) -> learned.ratedClients());
        metrics.gauge("learned-restore-rate-min", "The lowest restore rate learned over the group's clients, "
                + "records per second, at the last assignment; NaN if none is known.", (config, now) -> learned.minRate());
        metrics.gauge("learned-restore-rate-max", "The highest restore rate learned over the group's clients, "
                + "records per second, at the last assignment; NaN if none is known.", (config, now) -> learned.maxRate());
        metrics.gauge("idle-follow-ups-max", "The most follow-up rebalances in a row that found none of a client's "
                + "warmups caught up, over the group's clients, at the last assignment.",
                (config, now) -> learned.maxIdleFollowUps());
        metrics.gauge("backed-off-clients", "Clients with " + RestoreRateLearner.MAX_IDLE_FOLLOW_UPS + " or more idle "
                + "follow-ups in a row at the last assignment: their warmups wait for probing.rebalance.interval.ms "
                + "instead of a predicted catch-up.", (config, now) -> learned.backedOffClients());
    }

    /** Metrics kept in a registry of their own, outside JMX: for an assignor without a client id. */
    static WarmupAssignorMetrics detached() {
        return new WarmupAssignorMetrics(new AssignorMetrics.Registry(null), "");
    }

    /** @return the consumer's client id, its tag */
    String clientId() {
        return clientId;
    }

    /**
     * Records one assignment handed to Streams.
     *
     * @param summary what it does
     * @param fallback whether kscale fell back to the prior owners (see {@code fallbacks-total})
     */
    void assigned(AssignmentSummary summary, boolean fallback) {
        last = summary;
        assignments.record();
        if (fallback) {
            fallbacks.record();
        }
    }

    /** @param snapshot what the leader's learner knows after this rebalance */
    void learned(RestoreRateLearner.Snapshot snapshot) {
        learned = snapshot;
    }

    /** @return the current value of one of the metrics (tests) */
    double value(String name) {
        return metrics.value(name);
    }

    /** Removes the metrics from the registry (and JMX), and the registry with its last client. Idempotent. */
    void close() {
        metrics.close();
    }
}
