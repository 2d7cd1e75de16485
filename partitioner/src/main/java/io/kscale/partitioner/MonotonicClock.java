package io.kscale.partitioner;

import java.util.concurrent.TimeUnit;

/**
 * The clock of the idle-topic sweeps: milliseconds that only move forward (from
 * {@link System#nanoTime()}, unlike wall-clock time), with an arbitrary origin. Its own small
 * interface rather than Kafka's {@code Time}, which is not part of Kafka's public API; tests hand
 * the partitioner a clock they move by hand.
 */
interface MonotonicClock {

    /** {@link System#nanoTime()} in milliseconds. */
    MonotonicClock SYSTEM = () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime());

    /** Milliseconds since an arbitrary origin; never smaller than an earlier reading. */
    long millis();
}
