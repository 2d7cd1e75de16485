package io.kscale.lab.batching;

import java.util.concurrent.TimeUnit;

/**
 * When each record of a paced producer may be sent, as an offset from the start of the run.
 *
 * <p>Kafka's {@code ProducerPerformance} throttles by sleeping once it is ahead of its rate, and
 * never for less than 2 ms: at 5,000 records/s it sends about 10 records back to back, then
 * sleeps 2 ms. A bursty schedule does the same on purpose, and exactly: at {@code rate} records/s
 * it sends bursts of {@code round(rate x 2 ms)} records (at least 1), one burst every
 * {@code burst / rate} seconds. Worked example at 5,000/s: records 0-9 at 0 ms, 10-19 at 2 ms,
 * 20-29 at 4 ms; at 1,000/s, bursts of 2 every 2 ms; at 20,000/s, bursts of 40 every 2 ms. An
 * even schedule sends record {@code i} at {@code i / rate} seconds (every 200 us at 5,000/s).
 * The max rate sends every record at once: offset 0.
 *
 * <p>Offsets are computed from the index, never accumulated, so a run never drifts off its rate.
 */
public final class SendSchedule {

    /** ProducerPerformance's shortest sleep, and so the gap between bursts. */
    public static final long BURST_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

    private final SendRate rate;
    private final SendPacing pacing;
    private final long burstSize;

    private SendSchedule(SendRate rate, SendPacing pacing, long burstSize) {
        this.rate = rate;
        this.pacing = pacing;
        this.burstSize = burstSize;
    }

    /** The schedule of a rate and pacing; the max rate is unpaced whatever the pacing. */
    public static SendSchedule of(SendRate rate, SendPacing pacing) {
        if (rate.isMax() || pacing == SendPacing.NONE) {
            return new SendSchedule(SendRate.MAX, SendPacing.NONE, Long.MAX_VALUE);
        }
        if (pacing == SendPacing.EVEN) {
            return new SendSchedule(rate, pacing, 1);
        }
        long burst = Math.max(1, Math.round(rate.recordsPerSecond() * (double) BURST_INTERVAL_NANOS / NANOS_PER_SECOND));
        return new SendSchedule(rate, pacing, burst);
    }

    /** Records sent back to back: 1 when even, all of them when unpaced. */
    public long burstSize() {
        return burstSize;
    }

    /** Nanoseconds after the start at which record {@code index} (from 0) may be sent. */
    public long offsetNanos(long index) {
        if (pacing == SendPacing.NONE) {
            return 0;
        }
        // No overflow below 9.2 billion records: far beyond any run.
        long firstOfBurst = index / burstSize * burstSize;
        return firstOfBurst * NANOS_PER_SECOND / rate.recordsPerSecond();
    }

    @Override
    public String toString() {
        return pacing == SendPacing.NONE ? "unpaced" : pacing.cliName() + " at " + rate + "/s (bursts of " + burstSize
                + ")";
    }
}
