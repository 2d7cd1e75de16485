package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.assertCollected;
import static io.kscale.partitioner.StickyFixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.management.ObjectName;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, lifecycle: after {@code close()} nothing of a partitioner stays reachable from static
 * state. A producer's metrics are reachable from the platform MBean server (a static) through its
 * JMX reporter, so a metric left behind would keep its topic's state, and with it the class loader
 * of a redeployed application, alive.
 */
class LifecycleTest {

    private static final String JMX_DOMAIN = "kscale.test.lifecycle";

    @Test
    void shouldRemoveItsMetricsAndLeaveNothingReachableAfterClose() throws Exception {
        JmxReporter jmx = new JmxReporter();
        jmx.configure(Map.of());
        try (Metrics metrics = new Metrics(new MetricConfig(), List.of(jmx), Time.SYSTEM, new KafkaMetricsContext(JMX_DOMAIN));
                PluginMetricsImpl pluginMetrics = new PluginMetricsImpl(metrics, Map.of("config", "partitioner.class"))) {
            List<WeakReference<?>> parts = writeAndClose(pluginMetrics);

            assertThat(metrics.metrics().keySet()).as("metrics left in the producer's registry")
                    .noneMatch(name -> name.group().equals("plugins"));
            assertThat(ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName(JMX_DOMAIN + ":type=plugins,*"), null))
                    .as("MBeans left").isEmpty();
            assertCollected(parts, "parts of the closed partitioner");
        }
    }

    /** Writes to three topics, closes the partitioner and returns weak references to it, its topics' states and their Clusters. */
    private static List<WeakReference<?>> writeAndClose(PluginMetricsImpl pluginMetrics) {
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner();
        partitioner.configure(Map.of());
        partitioner.withPluginMetrics(pluginMetrics);
        List<WeakReference<?>> parts = new ArrayList<>();
        for (String topic : List.of("a", "b", "c")) {
            Cluster cluster = cluster(topic, 3);
            partitioner.partition(topic, null, null, null, new byte[10], cluster);
            parts.add(new WeakReference<>(cluster));
            parts.add(new WeakReference<>(partitioner.stickiness(topic)));
        }
        assertThat(ManagementFactory.getPlatformMBeanServer().queryNames(null, null))
                .as("one MBean per topic while open")
                .filteredOn(name -> name.getDomain().equals(JMX_DOMAIN) && "plugins".equals(name.getKeyProperty("type")))
                .hasSize(3);
        parts.add(new WeakReference<>(partitioner));
        partitioner.close();
        return parts;
    }
}
