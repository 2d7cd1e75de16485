package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.assertCollected;
import static io.kscale.partitioner.StickyFixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, "the partitioner never forgets a topic": a producer writing to 5,000 topics, each seen
 * with its own {@link Cluster}, kept every snapshot and two metrics per topic after the topics went
 * idle, so producers of rotating or per-tenant topics grew without bound. A topic's state and its
 * metrics must go once it has been idle for {@code metadata.max.idle.ms}, when the producer itself
 * forgets the topic, and the partitioner must never keep a {@code Cluster} reachable.
 */
class IdleTopicEvictionTest {

    private static final int TOPICS = 5_000;
    /** {@code metadata.max.idle.ms} unless set: Kafka's default. */
    private static final long IDLE_MS = 300_000;
    /** The partitioner sweeps for idle topics at most every tenth of the idle time. */
    private static final long SWEEP_MS = IDLE_MS / 10;
    private static final byte[] VALUE = new byte[100];

    private final ManualTime time = new ManualTime();
    private Metrics metrics;
    private PluginMetricsImpl pluginMetrics;
    private UniformStickyBytesPartitioner partitioner;

    @BeforeEach
    void start() {
        metrics = new Metrics();
        pluginMetrics = new PluginMetricsImpl(metrics, Map.of("config", "partitioner.class"));
        partitioner = partitioner(Map.of());
    }

    @AfterEach
    void stop() throws Exception {
        partitioner.close();
        pluginMetrics.close();
        metrics.close();
    }

    private UniformStickyBytesPartitioner partitioner(Map<String, ?> configs) {
        UniformStickyBytesPartitioner created = new UniformStickyBytesPartitioner(new SplittableRandom(11), TopicStickiness.SwitchListener.NONE, time);
        created.configure(configs);
        created.withPluginMetrics(pluginMetrics);
        return created;
    }

    private int send(String topic, Cluster cluster) {
        return partitioner.partition(topic, null, null, null, VALUE, cluster);
    }

    /** Topics that have metrics in the registry, with how many each. */
    private Map<String, Long> topicsWithMetrics() {
        return metrics.metrics().keySet().stream()
                .map(MetricName::tags)
                .filter(tags -> tags.containsKey("topic"))
                .collect(Collectors.groupingBy(tags -> tags.get("topic"), Collectors.counting()));
    }

    /** Writes a few records to each of {@value #TOPICS} topics, each through its own Cluster, and lets go of the Clusters. */
    private List<WeakReference<Cluster>> writeToRotatingTopics() {
        List<WeakReference<Cluster>> clusters = new ArrayList<>();
        for (int i = 0; i < TOPICS; i++) {
            String topic = "tenant-" + i;
            Cluster cluster = cluster(topic, 6);
            for (int record = 0; record < 3; record++) {
                send(topic, cluster);
            }
            clusters.add(new WeakReference<>(cluster));
        }
        return clusters;
    }

    @Test
    void shouldForgetTopicsIdleForMetadataMaxIdleMsWithTheirMetrics() throws InterruptedException {
        writeToRotatingTopics();
        List<WeakReference<TopicStickiness>> states = new ArrayList<>();
        for (int i = 0; i < TOPICS; i++) {
            states.add(new WeakReference<>(partitioner.stickiness("tenant-" + i)));
        }
        assertThat(partitioner.topicCount()).isEqualTo(TOPICS);
        assertThat(topicsWithMetrics()).hasSize(TOPICS).containsEntry("tenant-0", 2L);

        // The producer goes on writing to one topic, seeing new metadata every sweep interval. The
        // partitioner reads no clock per record, so it learns when a topic went quiet only from
        // sweeps: a topic is forgotten between IDLE_MS and IDLE_MS + 2 * SWEEP_MS after its last record.
        for (long elapsed = 0; elapsed < IDLE_MS + 2 * SWEEP_MS; elapsed += SWEEP_MS) {
            time.advanceMs(SWEEP_MS);
            send("tenant-today", cluster("tenant-today", 6));
        }

        assertThat(partitioner.topicCount()).as("topics with state after the idle time").isEqualTo(1);
        assertThat(partitioner.stickiness("tenant-0")).isNull();
        assertThat(topicsWithMetrics()).as("per-topic metrics").containsExactly(Map.entry("tenant-today", 2L));
        assertCollected(states, "states of forgotten topics");
    }

    @Test
    void shouldNotKeepAnyClusterReachable() throws InterruptedException {
        List<WeakReference<Cluster>> clusters = writeToRotatingTopics();

        // Before any topic is idle: the state is kept, but a Cluster the producer has replaced is not.
        assertCollected(clusters, "Clusters the producer no longer holds");
        assertThat(partitioner.topicCount()).isEqualTo(TOPICS);
    }

    @Test
    void shouldKeepATopicUntilItHasBeenIdleForTheWholeIdleTime() {
        Cluster events = cluster("events", 6);
        send("events", events);
        TopicStickiness before = partitioner.stickiness("events");

        time.advanceMs(IDLE_MS - 1);
        send("new-topic-1", cluster("new-topic-1", 6));
        assertThat(partitioner.stickiness("events")).as("idle for 1 ms less than metadata.max.idle.ms").isSameAs(before);

        time.advanceMs(SWEEP_MS);
        send("new-topic-2", cluster("new-topic-2", 6));
        assertThat(partitioner.stickiness("events")).as("idle for the whole time, at the next sweep").isNull();
    }

    @Test
    void shouldKeepTopicsThatAreStillWrittenTo() {
        Cluster busyCluster = cluster("busy", 6);
        send("busy", busyCluster);
        send("quiet", cluster("quiet", 6));
        TopicStickiness busy = partitioner.stickiness("busy");

        for (int step = 1; step <= 10; step++) {
            time.advanceMs(IDLE_MS / 4);
            // One record per step: no switch (N is 16384 bytes) and no new metadata, so only the sweep can tell it was written to.
            send("busy", busyCluster);
            send("rotating-" + step, cluster("rotating-" + step, 6));
        }

        assertThat(partitioner.stickiness("busy")).as("state of a topic written every quarter of the idle time").isSameAs(busy);
        assertThat(busy.switchCount()).isZero();
        assertThat(partitioner.stickiness("quiet")).isNull();
        assertThat(topicsWithMetrics()).containsKey("busy").doesNotContainKey("quiet");
    }

    @Test
    void shouldSweepFromTheSwitchesOfABusyTopic() {
        partitioner.close();
        partitioner = partitioner(Map.of(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, 100));
        Cluster busy = cluster("busy", 6);
        send("busy", busy);
        send("quiet", cluster("quiet", 6));

        time.advanceMs(IDLE_MS + SWEEP_MS);
        send("busy", busy); // 121 bytes >= N: this record switches; no new topic, no new Cluster

        assertThat(partitioner.switchCount("busy")).isEqualTo(2);
        assertThat(partitioner.stickiness("quiet")).isNull();
        assertThat(topicsWithMetrics()).containsOnlyKeys("busy");
    }

    @Test
    void shouldSweepWhenTheMetadataChanges() {
        send("busy", cluster("busy", 6));
        send("quiet", cluster("quiet", 6));

        time.advanceMs(IDLE_MS + SWEEP_MS);
        send("busy", cluster("busy", 6)); // a metadata update: a new Cluster instance, no switch

        assertThat(partitioner.switchCount("busy")).isZero();
        assertThat(partitioner.stickiness("quiet")).isNull();
        assertThat(topicsWithMetrics()).containsOnlyKeys("busy");
    }

    @Test
    void shouldStartAFreshStateWhenAForgottenTopicReturns() {
        Cluster events = cluster("events", 6);
        send("events", events);
        TopicStickiness forgotten = partitioner.stickiness("events");
        time.advanceMs(IDLE_MS);
        send("other", cluster("other", 6));
        assertThat(partitioner.stickiness("events")).isNull();

        assertThat(send("events", events)).isBetween(0, 5);

        assertThat(partitioner.stickiness("events")).isNotNull().isNotSameAs(forgotten);
        assertThat(topicsWithMetrics()).containsEntry("events", 2L).containsEntry("other", 2L).hasSize(2);
    }

    @Test
    void shouldTakeTheIdleTimeFromTheProducersMetadataMaxIdleMs() {
        partitioner.close();
        Map<String, Object> configs = new HashMap<>();
        configs.put(ProducerConfig.METADATA_MAX_IDLE_CONFIG, "60000");
        partitioner = partitioner(configs);
        send("events", cluster("events", 6));

        time.advanceMs(60_000);
        send("other", cluster("other", 6));

        assertThat(partitioner.stickiness("events")).as("idle for metadata.max.idle.ms=60000").isNull();
    }
}
