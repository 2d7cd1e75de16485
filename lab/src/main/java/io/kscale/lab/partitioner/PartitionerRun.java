package io.kscale.lab.partitioner;

import java.util.Arrays;
import java.util.Map;

/** What one peer did in one round: per-partition totals, speed and producer metrics. */
public final class PartitionerRun {

    private final PartitionerPeer peer;
    private final int round;
    private final ThrottledProducerRun.Result result;

    PartitionerRun(PartitionerPeer peer, int round, ThrottledProducerRun.Result result) {
        this.peer = peer;
        this.round = round;
        this.result = result;
    }

    public PartitionerPeer peer() {
        return peer;
    }

    public int round() {
        return round;
    }

    public long[] recordsPerPartition() {
        return result.records.clone();
    }

    public long[] bytesPerPartition() {
        return result.bytes.clone();
    }

    /** The largest partition's bytes over the mean: 1.0 is perfectly uniform. */
    public double maxOverMean() {
        long[] bytes = result.bytes;
        double mean = Arrays.stream(bytes).average().orElse(0);
        return mean == 0 ? Double.NaN : Arrays.stream(bytes).max().getAsLong() / mean;
    }

    /** The share of one partition's bytes over the mean, e.g. the slowed broker's: 1.15 is 15% more. */
    public double shareOverMean(int partition) {
        double mean = Arrays.stream(result.bytes).average().orElse(0);
        return mean == 0 ? Double.NaN : result.bytes[partition] / mean;
    }

    public long acked() {
        return result.acked;
    }

    public long failed() {
        return result.failed;
    }

    public double recordsPerSecond() {
        return result.acked * 1e9 / result.elapsedNanos;
    }

    public double p50LatencyMillis() {
        return result.p50LatencyNanos / 1e6;
    }

    public double p99LatencyMillis() {
        return result.p99LatencyNanos / 1e6;
    }

    /** The producer's batch-size-avg metric, in bytes, or NaN when not reported. */
    public double batchSizeAvg() {
        return result.metrics.getOrDefault("batch-size-avg", Double.NaN);
    }

    /**
     * Records per batch: batch-size-avg over record-size-avg (the producer reports no direct
     * metric; both averages cover the same records).
     */
    public double recordsPerBatch() {
        return batchSizeAvg() / result.metrics.getOrDefault("record-size-avg", Double.NaN);
    }

    public Map<String, Double> producerMetrics() {
        return Map.copyOf(result.metrics);
    }
}
