package io.kscale.assignor;

import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Time;

/**
 * A {@link Time} that moves only when a test says so ({@link #sleep} advances it at once), as
 * Kafka's own {@code MockTime}, which ships in the kafka-clients test jar this build does not use.
 */
final class MockTime implements Time {

    private long nanos;
    private final long epochOffsetMs;

    /** @param startMs the wall-clock time it starts at, epoch ms */
    MockTime(long startMs) {
        this.epochOffsetMs = startMs;
    }

    @Override
    public long milliseconds() {
        return epochOffsetMs + TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    @Override
    public long nanoseconds() {
        return nanos;
    }

    @Override
    public void sleep(long ms) {
        nanos += TimeUnit.MILLISECONDS.toNanos(ms);
    }
}
