package io.kscale.assignor;

import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Time;

/**
 * A {@link Time} that moves only when a test moves it ({@link #sleep} advances it at once,
 * {@link #set} puts it at an instant), as Kafka's own {@code MockTime}, which ships in a
 * kafka-clients test jar that Maven Central does not serve. Nothing sleeps.
 */
public final class MockTime implements Time {

    private long ms;

    /** @param startMs the wall-clock time it starts at, epoch ms */
  public   MockTime(long startMs) {
        this.ms = startMs;
    }

    /** Puts the clock at {@code ms}, epoch ms. */
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
