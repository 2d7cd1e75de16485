package io.kscale.assignor.internals.member;

import io.kscale.assignor.KeyPreservingAssignorConfig;
import io.kscale.assignor.TaskRef;
import io.kscale.assignor.TaskStateListener;
import java.time.Duration;
import java.util.SortedSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when a stateful member asks for its follow-up rebalance before the leader's deadline:
 * as soon as one of its warmups has caught up (its lag, asked of the {@link TaskStateListener}, is
 * at most {@value KeyPreservingAssignorConfig#ACCEPTABLE_RECOVERY_LAG_CONFIG}). The leader's
 * deadline is only an estimate from the lags it saw; the member sees its restore progress.
 *
 * <p>Why one caught-up warmup and not all: the placement engine promotes each caught-up warmup on
 * its own, so a rebalance with one caught up already moves a task and frees a warmup slot for the
 * next move; waiting for the slowest warmup would keep the caught-up ones idle. The cost is at
 * most one rebalance per warmup, spaced by the rate limit below.
 *
 * <p>Guards, so that checking costs nothing and never causes a rebalance storm:
 * <ul>
 *   <li>the listener's lags are asked at most once per {@link #CHECK_INTERVAL} (the poll loop
 *       may call every few milliseconds);</li>
 *   <li>at most one request per assignment, none while a rebalance is in progress (from this
 *       member's join, {@code subscriptionUserData}, to its next {@code onAssignment});</li>
 *   <li>at least {@code minInterval} between two requests (the placement's minimum follow-up
 *       delay, 10 s): a leader that keeps the task a warmup anyway, say with another acceptable
 *       lag, then costs a rebalance per interval at most, and the deadline still applies.</li>
 * </ul>
 * Example: acceptable lag 1,000, warmup {@code 6:2} assigned at t = 0 with lag 40,000; the poll
 * loop calls {@link #claim} every 100 ms; lags are read at t = 0, 1, 2 s, ...; at t = 7 s the
 * lag is 800, so {@code claim} returns true once and the member rebalances at once instead of at
 * the deadline (up to the probing interval).
 *
 * <p>Called from the consumer's poll thread only (the assignor's callbacks and the poll loop);
 * synchronized all the same, as the registry that hands it out is JVM-wide.
 */
public final class EarlyFollowUp {

    /** Longest time between two looks at the listener's lags. */
    static final Duration CHECK_INTERVAL = Duration.ofSeconds(1);

    private static final Logger log = LoggerFactory.getLogger(EarlyFollowUp.class);

    private final MemberTaskState state;
    private final long acceptableRecoveryLag;
    private final long minIntervalMs;

    private boolean rebalancing;
    private boolean askedThisAssignment;
    private long nextCheckMs = Long.MIN_VALUE;
    private long lastAskMs = Long.MIN_VALUE;

    /**
     * @param state the member's warmups and listener
     * @param acceptableRecoveryLag the largest lag of a caught-up copy (the leader's setting; set alike on every member)
     * @param minInterval the least time between two early requests
     */
    public EarlyFollowUp(MemberTaskState state, long acceptableRecoveryLag, Duration minInterval) {
        this.state = state;
        this.acceptableRecoveryLag = acceptableRecoveryLag;
        this.minIntervalMs = minInterval.toMillis();
    }

    /** This member is joining a rebalance (its subscription is being built). */
    public synchronized void joining() {
        rebalancing = true;
    }

    /** This member received an assignment (after {@link MemberTaskState#assigned}): a new round. */
    public synchronized void assigned() {
        rebalancing = false;
        askedThisAssignment = false;
    }

    /**
     * Whether the member should rebalance now because a warmup caught up; true at most once per
     * assignment, and the caller must then ask for the rebalance.
     *
     * @param nowMs the time, epoch ms
     * @return whether a warmup of this member has caught up and none of the guards holds it back
     */
    public synchronized boolean claim(long nowMs) {
        if (rebalancing || askedThisAssignment || state.warmups().isEmpty() || nowMs < nextCheckMs
                || (lastAskMs != Long.MIN_VALUE && nowMs - lastAskMs < minIntervalMs)) {
            return false;
        }
        nextCheckMs = nowMs + CHECK_INTERVAL.toMillis();
        SortedSet<TaskRef> caughtUp = state.caughtUpWarmups(acceptableRecoveryLag);
        if (caughtUp.isEmpty()) {
            return false;
        }
        askedThisAssignment = true;
        lastAskMs = nowMs;
        log.info("Warmups {} have caught up (lag <= {}): asking for the follow-up rebalance now", caughtUp,
                acceptableRecoveryLag);
        return true;
    }
}
