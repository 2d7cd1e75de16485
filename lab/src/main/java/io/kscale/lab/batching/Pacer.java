package io.kscale.lab.batching;

/**
 * Holds a sending thread to a {@link SendSchedule}: {@link #awaitTurn} returns once record
 * {@code index} is due. A sender that falls behind (a blocked {@code send()}) is not waited for
 * again until it has caught up, so the records it owes go back to back, as in
 * {@code ProducerPerformance}.
 */
final class Pacer {

    private final SendSchedule schedule;
    private final Ticker ticker;
    private final long startNanos;

    Pacer(SendSchedule schedule, Ticker ticker) {
        this.schedule = schedule;
        this.ticker = ticker;
        this.startNanos = ticker.nanoTime();
    }

    /** Waits until record {@code index} is due. */
    void awaitTurn(long index) {
        long due = startNanos + schedule.offsetNanos(index);
        if (ticker.nanoTime() - due < 0) {
            ticker.parkUntil(due);
        }
    }

    /** Nanoseconds since this pacer started. */
    long elapsedNanos() {
        return ticker.nanoTime() - startNanos;
    }
}
