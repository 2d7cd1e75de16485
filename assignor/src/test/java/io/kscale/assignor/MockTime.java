package io.kscale.assignor;

import io.kscale.assignor.internals.time.Clock;
import java.util.concurrent.TimeUnit;

/**
 * A {@link Clock} that moves only when a test moves it ({@link #sleep} advances it at once,
 * {@link #set} puts it at an instant), as Kafka's own {@code MockTime} does for its {@code Time}.
 * Nothing sleeps.
 */
public final class MockTime implements Clock {

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

    /** Advances the clock by {@code ms} at once. */
    public void sleep(long ms) {
        this.ms += ms;
    }
}
