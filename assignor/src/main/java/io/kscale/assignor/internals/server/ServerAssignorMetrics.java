package io.kscale.assignor.internals.server;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * What the broker-side assignor counts, shared by every group it serves: counters and gauges
 * only, updated from concurrent {@code assign()} calls without a lock. Registration with a
 * metrics registry (and so JMX) is the adapter's business; this class only holds the numbers.
 */
public final class ServerAssignorMetrics {

    private final LongAdder assignments = new LongAdder();
    private final LongAdder fallbacks = new LongAdder();
    private final LongAdder assignTimeNanos = new LongAdder();
    private final AtomicLong lastAssignTimeNanos = new AtomicLong();
    private final AtomicLong maxAssignTimeNanos = new AtomicLong();
    private final IntSupplier heldTopics;

    /** @param heldTopics the number of topic ids held right now (T not yet known), e.g. {@link TaskCountLog#heldTopics()} */
    public ServerAssignorMetrics(IntSupplier heldTopics) {
        this.heldTopics = heldTopics;
    }

    /** Counts an {@code assign()} call that returned, whatever it returned, and its duration. */
    void assignmentComputed(long nanos) {
        assignments.increment();
        assignTimeNanos.add(nanos);
        lastAssignTimeNanos.set(nanos);
        maxAssignTimeNanos.accumulateAndGet(nanos, Math::max);
    }

    /** Counts an assignment that fell back to the current targets after an unexpected failure. */
    void assignmentFellBack() {
        fallbacks.increment();
    }

    /** @return {@code assign()} calls so far */
    public long assignmentsTotal() {
        return assignments.sum();
    }

    /** @return assignments that fell back to the current targets */
    public long assignmentFallbacksTotal() {
        return fallbacks.sum();
    }

    /** @return the time all {@code assign()} calls took, in nanoseconds */
    public long assignTimeTotalNanos() {
        return assignTimeNanos.sum();
    }

    /** @return the time the latest {@code assign()} call took, in nanoseconds */
    public long assignTimeLastNanos() {
        return lastAssignTimeNanos.get();
    }

    /** @return the longest {@code assign()} call so far, in nanoseconds */
    public long assignTimeMaxNanos() {
        return maxAssignTimeNanos.get();
    }

    /** @return topic ids whose T is not known yet, so that their partitions are held */
    public int heldTopics() {
        return heldTopics.getAsInt();
    }
}
