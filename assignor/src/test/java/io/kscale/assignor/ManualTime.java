package io.kscale.assignor;

import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Time;

/**
 * A {@link Time} that moves only when a test moves it ({@link #sleep} advances it, as Kafka's
 * {@code MockTime} does; that class lives in kafka-clients' test jar, which this build does not
 * use). Nothing sleeps.
 */
final class ManualTime implements Time {

    private long ms;

    ManualTime(long ms) {
        this.ms = ms;
    }

    void set(long ms) {
        this.ms = ms;
    }

    @Override
    public long milliseconds() {
        return ms;
    }

    @Override
    public long nanoseconds() {
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }

    @Override
    public void sleep(long ms) {
        this.ms += ms;
    }
}
