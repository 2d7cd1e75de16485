package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.TOPIC;
import static io.kscale.partitioner.StickyFixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The per-record path allocates nothing between switches and waits for no lock (behaviours, not
 * timings: allocation is counted with the JVM's per-thread allocation counter). Forgetting idle
 * topics (issue 11) must not change that: its bookkeeping runs only when a topic is first seen,
 * when its metadata changes and after a switch.
 */
class AllocationTest {

    private static final long IDLE_MS = 300_000;

    private static com.sun.management.ThreadMXBean threads() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        return threads;
    }

    @Test
    void shouldNotAllocatePerRecordBetweenSwitches() {
        com.sun.management.ThreadMXBean threads = threads();
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner();
        partitioner.configure(Map.of(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, Integer.MAX_VALUE));
        Cluster cluster = cluster(16, 3);
        byte[] value = new byte[100];
        byte[] key = new byte[8];
        int sink = 0;
        for (int i = 0; i < 50_000; i++) {
            sink += partitioner.partition(TOPIC, null, null, null, value, cluster);
            sink += partitioner.partition(TOPIC, key, key, null, value, cluster);
        }
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 200_000; i++) {
            sink += partitioner.partition(TOPIC, null, null, null, value, cluster);
            sink += partitioner.partition(TOPIC, key, key, null, value, cluster);
        }
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        System.out.printf("allocation: %d bytes for 400000 records of one topic%n", allocated);
        assertThat(partitioner.switchCount(TOPIC)).isZero();
        // A few hundred bytes of slack for the measurement itself; one allocation per record would be >= 6 MB.
        assertThat(allocated).as("bytes allocated for 400000 records (sink %d)", sink).isLessThan(4096);
    }

    /** As a producer runs it: metrics on, many topics, each with its own Cluster, and a clock moving past the idle time. */
    @Test
    void shouldNotAllocatePerRecordOverManyTopicsWithMetricsAndForgetting() throws Exception {
        com.sun.management.ThreadMXBean threads = threads();
        ManualTime time = new ManualTime();
        try (Metrics metrics = new Metrics(); PluginMetricsImpl pluginMetrics = new PluginMetricsImpl(metrics, Map.of())) {
            UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner(new SplittableRandom(5), TopicStickiness.SwitchListener.NONE, time);
            partitioner.configure(Map.of(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, Integer.MAX_VALUE));
            partitioner.withPluginMetrics(pluginMetrics);
            int topicCount = 64;
            String[] topics = new String[topicCount];
            Cluster[] clusters = new Cluster[topicCount];
            for (int t = 0; t < topicCount; t++) {
                topics[t] = "topic-" + t;
                clusters[t] = cluster(topics[t], 12);
            }
            byte[] value = new byte[100];
            int sink = 0;
            for (int i = 0; i < 100_000; i++) {
                sink += partitioner.partition(topics[i & (topicCount - 1)], null, null, null, value, clusters[i & (topicCount - 1)]);
            }
            time.advanceMs(2 * IDLE_MS);
            long thread = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(thread);
            for (int i = 0; i < 400_000; i++) {
                sink += partitioner.partition(topics[i & (topicCount - 1)], null, null, null, value, clusters[i & (topicCount - 1)]);
            }
            long allocated = threads.getThreadAllocatedBytes(thread) - before;
            System.out.printf("allocation: %d bytes for 400000 records over %d topics, metrics and forgetting on%n", allocated, topicCount);
            assertThat(partitioner.topicCount()).isEqualTo(topicCount);
            assertThat(allocated).as("bytes allocated for 400000 records over %d topics (sink %d)", topicCount, sink).isLessThan(4096);
            partitioner.close();
        }
    }

    /**
     * A thread that holds the partitioner's bookkeeping (here: stuck registering a new topic's
     * metrics) holds up no record of another topic, not even one that switches while a sweep for
     * idle topics is due.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS) // a guard: the records take milliseconds unless they wait for the stuck thread
    void shouldPlaceRecordsWhileAnotherThreadIsStuckInBookkeeping() throws Exception {
        ManualTime time = new ManualTime();
        try (Metrics metrics = new Metrics(); PluginMetricsImpl pluginMetrics = new PluginMetricsImpl(metrics, Map.of())) {
            BlockingPluginMetrics blocking = new BlockingPluginMetrics(pluginMetrics, "stuck");
            UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner(new SplittableRandom(5), TopicStickiness.SwitchListener.NONE, time);
            partitioner.configure(Map.of(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, 1000));
            partitioner.withPluginMetrics(blocking);
            Cluster cluster = cluster(6);
            byte[] value = new byte[100];
            partitioner.partition(TOPIC, null, null, null, value, cluster);

            CompletableFuture<Integer> stuck = CompletableFuture.supplyAsync(
                    () -> partitioner.partition("stuck", null, null, null, value, cluster("stuck", 3)));
            blocking.entered.await();
            time.advanceMs(2 * IDLE_MS); // every switch now finds a sweep due
            for (int i = 0; i < 100_000; i++) {
                partitioner.partition(TOPIC, null, null, null, value, cluster);
            }
            assertThat(partitioner.switchCount(TOPIC)).isGreaterThan(10_000);
            assertThat(stuck).isNotDone();

            blocking.release.countDown();
            assertThat(stuck.get()).isBetween(0, 2);
            partitioner.close();
        }
    }

    /** Blocks the first metric registration of one topic until released. */
    private static final class BlockingPluginMetrics implements PluginMetrics {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final PluginMetrics delegate;
        private final String blockedTopic;

        BlockingPluginMetrics(PluginMetrics delegate, String blockedTopic) {
            this.delegate = delegate;
            this.blockedTopic = blockedTopic;
        }

        @Override
        public MetricName metricName(String name, String description, LinkedHashMap<String, String> tags) {
            return delegate.metricName(name, description, tags);
        }

        @Override
        public void addMetric(MetricName metricName, MetricValueProvider<?> provider) {
            if (blockedTopic.equals(metricName.tags().get("topic")) && entered.getCount() > 0) {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            delegate.addMetric(metricName, provider);
        }

        @Override
        public void removeMetric(MetricName metricName) {
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
