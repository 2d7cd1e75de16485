package io.kscale.assignor.internals.server;

import io.kscale.assignor.internals.metrics.JmxMetrics;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.Metrics;

/**
 * What the broker-side assignor counts, for every group it serves: counters and gauges updated
 * from concurrent {@code assign()} calls without a lock.
 *
 * <p>In JMX as {@code kscale.server:type=key-preserving-server-assignor} ({@link #registered}),
 * attributes {@code assignments-total}, {@code assignment-fallbacks-total},
 * {@code assign-time-ms-total}, {@code assign-time-ms-last}, {@code assign-time-ms-max},
 * {@code held-topics}, {@code store-topic-losses-total} and {@code store-start-failures-total}. Why a registry of our own: Kafka 4.4 gives broker-side assignors no
 * metrics registry (no {@code Monitorable} for them) and creates an assignor for every copy of
 * its configuration, so one registry per JVM, made on the first assignment, serves the one
 * instance that assigns. It lives as long as the broker (Kafka closes no assignor).
 */
public final class ServerAssignorMetrics implements TaskCountStoreEvents {

    public static final String JMX_PREFIX = "kscale.server";
    public static final String GROUP = "key-preserving-server-assignor";

    private final LongAdder assignments = new LongAdder();
    private final LongAdder fallbacks = new LongAdder();
    private final LongAdder storeTopicLosses = new LongAdder();
    private final LongAdder storeReadFailures = new LongAdder();
    private final LongAdder storeWriteFailures = new LongAdder();
    private final LongAdder storeStartFailures = new LongAdder();
    private final LongAdder assignTimeNanos = new LongAdder();
    private final AtomicLong lastAssignTimeNanos = new AtomicLong();
    private final AtomicLong maxAssignTimeNanos = new AtomicLong();
    private final IntSupplier heldTopics;

    /**
     * Metrics outside any registry (tests, or a caller that registers them itself).
     *
     * @param heldTopics the number of topic ids held right now (T not yet known), e.g. {@link TaskCountLog#heldTopics()}
     */
    public ServerAssignorMetrics(IntSupplier heldTopics) {
        this.heldTopics = heldTopics;
    }

    /**
     * Metrics registered in a new JVM-wide {@link Metrics} with a JMX reporter under
     * {@value #JMX_PREFIX}; call once per JVM.
     */
    public static ServerAssignorMetrics registered(IntSupplier heldTopics) {
        ServerAssignorMetrics metrics = new ServerAssignorMetrics(heldTopics);
        Metrics registry = JmxMetrics.registry(JMX_PREFIX);
        metrics.register(registry, "assignments-total", "assign() calls", metrics::assignmentsTotal);
        metrics.register(registry, "assignment-fallbacks-total", "assignments that kept the current targets after an "
                + "unexpected failure (logged at ERROR)", metrics::assignmentFallbacksTotal);
        metrics.register(registry, "assign-time-ms-total", "time spent in assign(), ms",
                () -> metrics.assignTimeTotalNanos() / 1_000_000);
        metrics.register(registry, "assign-time-ms-last", "time the latest assign() took, ms",
                () -> metrics.assignTimeLastNanos() / 1_000_000);
        metrics.register(registry, "assign-time-ms-max", "longest assign(), ms",
                () -> metrics.assignTimeMaxNanos() / 1_000_000);
        metrics.register(registry, "held-topics", "topic ids held because their task count is not known yet",
                metrics::heldTopics);
        metrics.register(registry, "store-read-failures-total", "rounds in which the task count store could not reach "
                + "or read its topics (retried after kscale.server.assignor.store.retry.backoff.ms; logged at INFO, at WARN "
                + "once failing for a minute)", metrics::storeReadFailuresTotal);
        metrics.register(registry, "store-write-failures-total", "task counts the store could not record (retried "
                + "after its next read; logged at WARN)", metrics::storeWriteFailuresTotal);
        metrics.register(registry, "store-topic-losses-total", "times the task count topic was found deleted, or "
                + "deleted and re-created, while the broker ran (logged at ERROR)", metrics::storeTopicLossesTotal);
        metrics.register(registry, "store-start-failures-total", "attempts to start the task count store that failed "
                + "(the first logged at ERROR; meanwhile every topic is held)", metrics::storeStartFailuresTotal);
        return metrics;
    }

    private void register(Metrics registry, String name, String description, LongSupplier value) {
        registry.addMetric(registry.metricName(name, GROUP, description), (Measurable) (config, now) -> value.getAsLong());
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

    @Override
    public void readFailed() {
        storeReadFailures.increment();
    }

    /** @return rounds in which the task count store could not reach or read its topics */
    public long storeReadFailuresTotal() {
        return storeReadFailures.sum();
    }

    @Override
    public void writeFailed() {
        storeWriteFailures.increment();
    }

    /** @return task counts the store could not record */
    public long storeWriteFailuresTotal() {
        return storeWriteFailures.sum();
    }

    /** Counts a task count topic found deleted, or deleted and re-created, by the store. */
    @Override
    public void storeTopicLost() {
        storeTopicLosses.increment();
    }

    /** @return times the task count topic was found deleted, or deleted and re-created */
    public long storeTopicLossesTotal() {
        return storeTopicLosses.sum();
    }

    /** Counts an attempt to start the task count store that failed. */
    public void storeStartFailed() {
        storeStartFailures.increment();
    }

    /** @return attempts to start the task count store that failed */
    public long storeStartFailuresTotal() {
        return storeStartFailures.sum();
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
