package io.kscale.lab.batching;

import java.util.concurrent.locks.LockSupport;

/** The time source a {@link Pacer} reads and waits on: the system's, or a test's fake. */
interface Ticker {

    /** The system's monotonic clock; waits park the thread. */
    Ticker SYSTEM = new Ticker() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void parkUntil(long deadlineNanos) {
            long wait;
            while ((wait = deadlineNanos - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
        }
    };

    long nanoTime();

    /** Returns once {@link #nanoTime()} has reached {@code deadlineNanos}. */
    void parkUntil(long deadlineNanos);
}
