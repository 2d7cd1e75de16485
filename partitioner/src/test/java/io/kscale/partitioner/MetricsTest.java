package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.TOPIC;
import static io.kscale.partitioner.StickyFixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.Test;

/** The per-topic metrics land in the producer's own registry, as a real producer would wire them. */
class MetricsTest {

    private static final Map<String, String> PLUGIN_TAGS = Map.of("config", "partitioner.class", "class", "UniformStickyBytesPartitioner");

    private static KafkaMetric metric(Metrics metrics, String name, String topic) {
        return metrics.metrics().entrySet().stream()
                .filter(entry -> entry.getKey().name().equals(name) && topic.equals(entry.getKey().tags().get("topic")))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no metric " + name + " for " + topic + " in " + metrics.metrics().keySet()));
    }

    @Test
    void shouldRegisterSwitchCountAndCurrentPartitionPerTopic() throws Exception {
        try (Metrics metrics = new Metrics(); PluginMetricsImpl pluginMetrics = new PluginMetricsImpl(metrics, PLUGIN_TAGS)) {
            UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner(new SplittableRandom(7), TopicStickiness.SwitchListener.NONE);
            partitioner.configure(Map.of(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, 100));
            Cluster cluster = cluster(5);
            partitioner.partition("early-topic", null, null, null, new byte[10], cluster("early-topic", 2));
            partitioner.withPluginMetrics(pluginMetrics);
            for (int i = 0; i < 100; i++) {
                partitioner.partition(TOPIC, null, null, null, new byte[29], cluster);
            }

            KafkaMetric switches = metric(metrics, UniformStickyBytesPartitioner.SWITCH_TOTAL_METRIC, TOPIC);
            KafkaMetric current = metric(metrics, UniformStickyBytesPartitioner.CURRENT_PARTITION_METRIC, TOPIC);
            assertThat(switches.metricValue()).isEqualTo(50.0); // 100 records of 50 bytes: 50 stints of 100, the last closed by record 100
            assertThat(current.metricValue()).isEqualTo(partitioner.stickiness(TOPIC).currentPartition());
            assertThat(switches.metricName().group()).isEqualTo("plugins");
            assertThat(switches.metricName().tags()).containsAllEntriesOf(PLUGIN_TAGS);
            assertThat(metric(metrics, UniformStickyBytesPartitioner.SWITCH_TOTAL_METRIC, "early-topic").metricValue())
                    .as("a topic seen before the metrics arrived").isEqualTo(0.0);

            long perTopic = metrics.metrics().keySet().stream().map(MetricName::group).filter("plugins"::equals).count();
            assertThat(perTopic).as("two metrics per topic, none per partition").isEqualTo(4);
        }
    }

    @Test
    void shouldWorkWithoutMetrics() {
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner();
        partitioner.configure(new LinkedHashMap<>());
        assertThat(partitioner.partition(TOPIC, null, null, null, null, cluster(3))).isBetween(0, 2);
        partitioner.close();
    }
}
