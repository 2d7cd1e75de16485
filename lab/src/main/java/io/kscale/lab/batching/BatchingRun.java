package io.kscale.lab.batching;

import io.kscale.lab.partitioner.PartitionerPeer;

/** What one partitioner did in one cell and round: batching, latency and speed. */
public final class BatchingRun {

    private final BatchingCell cell;
    private final PartitionerPeer peer;
    private final int round;
    private final int recordSize;
    private final PacedProducerRun.Result result;

    BatchingRun(BatchingCell cell, PartitionerPeer peer, int round, int recordSize, PacedProducerRun.Result result) {
        this.cell = cell;
        this.peer = peer;
        this.round = round;
        this.recordSize = recordSize;
        this.result = result;
    }

    public BatchingCell cell() {
        return cell;
    }

    public PartitionerPeer peer() {
        return peer;
    }

    /** From 0. */
    public int round() {
        return round;
    }

    public long acked() {
        return result.acked;
    }

    public long failed() {
        return result.failed;
    }

    public double elapsedSeconds() {
        return result.elapsedNanos / 1e9;
    }

    /** The producer's records-per-request-avg over the whole run. */
    public double recordsPerRequest() {
        return result.recordsPerRequest;
    }

    /** The producer's batch-size-avg over the whole run, in bytes. */
    public double batchSizeAvg() {
        return result.batchSizeAvg;
    }

    /** From {@code send()} to its callback, mean over acked records. */
    public double avgLatencyMillis() {
        return result.avgLatencyNanos / 1e6;
    }

    public double p99LatencyMillis() {
        return result.p99LatencyNanos / 1e6;
    }

    /** Acked records per second, from the first send to the end of the final flush. */
    public double recordsPerSecond() {
        return result.elapsedNanos == 0 ? 0 : result.acked * 1e9 / result.elapsedNanos;
    }

    /** Acked record values in MB (10^6 bytes) per second. */
    public double megabytesPerSecond() {
        return recordsPerSecond() * recordSize / 1e6;
    }

    public int brokers() {
        return result.requestsPerBroker.length;
    }

    /** Requests the producer sent to broker {@code id} (produce requests, and a few metadata ones). */
    public long requests(int broker) {
        return result.requestsPerBroker[broker];
    }

    /** Records acked by the partitions broker {@code id} leads. */
    public long records(int broker) {
        return result.recordsPerBroker[broker];
    }

    /** Records acked by partitions that broker {@code id} leads, per request sent to it; NaN if none was sent. */
    public double recordsPerRequest(int broker) {
        long requests = result.requestsPerBroker[broker];
        return requests == 0 ? Double.NaN : (double) result.recordsPerBroker[broker] / requests;
    }
}
