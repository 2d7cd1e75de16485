package io.kscale.assignor.internals.time;

/**
 * The assignors' clock: wall-clock milliseconds for deadlines that travel between members and for
 * ages, monotonic nanoseconds for time budgets. The two method names are those of Kafka's
 * {@code org.apache.kafka.common.utils.Time}, which is not part of Kafka's public API (no
 * {@code @InterfaceAudience.Public}; it may change in any release), so kscale keeps this small
 * interface of its own. Tests hand the code under test a clock they move by hand.
 */
public interface Clock {

    /** The system's clocks: {@link System#currentTimeMillis()} and {@link System#nanoTime()}. */
    Clock SYSTEM = new Clock() {
        @Override
        public long milliseconds() {
            return System.currentTimeMillis();
        }

        @Override
        public long nanoseconds() {
            return System.nanoTime();
        }
    };

    /** Wall-clock time, epoch milliseconds. */
    long milliseconds();

    /** Monotonic time with an arbitrary origin, nanoseconds: for measuring how long something took. */
    long nanoseconds();
}
