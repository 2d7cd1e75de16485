package io.kscale.assignor.internals.store;

import io.kscale.assignor.internals.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The end of a time budget that several blocking steps share: each asks what is left, so the
 * steps together never take longer than the budget. One per store call: a load, with the closes
 * it may need, or a save (see {@link LayoutPersistence}).
 */
public final class Deadline {

    private final Clock time;
    private final long endNanos;

    private Deadline(Clock time, long endNanos) {
        this.time = time;
        this.endNanos = endNanos;
    }

    /**
     * @param time the clock
     * @param budget the time the steps may take together
     * @return the deadline {@code budget} from now
     */
    public static Deadline after(Clock time, Duration budget) {
        long now = time.nanoseconds();
        long budgetNanos = budget.toNanos();
        return new Deadline(time, budgetNanos > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + budgetNanos);
    }

    /** @return the time left, zero once passed */
    public Duration remaining() {
        return Duration.ofNanos(remainingNanos());
    }

    /** @return the time left in ms, zero once passed */
    public long remainingMs() {
        return TimeUnit.NANOSECONDS.toMillis(remainingNanos());
    }

    /** @return whether no time is left */
    public boolean passed() {
        return remainingNanos() == 0;
    }

    /**
     * @param most the longest the step should take anyway
     * @return the shorter of what is left and {@code most}
     */
    public Duration remainingAtMost(Duration most) {
        Duration left = remaining();
        return left.compareTo(most) < 0 ? left : most;
    }

    private long remainingNanos() {
        return Math.max(0, endNanos - time.nanoseconds());
    }
}
