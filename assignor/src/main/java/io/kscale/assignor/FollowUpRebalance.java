package io.kscale.assignor;

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
 */
public final class FollowUpRebalance {

    /** The reason given to {@link Consumer#enforceRebalance(String)}, also in the consumer's log. */
    public static final String REASON = "kscale follow-up: warmups caught up";

    private static final Logger LOG = LoggerFactory.getLogger(FollowUpRebalance.class);

    private FollowUpRebalance() {
    }

    /**
     * Asks for a rebalance if this member's follow-up deadline has passed and it has not asked
     * for this deadline yet. Cheap when nothing is due: one map lookup.
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
        if (!MemberLayouts.claimFollowUp(group.groupId(), group.memberId(), nowMs)) {
            return false;
        }
        try {
            consumer.enforceRebalance(REASON);
        } catch (IllegalStateException e) {
            LOG.warn("Could not trigger the follow-up rebalance of member {} of group {}: {}", group.memberId(),
                    group.groupId(), e.getMessage());
            return false;
        }
        LOG.info("Member {} of group {}: follow-up deadline passed, rebalancing so that caught-up warmups take "
                + "their tasks over", group.memberId(), group.groupId());
        return true;
    }
}
