package io.kscale.partitioner;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Measurable;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Monitorable;
import org.apache.kafka.common.metrics.PluginMetrics;
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
 *   <li>Broker by broker: a round visits the partitions of one leader one after another, so a
 *       switch in the middle of a burst of records usually keeps the burst on one broker, in one
 *       produce request (see {@link StickyRound}).
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
 * partition, to keep their number small. {@link #close} removes them. Neither registering nor
 * removing them makes {@link #partition} wait or throw: a new topic's metrics are registered by
 * the thread that holds the housekeeping (never waited for), and a metric the registry refuses is
 * logged and left out.
 *
 * <h2>Topics that go idle</h2>
 * A topic that received no record without a key for {@code metadata.max.idle.ms} (the producer's
 * own setting, 300000 ms unless set) is forgotten, with its two metrics: the producer drops such a
 * topic from its metadata at that point too. Producers that write to rotating or per-tenant topics
 * (daily topics, Connect, mirroring) thus keep state only for the topics they write to now. If a
 * forgotten topic gets records again, it starts afresh, as on first sight: a new shuffled round,
 * carries at zero. No metadata snapshot ({@code Cluster}) is kept beyond the producer's own use of
 * it: the partition view cached per {@code Cluster} refers to it only weakly.
 *
 * <p>Finding idle topics costs nothing per record: no clock is read and nothing is written. A sweep
 * over all topics runs at most once per tenth of the idle time, started by the rare events of the
 * unkeyed path: a topic's first record, the first record after a metadata update, and a switch
 * (once per N bytes), always after the record is placed. A sweep knows only whether a topic's open
 * stint moved since the previous sweep, so it dates a topic's last record no earlier than itself:
 * a topic is never forgotten early. While unkeyed records keep coming it is forgotten between
 * {@code metadata.max.idle.ms} and about 1.2 times that after its last record. Example, idle time
 * 300 s: a topic's last record at 0 s, a sweep at 10 s sees its stint moved (active at 10 s), sweeps
 * at 40 s ... 280 s see it unchanged, the sweep at 310 s forgets it. After a pause without any such
 * event, the first sweep dates the records since the previous one to itself, and a sweep one idle
 * time later forgets those topics.
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

    /**
     * Sweeps for idle topics per idle time: one sweep over all topics every 30 s by default, and a
     * topic forgotten at most two sweep intervals late (one to see its last records, one to find it
     * idle long enough), plus the wait for a sweep's trigger.
     */
    static final int SWEEPS_PER_IDLE_TIME = 10;

    private static final Logger log = LoggerFactory.getLogger(UniformStickyBytesPartitioner.class);

    private final ConcurrentHashMap<String, TopicState> topics = new ConcurrentHashMap<>();
    /** Source of one seed per topic; guarded by itself, used only when a topic is first seen. */
    private final SplittableRandom seeds;
    private final TopicStickiness.SwitchListener switches;
    private final MonotonicClock clock;
    /**
     * Guards metric registration and removal, sweeps, and the bookkeeping fields of each
     * {@link TopicState}; never taken per record. {@link #partition} only tries it, so a record
     * never waits for a sweep; {@link #close} and {@link #withPluginMetrics} wait.
     */
    private final ReentrantLock housekeeping = new ReentrantLock();
    /**
     * New topics whose metrics are not registered yet: whoever holds {@link #housekeeping} next
     * registers them, and a holder looks again after letting go (see {@link #housekeepIfDue}), so
     * none is left waiting for a later trigger.
     */
    private final ConcurrentLinkedQueue<TopicState> unregistered = new ConcurrentLinkedQueue<>();
    /** When the next sweep is due, on {@link #clock}. */
    private volatile long nextSweepMs;
    private volatile PluginMetrics pluginMetrics;

    // Written by configure(), before the producer calls partition(); the producer publishes the
    // partitioner through a final field, so plain fields are visible to its sending threads.
    private long stickyBytes = UniformStickyBytesPartitionerConfig.PRODUCER_BATCH_SIZE_DEFAULT;
    private boolean ignoreKeys = UniformStickyBytesPartitionerConfig.IGNORE_KEYS_DEFAULT;
    private long idleMs = UniformStickyBytesPartitionerConfig.PRODUCER_METADATA_MAX_IDLE_MS_DEFAULT;
    private long sweepIntervalMs = idleMs / SWEEPS_PER_IDLE_TIME;

    /** Creates the partitioner; the producer then calls {@link #configure}. */
    public UniformStickyBytesPartitioner() {
        this(new SplittableRandom(), TopicStickiness.SwitchListener.NONE, MonotonicClock.SYSTEM);
    }

    /**
     * For tests: seeded shuffles and a switch listener.
     *
     * @param seeds source of each topic's seed
     * @param listener told about every switch, on the switching thread
     */
    UniformStickyBytesPartitioner(SplittableRandom seeds, TopicStickiness.SwitchListener listener) {
        this(seeds, listener, MonotonicClock.SYSTEM);
    }

    /**
     * For tests: seeded shuffles, a switch listener and a clock.
     *
     * @param seeds source of each topic's seed
     * @param listener told about every switch, on the switching thread
     * @param clock the clock of the idle-topic sweeps
     */
    UniformStickyBytesPartitioner(SplittableRandom seeds, TopicStickiness.SwitchListener listener, MonotonicClock clock) {
        this.seeds = seeds;
        this.switches = new SweepAfterSwitch(listener);
        this.clock = clock;
        this.nextSweepMs = clock.millis();
    }

    /**
     * Reads {@code partitioner.sticky.batch.size}, {@code batch.size}, {@code partitioner.ignore.keys}
     * and {@code metadata.max.idle.ms} from the producer's settings.
     *
     * @throws org.apache.kafka.common.config.ConfigException if a value is invalid
     */
    @Override
    public void configure(Map<String, ?> configs) {
        UniformStickyBytesPartitionerConfig config = new UniformStickyBytesPartitionerConfig(configs);
        this.stickyBytes = config.stickyBytes();
        this.ignoreKeys = config.ignoreKeys();
        this.idleMs = config.metadataMaxIdleMs();
        this.sweepIntervalMs = idleMs / SWEEPS_PER_IDLE_TIME;
        log.info("Switching partition every {} bytes, forgetting topics idle for {} ms ({})", stickyBytes, idleMs, config);
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
            return Murmur2.partition(keyBytes, partitionCount(topic, cluster));
        }
        long recordBytes = RECORD_OVERHEAD_BYTES
                + (keyBytes == null ? 0L : keyBytes.length)
                + (valueBytes == null ? 0L : valueBytes.length);
        TopicState state = topics.get(topic);
        if (state != null) {
            PartitionView view = state.viewIfCurrent(cluster);
            if (view != null) {
                return state.stickiness.partition(recordBytes, view);
            }
        }
        return partitionOnNewMetadata(topic, state, recordBytes, cluster);
    }

    /** Forgets all per-topic state and removes the per-topic metrics from the producer's registry. */
    @Override
    public void close() {
        housekeeping.lock();
        try {
            for (TopicState state : topics.values()) {
                removeMetrics(state);
            }
            topics.clear();
            unregistered.clear();
            // Let go of the producer's registry, and register nothing in it should a record still come.
            pluginMetrics = null;
        } finally {
            housekeeping.unlock();
        }
    }

    /**
     * Registers the per-topic metrics, for topics seen so far and from now on.
     *
     * @param metrics the producer's metrics for this plug-in
     */
    @Override
    public void withPluginMetrics(PluginMetrics metrics) {
        housekeeping.lock();
        try {
            this.pluginMetrics = metrics;
            for (TopicState state : topics.values()) {
                registerMetrics(state);
            }
        } finally {
            housekeeping.unlock();
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

    /** The cached view of {@code topic} in {@code cluster}, or null if none is cached (for tests). */
    PartitionView cachedView(String topic, Cluster cluster) {
        TopicState state = topics.get(topic);
        return state == null ? null : state.viewIfCurrent(cluster);
    }

    /** The algorithm behind {@code topic}, or null if it was never seen or was forgotten (for tests). */
    TopicStickiness stickiness(String topic) {
        TopicState state = topics.get(topic);
        return state == null ? null : state.stickiness;
    }

    /**
     * The unkeyed path's rare case: the first record of a topic (no {@code known} state), or the
     * first since the producer's metadata changed. Places the record first, then does what must not
     * run per record: registering a new topic's metrics, and a sweep if one is due; both only if
     * no other thread holds the housekeeping (that thread then does them).
     */
    private int partitionOnNewMetadata(String topic, TopicState known, long recordBytes, Cluster cluster) {
        long now = clock.millis();
        TopicState state = known != null ? known : topics.computeIfAbsent(topic, t -> newTopicState(t, cluster, now));
        int partition = state.stickiness.partition(recordBytes, state.view(cluster));
        if (known == null) {
            unregistered.add(state);
        }
        housekeepIfDue(now);
        return partition;
    }

    private TopicState newTopicState(String topic, Cluster cluster, long now) {
        PartitionView view = viewOf(topic, cluster);
        long seed;
        synchronized (seeds) {
            seed = seeds.nextLong();
        }
        return new TopicState(topic, new TopicStickiness(stickyBytes, seed, view, switches), cluster, view, now);
    }

    /**
     * Registers the metrics of new topics, and forgets the topics idle for {@link #idleMs} if a
     * sweep is due; unless another thread holds the housekeeping lock, which then does both: it
     * looks for new topics again after letting go, so a topic queued while it held the lock is
     * registered by it or by the queuing thread. Never waits, never throws: it runs after a record
     * was placed, inside the caller's {@code send()}.
     */
    private void housekeepIfDue(long now) {
        while ((!unregistered.isEmpty() || now - nextSweepMs >= 0) && housekeeping.tryLock()) {
            try {
                for (TopicState state; (state = unregistered.poll()) != null; ) {
                    // Its first record was placed before it was queued: a clock read now dates that
                    // record no earlier than it came (this thread's `now` may be older), so the topic
                    // is never forgotten early.
                    state.markActive(clock.millis());
                    registerMetrics(state);
                }
                if (now - nextSweepMs >= 0) {
                    nextSweepMs = now + sweepIntervalMs;
                    forgetIdleTopics(now);
                }
            } finally {
                housekeeping.unlock();
            }
        }
    }

    private void forgetIdleTopics(long now) {
        int forgotten = 0;
        for (TopicState state : topics.values()) {
            if (state.idleFor(idleMs, now) && topics.remove(state.topic, state)) {
                removeMetrics(state);
                forgotten++;
            }
        }
        if (forgotten > 0) {
            log.debug("Forgot {} topics without records for {} ms ({}); {} remain",
                    forgotten, idleMs, ProducerConfig.METADATA_MAX_IDLE_CONFIG, topics.size());
        }
    }

    /**
     * Registers the metrics of {@code state} unless they are registered or the topic was forgotten.
     * Caller holds the lock. Never throws (see {@link #addMetric}): a metric the registry refuses
     * is left out and logged.
     */
    private void registerMetrics(TopicState state) {
        PluginMetrics metrics = pluginMetrics;
        if (metrics == null || !state.metricNames.isEmpty() || topics.get(state.topic) != state) {
            return;
        }
        LinkedHashMap<String, String> tags = new LinkedHashMap<>();
        tags.put("topic", state.topic);
        TopicStickiness stickiness = state.stickiness;
        List<MetricName> added = new ArrayList<>(2);
        try {
            added.add(addMetric(metrics, metrics.metricName(SWITCH_TOTAL_METRIC,
                    "Number of times the partitioner switched to another partition of the topic", tags),
                    (Measurable) (config, now) -> stickiness.switchCount()));
            added.add(addMetric(metrics, metrics.metricName(CURRENT_PARTITION_METRIC,
                    "The partition records of the topic without a key go to now", tags),
                    (Gauge<Integer>) (config, now) -> stickiness.currentPartition()));
        } catch (RuntimeException e) {
            // The registry is closing (the producer closes it right after the partitioner), say.
            log.warn("Could not register the partitioner's metrics of topic {}; it goes without them", state.topic, e);
        }
        state.metricNames = List.copyOf(added);
    }

    /**
     * Adds one metric to the producer's registry, replacing one of the same name if there is one:
     * a metric of an earlier state of the topic that the registry refused to remove when the topic
     * was forgotten (see {@link #removeMetrics}).
     *
     * @return {@code name}
     */
    private static MetricName addMetric(PluginMetrics metrics, MetricName name, MetricValueProvider<?> value) {
        try {
            metrics.addMetric(name, value);
        } catch (IllegalArgumentException alreadyThere) {
            metrics.removeMetric(name);
            metrics.addMetric(name, value);
        }
        return name;
    }

    /**
     * Removes the metrics of {@code state}. Caller holds the lock. A registry that refuses (the
     * producer closes it right after the partitioner) is logged, not thrown: a sweep runs after a
     * record was placed, inside the caller's {@code send()}. A metric left behind so is replaced
     * if the topic comes back (see {@link #addMetric}).
     */
    private void removeMetrics(TopicState state) {
        PluginMetrics metrics = pluginMetrics;
        if (metrics != null) {
            for (MetricName name : state.metricNames) {
                try {
                    metrics.removeMetric(name);
                } catch (RuntimeException e) {
                    log.debug("Could not remove metric {}", name, e);
                }
            }
        }
        state.metricNames = List.of();
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
        int[] leaders = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            PartitionInfo info = available.get(i);
            ids[i] = info.partition();
            leaders[i] = info.leader() == null ? PartitionView.UNKNOWN_LEADER : info.leader().id();
        }
        PartitionView view = PartitionView.withLeaders(partitionCount, ids, leaders);
        if (view.noneHadLeader()) {
            log.debug("No partition of topic {} has a leader; using all {} partitions", topic, partitionCount);
        }
        return view;
    }

    /** Passes every switch to the test listener, then sweeps if due: the trigger that keeps a busy producer sweeping. */
    private final class SweepAfterSwitch implements TopicStickiness.SwitchListener {
        private final TopicStickiness.SwitchListener listener;

        SweepAfterSwitch(TopicStickiness.SwitchListener listener) {
            this.listener = listener;
        }

        @Override
        public void onSwitch(Stint closed, Stint next) {
            listener.onSwitch(closed, next);
        }

        @Override
        public void afterSwitch() {
            housekeepIfDue(clock.millis());
        }
    }
}
