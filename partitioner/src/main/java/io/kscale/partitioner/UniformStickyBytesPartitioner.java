package io.kscale.partitioner;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.Monitorable;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A producer partitioner that sticks to one partition per topic until N bytes were produced to it,
 * then switches, so that every partition receives the same number of bytes at every moment, not
 * just on average. Enable it with
 * {@code partitioner.class=io.kscale.partitioner.UniformStickyBytesPartitioner}.
 *
 * <h2>Behaviour</h2>
 * <ul>
 *   <li>Records without a key, or every record when {@code partitioner.ignore.keys=true}: sticky by
 *       bytes. N is {@code partitioner.sticky.batch.size}, or {@code batch.size} when that is 0 (the
 *       default); see {@link UniformStickyBytesPartitionerConfig}. A record counts its serialized key
 *       and value plus {@value #RECORD_OVERHEAD_BYTES} bytes of framing.
 *   <li>Strictly uniform: with R the largest record so far, the byte totals of any two partitions
 *       that had a leader throughout differ by less than {@code 2 (N + R)} at every moment (by less
 *       than {@code N + R} when no record exceeds N). Partitions take turns in shuffled rounds and
 *       each stint's overshoot shortens that partition's next stint.
 *   <li>Partitions without a leader are skipped (all are used if none has one), and a partition
 *       whose leader returns gets one stint per round, not the backlog it missed. A stint ends at
 *       once if its partition loses its leader.
 *   <li>More partitions: the new ones join from the next switch on. A partition at or beyond the
 *       count in the metadata the producer passes is never returned.
 *   <li>Records with a key (unless keys are ignored): {@code toPositive(murmur2(keyBytes)) %
 *       numPartitions} over all partitions, exactly Kafka's default, so adopting this partitioner
 *       moves no key.
 * </ul>
 *
 * <p>Why: the sticky partitioner of KIP-480 switched on every new batch, so a slow broker, whose
 * batches fill up longer, received more data. KIP-794 proposed switching after a fixed number of
 * bytes instead; Kafka's built-in partitioner does that with N fixed to {@code batch.size} and a
 * random next partition, which keeps totals uniform only in expectation. This class makes N a
 * setting of its own and removes the randomness from the totals.
 *
 * <h2>Threads and metrics</h2>
 * {@link #partition} is safe for concurrent use, lock-free and allocation-free per record in steady
 * state. As a {@link Monitorable}, the partitioner registers two metrics per topic in the
 * producer's registry (group {@code plugins}, tag {@code topic}): {@value #SWITCH_TOTAL_METRIC}
 * and {@value #CURRENT_PARTITION_METRIC}. The metrics are deliberately per topic, not per
 * partition, to keep their number small.
 *
 * @see <a href="https://cwiki.apache.org/confluence/display/KAFKA/KIP-794%3A+Strictly+Uniform+Sticky+Partitioner">KIP-794</a>
 */
public final class UniformStickyBytesPartitioner implements Partitioner, Monitorable {

    /**
     * Bytes counted per record on top of its serialized key and value: the largest framing of a
     * record in a v2 record batch (Kafka's {@code DefaultRecord.MAX_RECORD_OVERHEAD}: varints for
     * length, timestamp delta, offset delta, key and value lengths and header count, plus the
     * attributes byte). A partitioner sees neither headers nor the batch, so it cannot know the real
     * framing, which is smaller for small records; using a fixed upper bound keeps empty and tiny
     * records from being free, and shifts every partition's total by the same amount per record.
     */
    static final int RECORD_OVERHEAD_BYTES = 21;

    static final String SWITCH_TOTAL_METRIC = "sticky-partition-switch-total";
    static final String CURRENT_PARTITION_METRIC = "sticky-partition";

    private static final Logger log = LoggerFactory.getLogger(UniformStickyBytesPartitioner.class);

    private final ConcurrentHashMap<String, TopicState> topics = new ConcurrentHashMap<>();
    /** Source of one seed per topic; guarded by itself, used only when a topic is first seen. */
    private final SplittableRandom seeds;
    private final TopicStickiness.SwitchListener listener;
    private final Time time;
    private volatile PluginMetrics pluginMetrics;

    // Written by configure(), before the producer calls partition(); the producer publishes the
    // partitioner through a final field, so plain fields are visible to its sending threads.
    private long stickyBytes = UniformStickyBytesPartitionerConfig.PRODUCER_BATCH_SIZE_DEFAULT;
    private boolean ignoreKeys = UniformStickyBytesPartitionerConfig.IGNORE_KEYS_DEFAULT;

    /** Creates the partitioner; the producer then calls {@link #configure}. */
    public UniformStickyBytesPartitioner() {
        this(new SplittableRandom(), TopicStickiness.SwitchListener.NONE, Time.SYSTEM);
    }

    /**
     * For tests: seeded shuffles and a switch listener.
     *
     * @param seeds source of each topic's seed
     * @param listener told about every switch, on the switching thread
     */
    UniformStickyBytesPartitioner(SplittableRandom seeds, TopicStickiness.SwitchListener listener) {
        this(seeds, listener, Time.SYSTEM);
    }

    /**
     * For tests: seeded shuffles, a switch listener and a clock.
     *
     * @param seeds source of each topic's seed
     * @param listener told about every switch, on the switching thread
     * @param time the clock
     */
    UniformStickyBytesPartitioner(SplittableRandom seeds, TopicStickiness.SwitchListener listener, Time time) {
        this.seeds = seeds;
        this.listener = listener;
        this.time = time;
    }

    /**
     * Reads {@code partitioner.sticky.batch.size}, {@code batch.size} and
     * {@code partitioner.ignore.keys} from the producer's settings.
     *
     * @throws org.apache.kafka.common.config.ConfigException if a value is invalid
     */
    @Override
    public void configure(Map<String, ?> configs) {
        UniformStickyBytesPartitionerConfig config = new UniformStickyBytesPartitionerConfig(configs);
        this.stickyBytes = config.stickyBytes();
        this.ignoreKeys = config.ignoreKeys();
        log.info("Switching partition every {} bytes ({})", stickyBytes, config);
    }

    /**
     * Returns the partition of a record: by key as Kafka does, or sticky by bytes.
     *
     * @throws IllegalStateException if {@code cluster} lists no partition of {@code topic} (the
     *     producer only calls a partitioner once it has the topic's metadata)
     */
    @Override
    public int partition(String topic, Object key, byte[] keyBytes, Object value, byte[] valueBytes, Cluster cluster) {
        if (keyBytes != null && !ignoreKeys) {
            return Utils.toPositive(Utils.murmur2(keyBytes)) % partitionCount(topic, cluster);
        }
        long recordBytes = RECORD_OVERHEAD_BYTES
                + (keyBytes == null ? 0L : keyBytes.length)
                + (valueBytes == null ? 0L : valueBytes.length);
        TopicState state = topics.get(topic);
        if (state == null) {
            state = newTopicState(topic, cluster);
        }
        return state.stickiness.partition(recordBytes, state.view(cluster));
    }

    /** Forgets all per-topic state. Metrics registered through {@link #withPluginMetrics} are removed by their owner. */
    @Override
    public void close() {
        topics.clear();
    }

    /**
     * Registers the per-topic metrics, for topics seen so far and from now on.
     *
     * @param metrics the producer's metrics for this plug-in
     */
    @Override
    public void withPluginMetrics(PluginMetrics metrics) {
        this.pluginMetrics = metrics;
        for (TopicState state : topics.values()) {
            registerMetrics(state);
        }
    }

    /** Switches so far for {@code topic}, 0 if it was never seen (for tests). */
    long switchCount(String topic) {
        TopicState state = topics.get(topic);
        return state == null ? 0 : state.stickiness.switchCount();
    }

    /** Number of topics with sticky state (for tests). */
    int topicCount() {
        return topics.size();
    }

    /** The algorithm behind {@code topic}, or null if it was never seen (for tests). */
    TopicStickiness stickiness(String topic) {
        TopicState state = topics.get(topic);
        return state == null ? null : state.stickiness;
    }

    private TopicState newTopicState(String topic, Cluster cluster) {
        TopicState state = topics.computeIfAbsent(topic, t -> {
            PartitionView view = viewOf(t, cluster);
            long seed;
            synchronized (seeds) {
                seed = seeds.nextLong();
            }
            return new TopicState(t, new TopicStickiness(stickyBytes, seed, view, listener), cluster, view);
        });
        registerMetrics(state);
        return state;
    }

    private void registerMetrics(TopicState state) {
        PluginMetrics metrics = pluginMetrics;
        if (metrics == null || !state.metricsRegistered.compareAndSet(false, true)) {
            return;
        }
        LinkedHashMap<String, String> tags = new LinkedHashMap<>();
        tags.put("topic", state.topic);
        TopicStickiness stickiness = state.stickiness;
        metrics.addMetric(metrics.metricName(SWITCH_TOTAL_METRIC,
                        "Number of times the partitioner switched to another partition of the topic", tags),
                (Measurable) (config, now) -> stickiness.switchCount());
        metrics.addMetric(metrics.metricName(CURRENT_PARTITION_METRIC,
                        "The partition records of the topic without a key go to now", tags),
                (Gauge<Integer>) (config, now) -> stickiness.currentPartition());
    }

    /**
     * The number of partitions of {@code topic} in {@code cluster}.
     *
     * @throws IllegalStateException if there are none (the producer only calls a partitioner once it
     *     has the topic's metadata)
     */
    private static int partitionCount(String topic, Cluster cluster) {
        int partitionCount = cluster.partitionsForTopic(topic).size();
        if (partitionCount == 0) {
            throw new IllegalStateException("No partitions of topic " + topic + " in the cluster metadata");
        }
        return partitionCount;
    }

    /**
     * What the sticky algorithm may know about {@code topic} in {@code cluster}; built once per
     * {@code Cluster} instance (see {@link TopicState#view}).
     *
     * @throws IllegalStateException if {@code cluster} lists no partition of {@code topic}
     */
    static PartitionView viewOf(String topic, Cluster cluster) {
        int partitionCount = partitionCount(topic, cluster);
        List<PartitionInfo> available = cluster.availablePartitionsForTopic(topic);
        int[] ids = new int[available.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = available.get(i).partition();
        }
        PartitionView view = PartitionView.of(partitionCount, ids);
        if (view.noneHadLeader()) {
            log.debug("No partition of topic {} has a leader; using all {} partitions", topic, partitionCount);
        }
        return view;
    }

    /** Per-topic state: the algorithm plus the partition view of the last {@link Cluster} seen. */
    private static final class TopicState {
        final String topic;
        final TopicStickiness stickiness;
        final AtomicBoolean metricsRegistered = new AtomicBoolean();
        private volatile CachedView cached;

        TopicState(String topic, TopicStickiness stickiness, Cluster cluster, PartitionView view) {
            this.topic = topic;
            this.stickiness = stickiness;
            this.cached = new CachedView(cluster, view);
        }

        /**
         * The view of {@code cluster}. The producer passes the same {@code Cluster} instance until
         * its metadata changes, so an identity check makes this free per record.
         */
        PartitionView view(Cluster cluster) {
            CachedView last = cached;
            if (last.cluster == cluster) {
                return last.view;
            }
            PartitionView view = viewOf(topic, cluster);
            cached = new CachedView(cluster, view);
            return view;
        }
    }

    private static final class CachedView {
        final Cluster cluster;
        final PartitionView view;

        CachedView(Cluster cluster, PartitionView view) {
            this.cluster = cluster;
            this.view = view;
        }
    }
}
