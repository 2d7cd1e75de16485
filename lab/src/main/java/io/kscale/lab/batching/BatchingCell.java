package io.kscale.lab.batching;

import java.util.Objects;

/** One setting of the batching matrix: how fast and how evenly the producer sends, and its linger.ms. */
public final class BatchingCell {

    private final SendRate rate;
    private final SendPacing pacing;
    private final int lingerMs;

    public BatchingCell(SendRate rate, SendPacing pacing, int lingerMs) {
        this.rate = rate;
        this.pacing = rate.isMax() ? SendPacing.NONE : pacing;
        this.lingerMs = lingerMs;
        if (!rate.isMax() && pacing == SendPacing.NONE) {
            throw new IllegalArgumentException("a paced rate (" + rate + "/s) needs bursty or even pacing");
        }
    }

    public SendRate rate() {
        return rate;
    }

    /** {@link SendPacing#NONE} for the max rate. */
    public SendPacing pacing() {
        return pacing;
    }

    public int lingerMs() {
        return lingerMs;
    }

    public SendSchedule schedule() {
        return SendSchedule.of(rate, pacing);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof BatchingCell)) {
            return false;
        }
        BatchingCell other = (BatchingCell) o;
        return rate.equals(other.rate) && pacing == other.pacing && lingerMs == other.lingerMs;
    }

    @Override
    public int hashCode() {
        return Objects.hash(rate, pacing, lingerMs);
    }

    /** E.g. {@code 5000/s bursty, linger.ms=5} or {@code max, linger.ms=0}. */
    @Override
    public String toString() {
        return (rate.isMax() ? "max" : rate + "/s " + pacing.cliName()) + ", linger.ms=" + lingerMs;
    }
}
