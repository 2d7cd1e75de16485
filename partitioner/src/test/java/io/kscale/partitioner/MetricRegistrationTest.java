package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Registering and removing the per-topic metrics never makes {@code partition()} throw or wait:
 * it runs inside the caller's {@code send()}. Pins two bugs. A removal that the registry refused
 * (logged) left the metric behind, so when the topic came back, adding its metrics threw "already
 * exists" out of {@code send()}. And the first record of a new topic waited for the housekeeping
 * lock, which a sweep holds while it removes the metrics of every idle topic.
 */
class MetricRegistrationTest {

    private static final long IDLE_MS = 300_000;
    /** Guards against a hang on the old code; never reached when the code is right. */
    private static final long GUARD_SECONDS = 30;
    private static final byte[] VALUE = new byte[100];

    private final ManualTime time = new ManualTime();
    private final Metrics metrics = new Metrics();
    private final ControlledPluginMetrics pluginMetrics =
            new ControlledPluginMetrics(new PluginMetricsImpl(metrics, Map.of("config", "partitioner.class")));
    private final ExecutorService senders = Executors.newCachedThreadPool();
    private UniformStickyBytesPartitioner partitioner;

    @BeforeEach
    void start() {
        partitioner = new UniformStickyBytesPartitioner(new SplittableRandom(5), TopicStickiness.SwitchListener.NONE, time);
        partitioner.configure(Map.of());
        partitioner.withPluginMetrics(pluginMetrics);
    }

    @AfterEach
    void stop() throws Exception {
        pluginMetrics.release();
        senders.shutdownNow();
        partitioner.close();
        pluginMetrics.delegate.close();
        metrics.close();
    }

    private int send(String topic) {
        return partitioner.partition(topic, null, null, null, VALUE, cluster(topic, 4));
    }

    private KafkaMetric switchTotal(String topic) {
        return metrics.metrics().entrySet().stream()
                .filter(entry -> entry.getKey().name().equals(UniformStickyBytesPartitioner.SWITCH_TOTAL_METRIC)
                        && topic.equals(entry.getKey().tags().get("topic")))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(null);
    }

    /** Lets {@code topic} go idle, then starts a sweep (through the first record of another topic) that forgets it. */
    private void forget(String topic, String trigger) {
        time.advanceMs(IDLE_MS + IDLE_MS / UniformStickyBytesPartitioner.SWEEPS_PER_IDLE_TIME);
        send(trigger);
        assertThat(partitioner.stickiness(topic)).as("%s forgotten", topic).isNull();
    }

    @Test
    void shouldNotThrowWhenATopicReturnsAfterTheRegistryRefusedToRemoveItsMetrics() {
        send("orders");
        pluginMetrics.failNextRemovals(2);
        forget("orders", "trigger");
        assertThat(switchTotal("orders")).as("left behind by the refused removal").isNotNull();

        int partition = send("orders"); // threw IllegalArgumentException "... already exists" from send()

        assertThat(partition).isBetween(0, 3);
        for (int i = 0; i < 1000; i++) {
            send("orders");
        }
        assertThat(switchTotal("orders").metricValue()).as("the returned topic's own switch count, not the old state's")
                .isEqualTo((double) partitioner.switchCount("orders")).isNotEqualTo(0.0);
    }

    @Test
    void shouldPlaceTheFirstRecordOfANewTopicWhileASweepHoldsTheHousekeeping() throws Exception {
        send("idle");
        pluginMetrics.blockNextRemoval();
        Future<?> sweep = senders.submit(() -> forget("idle", "trigger"));
        assertThat(pluginMetrics.removalBlocked.await(GUARD_SECONDS, TimeUnit.SECONDS)).as("the sweep started").isTrue();

        // Waited for the sweep to finish on the old code.
        CompletableFuture<Integer> first = CompletableFuture.supplyAsync(() -> send("new-topic"), senders);
        assertThat(first.get(GUARD_SECONDS, TimeUnit.SECONDS)).isBetween(0, 3);
        assertThat(switchTotal("new-topic")).as("registered once the sweep lets go").isNull();

        pluginMetrics.release();
        sweep.get(GUARD_SECONDS, TimeUnit.SECONDS);
        assertThat(switchTotal("new-topic")).as("registered by the thread that held the housekeeping").isNotNull();
    }

    /** The producer's plug-in metrics, with removals a test can make fail or block. */
    private static final class ControlledPluginMetrics implements PluginMetrics {
        final PluginMetricsImpl delegate;
        final CountDownLatch removalBlocked = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private final AtomicBoolean blockNext = new AtomicBoolean();
        private int failures;

        ControlledPluginMetrics(PluginMetricsImpl delegate) {
            this.delegate = delegate;
        }

        synchronized void failNextRemovals(int count) {
            failures = count;
        }

        void blockNextRemoval() {
            blockNext.set(true);
        }

        void release() {
            released.countDown();
        }

        @Override
        public MetricName metricName(String name, String description, LinkedHashMap<String, String> tags) {
            return delegate.metricName(name, description, tags);
        }

        @Override
        public void addMetric(MetricName metricName, MetricValueProvider<?> provider) {
            delegate.addMetric(metricName, provider);
        }

        @Override
        public void removeMetric(MetricName metricName) {
            synchronized (this) {
                if (failures > 0) {
                    failures--;
                    throw new IllegalStateException("refused by the test");
                }
            }
            if (blockNext.compareAndSet(true, false)) {
                removalBlocked.countDown();
                try {
                    released.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            delegate.removeMetric(metricName);
        }

        @Override
        public Sensor addSensor(String name) {
            return delegate.addSensor(name);
        }

        @Override
        public void removeSensor(String name) {
            delegate.removeSensor(name);
        }
    }
}
