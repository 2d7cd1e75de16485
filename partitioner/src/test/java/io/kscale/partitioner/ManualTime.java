package io.kscale.partitioner;

import java.util.concurrent.TimeUnit;

/** A clock that moves only when a test says so. */
final class ManualTime implements MonotonicClock {

    private volatile long ms = TimeUnit.DAYS.toMillis(1);

    void advanceMs(long ms) {
        this.ms += ms;
    }

    @Override
    public long millis() {
        return ms;
    }
}
