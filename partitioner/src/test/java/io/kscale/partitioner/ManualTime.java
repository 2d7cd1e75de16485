package io.kscale.partitioner;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Time;

/** A clock that moves only when a test says so (kafka-clients ships its {@code MockTime} in tests only). */
final class ManualTime implements Time {

    private volatile long nanos = TimeUnit.DAYS.toNanos(1);

    void advanceMs(long ms) {
        nanos += TimeUnit.MILLISECONDS.toNanos(ms);
    }

    @Override
    public long milliseconds() {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    @Override
    public long nanoseconds() {
        return nanos;
    }

    @Override
    public void sleep(long ms) {
        advanceMs(ms);
    }

    @Override
    public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
        throw new UnsupportedOperationException("the partitioner never waits");
    }
}
