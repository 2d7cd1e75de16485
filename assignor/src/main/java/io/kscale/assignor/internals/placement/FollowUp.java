package io.kscale.assignor.internals.placement;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * When the next rebalance should happen so that caught-up warmups can take their tasks over.
 * Relative to the moment of the placement, which the pure engine does not know: an adapter adds
 * it to its clock (Kafka Streams: {@code withFollowupRebalance(now + delay)}; consumer: a deadline
 * in the assignment userData). Immutable.
 */
public final class FollowUp {

    private static final FollowUp NONE = new FollowUp(null);

    private final Duration delay;

    private FollowUp(Duration delay) {
        this.delay = delay;
    }

    /** @return no follow-up: nothing is waiting for a copy to catch up */
    public static FollowUp none() {
        return NONE;
    }

    /**
     * A follow-up after a delay.
     *
     * @param delay zero or positive
     * @return the follow-up
     */
    public static FollowUp after(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("a follow-up delay must not be negative: " + delay);
        }
        return new FollowUp(delay);
    }

    /** @return whether a follow-up rebalance is wanted */
    public boolean isScheduled() {
        return delay != null;
    }

    /** @return the delay after which to rebalance, or empty if none is wanted */
    public Optional<Duration> delay() {
        return Optional.ofNullable(delay);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FollowUp && Objects.equals(delay, ((FollowUp) o).delay);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(delay);
    }

    @Override
    public String toString() {
        return delay == null ? "no follow-up" : "follow-up after " + delay;
    }
}
