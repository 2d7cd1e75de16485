package io.kscale.assignor;

import io.kscale.assignor.internals.member.EarlyFollowUp;
import io.kscale.assignor.internals.member.MemberLayouts;
import java.util.Optional;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Triggers the follow-up rebalance the leader asked for, so that caught-up warmups take their
 * tasks over (see {@link TaskStateListener}). The leader of a group with warmups in flight puts a
 * deadline in the assignment of each member that warms up a task; only the application's poll
 * loop can act on it, by calling {@link Consumer#enforceRebalance(String)}.
 * {@link ExpansionBarrier#poll} does this on every poll; a poll loop without a barrier calls
 * {@link #triggerIfDue} before each {@code poll}:
 * <pre>{@code
 * while (running) {
 *     FollowUpRebalance.triggerIfDue(consumer);
 *     ConsumerRecords<String, Order> records = consumer.poll(Duration.ofMillis(100));
 *     ...
 * }
 * }</pre>
 * A helper of its own rather than only the barrier's job: a stateful consumer needs the
 * follow-up whether or not it needs per-key order across expansions, and the barrier's merge
 * costs latency that such a consumer need not pay.
 *
 * <p>The deadline is the leader's clock ({@code System.currentTimeMillis()}) plus the follow-up
 * delay (at least 10 seconds, at most
 * {@value KeyPreservingAssignorConfig#PROBING_INTERVAL_MS_CONFIG}), so clock skew between
 * members only shifts it by the skew. Each deadline triggers one rebalance at most.
 *
 * <p>A member with a {@link TaskStateListener} does not wait for the deadline once one of its
 * warmups has caught up: every second at most, the check asks the listener for its lags, and a
 * warmup with lag at most {@value KeyPreservingAssignorConfig#ACCEPTABLE_RECOVERY_LAG_CONFIG}
 * triggers the rebalance at once (once per assignment, at least 10 seconds apart, never while
 * the member is in a rebalance; see {@link EarlyFollowUp}). The leader's deadline is an estimate
 * from the lags it saw; the member sees its restore progress, so a scale-out finishes as soon as
 * the state is there rather than a probing interval later.
 */
public final class FollowUpRebalance {

    /** The reason given to {@link Consumer#enforceRebalance(String)}, also in the consumer's log. */
    public static final String REASON = "kscale follow-up: warmups caught up";

    /** The reason given when a warmup of this member caught up before the deadline. */
    public static final String EARLY_REASON = "kscale follow-up: a warmup of this member caught up";

    private static final Logger LOG = LoggerFactory.getLogger(FollowUpRebalance.class);

    private FollowUpRebalance() {
    }

    /**
     * Asks for a rebalance if this member's follow-up deadline has passed and it has not asked
     * for this deadline yet, or if one of its warmups has caught up (see the class comment). Cheap
     * when nothing is due: a map lookup, and once a second at most the listener's lags.
     *
     * @param consumer a consumer of a group assigned by {@link KeyPreservingAssignor}; call from its poll thread
     * @return whether a rebalance was requested; the next {@code poll} runs it
     */
    public static boolean triggerIfDue(Consumer<?, ?> consumer) {
        return triggerIfDue(consumer, System.currentTimeMillis());
    }

    /** As {@link #triggerIfDue(Consumer)}, at the given time (the barrier's clock; tests). */
    static boolean triggerIfDue(Consumer<?, ?> consumer, long nowMs) {
        ConsumerGroupMetadata group;
        try {
            group = consumer.groupMetadata();
        } catch (InvalidGroupIdException e) {
            return false;
        }
        String reason = dueReason(group.groupId(), group.memberId(), nowMs);
        if (reason == null) {
            return false;
        }
        try {
            consumer.enforceRebalance(reason);
        } catch (IllegalStateException e) {
            LOG.warn("Could not trigger the follow-up rebalance of member {} of group {}: {}", group.memberId(),
                    group.groupId(), e.getMessage());
            return false;
        }
        LOG.info("Member {} of group {}: {}; rebalancing so that caught-up warmups take their tasks over",
                group.memberId(), group.groupId(), REASON.equals(reason) ? "follow-up deadline passed" : "a warmup caught up");
        return true;
    }

    /** @return the reason to rebalance now, or null; claims what it returns */
    private static String dueReason(String groupId, String memberId, long nowMs) {
        if (MemberLayouts.claimFollowUp(groupId, memberId, nowMs)) {
            return REASON;
        }
        Optional<EarlyFollowUp> early = MemberLayouts.earlyFollowUp(groupId, memberId);
        if (early.isPresent() && early.get().claim(nowMs)) {
            // The rebalance asked for now replaces the deadline's: claim it so it cannot fire too.
            MemberLayouts.claimFollowUp(groupId, memberId, Long.MAX_VALUE);
            return EARLY_REASON;
        }
        return null;
    }
}
