package io.kscale.partitioner;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;

/**
 * Measures the heap the partitioner retains per topic (issue 11): a producer writes to
 * {@value #TOPICS} topics, each seen with its own {@link Cluster} of {@value #PARTITIONS}
 * partitions, then lets them idle past {@code metadata.max.idle.ms} (5000 ms, the producer's
 * minimum) while it writes to one other topic. Retained bytes are the used heap after full GCs minus a
 * baseline, divided by the topic count. A measurement, not a test: it prints and asserts nothing.
 * It uses only the public API, so it runs against any build of the partitioner, e.g. the lab's jar:
 * <pre>{@code
 * mvn -B -o -q -DskipTests -pl partitioner,broker-runtime,assignor,streams-warmup,lab package
 * javac -cp lab/target/kscale-lab.jar -d /tmp/per-topic-memory partitioner/src/test/java/io/kscale/partitioner/PerTopicMemory.java
 * java -XX:+UseSerialGC -Xmx1g -cp /tmp/per-topic-memory:lab/target/kscale-lab.jar io.kscale.partitioner.PerTopicMemory
 * }</pre>
 */
public final class PerTopicMemory {

    static final int TOPICS = 5_000;
    static final int PARTITIONS = 12;
    static final int RECORDS_PER_TOPIC = 10;
    static final long IDLE_MS = 5_000;
    /** The idle time, plus the partitioner's sweep interval (a tenth of it) twice, plus slack. */
    static final long WAIT_MS = IDLE_MS + 2 * IDLE_MS / 10 + 500;

    private PerTopicMemory() {
    }

    public static void main(String[] args) throws Exception {
        try (Metrics metrics = new Metrics(); PluginMetricsImpl pluginMetrics = new PluginMetricsImpl(metrics, Map.of("config", "partitioner.class"))) {
            UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner();
            partitioner.configure(Map.of(ProducerConfig.METADATA_MAX_IDLE_CONFIG, IDLE_MS));
            partitioner.withPluginMetrics(pluginMetrics);
            byte[] value = new byte[512];
            long baseline = usedAfterGc();
            int metricsBefore = metrics.metrics().size();

            for (int t = 0; t < TOPICS; t++) {
                String topic = "tenant-" + t;
                Cluster cluster = cluster(topic);
                for (int r = 0; r < RECORDS_PER_TOPIC; r++) {
                    partitioner.partition(topic, null, null, null, value, cluster);
                }
            }
            long written = usedAfterGc() - baseline;
            int metricsWritten = metrics.metrics().size() - metricsBefore;

            // The producer goes on writing to one topic, a record every 10 ms: about 50 KB/s, so a
            // switch every third of a second, each of which may start a sweep for idle topics.
            Cluster today = cluster("tenant-today");
            for (long waited = 0; waited < WAIT_MS; waited += 10) {
                partitioner.partition("tenant-today", null, null, null, value, today);
                Thread.sleep(10);
            }
            long idle = usedAfterGc() - baseline;
            int metricsIdle = metrics.metrics().size() - metricsBefore;

            System.out.printf("%d topics, each with its own Cluster of %d partitions, %d records of %d bytes each%n",
                    TOPICS, PARTITIONS, RECORDS_PER_TOPIC, value.length);
            System.out.printf("retained after writing:            %,10d bytes = %,6d bytes per topic, %,6d metrics%n",
                    written, written / TOPICS, metricsWritten);
            System.out.printf("retained %d ms later (idle %d ms): %,10d bytes = %,6d bytes per topic, %,6d metrics%n",
                    WAIT_MS, IDLE_MS, idle, idle / TOPICS, metricsIdle);
            partitioner.close();
        }
    }

    private static long usedAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** A Cluster as a producer's metadata would hold it for one topic: 3 brokers, replication factor 3. */
    private static Cluster cluster(String topic) {
        List<Node> nodes = List.of(new Node(0, "broker-0", 9092), new Node(1, "broker-1", 9092), new Node(2, "broker-2", 9092));
        List<PartitionInfo> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            Node[] replicas = {nodes.get(p % 3), nodes.get((p + 1) % 3), nodes.get((p + 2) % 3)};
            partitions.add(new PartitionInfo(topic, p, replicas[0], replicas, replicas));
        }
        return new Cluster("kscale-memory", nodes, partitions, Set.of(), Set.of());
    }
}
