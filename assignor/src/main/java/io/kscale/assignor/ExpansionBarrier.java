package io.kscale.assignor;

import io.kscale.assignor.internals.barrier.BarrierMetrics;
import io.kscale.assignor.internals.barrier.MergedRecords;
import io.kscale.assignor.internals.barrier.PartitionClock;
import io.kscale.assignor.internals.barrier.ReleaseCause;
import io.kscale.assignor.internals.barrier.TaskMerge;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.lifecycle.ConsumerCloseWatch;
import io.kscale.assignor.internals.member.MemberLayouts;
import io.kscale.assignor.internals.store.StoreClients;
import io.kscale.assignor.internals.store.TaskCountTopicReader;
import io.kscale.assignor.internals.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each key's records in order across a partition expansion, on the consumer side: poll
 * through the barrier instead of the consumer.
 * <pre>{@code
 * try (KafkaConsumer<String, Order> consumer = new KafkaConsumer<>(consumerConfig);
 *      ExpansionBarrier<String, Order> barrier = ExpansionBarrier.wrap(consumer, consumerConfig)) { // kscale.barrier.* keys
 *     consumer.subscribe(List.of("orders"));
 *     while (running) {
 *         ConsumerRecords<String, Order> records = barrier.poll(Duration.ofMillis(100));
 *         for (ConsumerRecord<String, Order> record : records) { ... }   // in this iteration order
 *         consumer.commitSync();                                          // or auto-commit: safe either way
 *     }
 * } // closes the barrier, then the consumer
 * }</pre>
 *
 * <p><b>The problem.</b> With {@link KeyPreservingAssignor} a topic has a fixed task count T
 * and task {@code t} holds every partition {@code p} with {@code p % T == t}, all on one
 * consumer. When the topic grows from {@code n} to a multiple of {@code n} partitions, the keys
 * of partition {@code p} split between {@code p} and its children {@code c} ({@code c % n == p}).
 * A producer keeps sending a key to the parent until its next metadata refresh
 * ({@code metadata.max.age.ms}, 5 minutes by default), then to the child; producers refresh at
 * different times, so for a while the parent and the child both receive the key. The consumer
 * fetches the two partitions independently and may return the child's newer records first.
 * Offsets of two partitions cannot be compared; record timestamps can, so timestamps decide.
 *
 * <p><b>The rule</b> is the event-time merge Kafka Streams applies to co-partitioned inputs
 * ({@code max.task.idle.ms}, KIP-353), applied to the partitions of each task on this consumer:
 * a record with timestamp {@code ts} from partition {@code p} is returned only when every other
 * partition {@code q} of its task has passed {@code ts}: {@code q} has a fetched or held record
 * with a later timestamp, or its last returned record has one, or {@code q} has nothing more to
 * read now ({@link Consumer#currentLag} is 0) and {@code ts <= now - grace}. At equal timestamps
 * the lower partition goes first (a key only moves to higher partitions). Records of a partition
 * stay in offset order. {@code grace} is {@value ExpansionBarrierConfig#GRACE_MS_CONFIG}. Tasks
 * with a single partition here, topics the layout does not cover (a topic whose partition count
 * equals T has one partition per task) and consumers without a layout pass records through
 * untouched and at once.
 *
 * <p><b>On {@code group.protocol=consumer}</b> (KIP-848) the brokers assign partitions, with
 * {@code io.kscale.assignor.KeyPreservingServerAssignor}, and the assignment carries no userData:
 * the task layout cannot come with it. The barrier reads T instead where those brokers keep it,
 * the task count topic ({@value ExpansionBarrierConfig#TASK_COUNT_TOPIC_CONFIG}), by topic id, on
 * a thread of its own with the consumer's connection settings, and merges as on the classic
 * protocol. A partition of a topic whose T is not read yet waits for it (sought back and paused),
 * up to max hold; then its records pass through unmerged, counted in
 * {@code unknown-task-count-releases-total}. The barrier learns the protocol and the connection
 * from the settings given to {@link #wrap(Consumer, Map)} (the consumer's own). Wrapped without
 * them, it sees no layout for an assigned partition, passes records through, and logs one WARN
 * that names both protocols' causes.
 *
 * <p><b>The bounds.</b> No wait lasts for ever; each way past the rule is counted in a metric and
 * logged as a WARN naming it (at most one WARN per cause a minute, with the count since the
 * last):
 * <ul>
 *   <li><em>Future timestamp</em>: grace counts from {@code min(ts, fetched)}, where
 *       {@code fetched} is when the barrier fetched the record. A record stamped an hour ahead
 *       (a producer clock running ahead, an event time set by the application) waits grace for
 *       caught-up siblings like any other, not an hour; and once returned it vouches for its
 *       partition only up to its fetch time. The order of that producer's records is kept:
 *       they are still compared by timestamp. Counted in {@code future-timestamp-releases-total}.</li>
 *   <li><em>Max hold</em> ({@value ExpansionBarrierConfig#MAX_HOLD_MS_CONFIG}, default 30 s): a
 *       sibling that is behind (records left to read, or lag unknown) but returns nothing for
 *       that long (its leader offline, a partition that does not exist, paused by the
 *       application, its fetches failing) no longer holds its task back, until it returns a
 *       record or is caught up again. Counted in {@code unknown-lag-releases-total} or
 *       {@code max-hold-releases-total}. Keys may then come out of order: the sibling's records,
 *       when they come, are older than what went. A sibling that keeps returning records is
 *       never skipped: the task works through its backlog in timestamp order, however long that
 *       takes. (Kafka Streams waits for such a partition without bound.)</li>
 * </ul>
 * Each counter counts the polls in which a partition returned records by that bound.
 *
 * <p><b>Hold back: buffer, seek back, pause.</b> When a partition's next record cannot go yet,
 * the barrier keeps that record and the rest of its fetch in a buffer, seeks the partition back
 * to the record and pauses it. The buffer is the partition's queue in every later merge; records
 * returned from it move the position past them, and once it is drained the barrier seeks the
 * partition to where that fetch ended and resumes it. Each of the three has a reason:
 * <ul>
 *   <li>The buffer: each record is fetched once. Dropping the rest of the fetch and fetching it
 *       again made a parent and a child that both receive records (normal after an expansion:
 *       the keys that moved go to the child, the others stay) take turns a few records at a
 *       time, one fetch round trip per turn; a group tailing 2,000 records/s fell behind for
 *       good.</li>
 *   <li>The seek back: the consumer's position is always the offset of the next record the
 *       application has not received, so auto-commit or {@code commitSync()} never commits past
 *       one ({@link ConsumerRecords#nextOffsets()} of the result says the same), and when the
 *       partition is revoked or lost the buffer is simply dropped: the new owner reads those
 *       records again.</li>
 *   <li>The pause: nothing more is fetched for the partition while its buffer holds records, so
 *       a partition's records stay in offset order and memory is bounded by one fetch per held
 *       partition.</li>
 * </ul>
 * While a buffered record may go, the barrier polls the consumer with a zero timeout, so that
 * the call does not block with records ready (it still polls, which keeps
 * {@code max.poll.interval.ms} satisfied), and otherwise with the given timeout cut short to
 * when a buffered record may go by the clock alone (grace or max hold running out). Partitions
 * the application paused stay paused; the barrier only resumes those it paused itself.
 *
 * <p><b>The application's seeks win.</b> The barrier does not wrap the consumer's other methods:
 * the application keeps calling {@code seek}, {@code seekToBeginning}, {@code seekToEnd},
 * {@code pause} and {@code resume} on the consumer itself, from an error handler or a rebalance
 * listener too. Before and after each consumer poll the barrier checks every held partition: if
 * its position is no longer the held record's offset (or is being reset), the application moved
 * it, so the barrier drops the buffer, resumes the partition and reads it from the application's
 * position; nothing of the stale buffer is returned, and the barrier never seeks it again. A
 * partition the application resumes while the barrier buffers it loses its buffer too, and is
 * fetched again from its position: the held record, unless the application moved it. A
 * partition revoked and assigned again within one poll starts afresh, its buffer dropped.
 *
 * <p><b>Worked example</b>: T = 4, the topic grown from 4 to 8 partitions, so task 1 is
 * partitions 1 (the parent) and 5 (the child). Key {@code k} (hash 21: {@code 21 % 4 == 1},
 * {@code 21 % 8 == 5}) moved; key {@code x} stayed. One producer sent {@code k#1}, {@code k#2},
 * {@code x} to partition 1, refreshed its metadata, then sent {@code k#3}, {@code k#4} to 5;
 * {@code y} reaches partition 1 after poll 2 (timestamp in ms after {@code @}, grace 1000 ms):
 * <pre>
 *   partition 1: offset 0 k#1@100, 1 k#2@105, 2 x@108, 3 y@130
 *   partition 5: offset 0 k#3@110, 1 k#4@120
 *
 *   poll  fetched             returned        afterwards
 *   1     5: k#3, k#4         -               5 held at offset 0 (@110), k#3, k#4 buffered: 1 has shown nothing as late
 *   2     1: k#1, k#2, x      k#1, k#2, x     5 still held: 1 has returned up to @108 only
 *   3     1: y                k#3, k#4        from 5's buffer (1's head @130 is later); 5 resumed at offset 2;
 *                                             1 held at offset 3 (@130), y buffered: 5 is caught up, grace not over
 *   4     -                   y               from 1's buffer, polled with a zero timeout: now is 1130 or later;
 *                                             1 resumed at offset 4
 * </pre>
 * A plain consumer returns {@code k#3, k#4} in poll 1, before {@code k#1}. Here the key's
 * records come out as {@code k#1, k#2, k#3, k#4}, each record is fetched once, and after each
 * poll the consumer's position in partitions 1 and 5 is the offset of the next record not yet
 * returned.
 *
 * <p><b>The guarantee.</b> For each producer whose clock does not go backwards and whose records
 * can be fetched by this consumer within {@code grace} of their timestamp ({@code CreateTime}),
 * the records of each key are returned in the order that producer sent them, across any number
 * of expansions that keep T (the assignor's guarantee that a key's old and new partitions are in
 * one task, on this consumer), provided the application handles each returned batch in its
 * iteration order. {@code LogAppendTime} topics work too, with the brokers' clocks as the
 * producer's: a key's records come out in the order they were appended, which is the send order
 * unless the producer had its last parent batch and its first child batch in flight at once.
 * Limits:
 * <ul>
 *   <li>A partition's next record stands for the rest of it: the merge never looks past it, not
 *       even into the partition's buffer. That holds when each partition's log is in timestamp
 *       order: one producer per partition, {@code LogAppendTime}, or producers whose records
 *       reach the log in timestamp order. If another producer's later-stamped record is appended
 *       to the parent ahead of the key's last parent records (a late retry, a clock running
 *       ahead), the child's records of the key may overtake those last records.</li>
 *   <li>{@code grace} must cover {@code linger.ms}, request latency and retries, plus the
 *       consumer's {@code fetch.max.wait.ms}: a record that becomes readable later than that
 *       after its timestamp may be overtaken (and is counted). The crash of a partition's leader
 *       is such a delay: {@code currentLag} reads 0 while the producer retries the partition's
 *       records until the controller fences the dead broker ({@code broker.session.timeout.ms},
 *       9 s by default).</li>
 *   <li>A partition the application paused counts as not read yet: while it is behind, its
 *       task's other partitions wait for it, up to max hold. Pausing a partition while the
 *       barrier buffers it is not noticed: the barrier still returns its buffered records and
 *       resumes it when the buffer is drained.</li>
 *   <li>A sibling that was offline or paused past max hold: its records may come out after later
 *       records of their keys (counted, see the bounds).</li>
 *   <li>After a rebalance, records since the last commit are returned again (at least once), as
 *       with the plain consumer.</li>
 * </ul>
 *
 * <p><b>The cost.</b> Every task with two or more partitions on this consumer runs the merge,
 * also long after the expansion (the barrier does not know when keys moved): a task waits up to
 * {@code grace} for an idle sibling partition before returning records newer than the sibling's
 * last one, and up to max hold for a sibling that is behind but returns nothing. Memory: each held partition keeps at most one fetch's records (at most
 * {@code max.poll.records}) until they may go. While a task's partitions have a backlog they take
 * turns, a fetch at a time, and no record is fetched twice.
 *
 * <p>Not thread-safe, like the consumer: poll only through the barrier, from the poll thread.
 * {@link #heldBackRecords()} and {@link #deliveredRecords()} count what it did; holds and
 * releases are logged at DEBUG. Metrics, in JMX as
 * {@code kscale.assignor:type=expansion-barrier,client-id=...}:
 * {@code future-timestamp-releases-total}, {@code max-hold-releases-total},
 * {@code unknown-lag-releases-total}, and {@code out-of-order-records-total}: the records
 * returned after the barrier had returned a later-stamped record of a sibling partition, whatever
 * let that one go (a bound above, or a record that became readable more than grace after its
 * timestamp, as in a broker failover), each also in a WARN naming both partitions, at most one a
 * minute. They go with the consumer: when it closes (its
 * {@code app-info} MBean is unregistered) or when the barrier is closed, whichever comes first,
 * as the assignor's metrics do. (Those of a barrier dropped unclosed while its consumer runs go
 * once it was garbage-collected, at the next consumer's start or close in this JVM.)
 *
 * @param <K> the key type
 * @param <V> the value type
 * @see <a href="https://cwiki.apache.org/confluence/display/KAFKA/KIP-253%3A+Support+in-order+message+delivery+with+partition+expansion">KIP-253: in-order delivery with partition expansion (never shipped)</a>
 * @see <a href="https://cwiki.apache.org/confluence/display/KAFKA/KIP-353%3A+Improve+Kafka+Streams+Timestamp+Synchronization">KIP-353: Kafka Streams timestamp synchronization</a>
 */
public final class ExpansionBarrier<K, V> implements AutoCloseable {

    /** How long a task waits by default for an idle, caught-up sibling partition: 1 second. */
    public static final Duration DEFAULT_GRACE = Duration.ofMillis(ExpansionBarrierConfig.GRACE_MS_DEFAULT);

    private static final Logger LOG = LoggerFactory.getLogger(ExpansionBarrier.class);

    private static final Comparator<TopicPartition> PARTITION_ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    /** The longest poll while partitions wait for their topic's T on the consumer protocol. */
    private static final Duration AWAITING_TASK_COUNT_POLL = Duration.ofMillis(200);

    /** At most one WARN per release cause in this time; the next one gives the count since. */
    private static final long WARN_INTERVAL_MS = 60_000L;
    private static final long NEVER = Long.MIN_VALUE;

    private final Consumer<K, V> consumer;
    private final long graceMs;
    private final long maxHoldMs;
    private final Clock time;
    private final BarrierMetrics metrics;
    /** The held partitions (each paused by the barrier) and their fetched records not returned yet. */
    private final Map<TopicPartition, Buffer<K, V>> buffers = new HashMap<>();
    private final long[] lastWarnedMs = new long[ReleaseCause.values().length];
    private final long[] releasesSinceWarned = new long[ReleaseCause.values().length];
    private long lastWarnedOutOfOrderMs = NEVER;
    private long outOfOrderSinceWarned;

    private Set<TopicPartition> knownAssignment = Set.of();
    private GroupLayout knownLayout;
    private Map<TopicPartition, PartitionClock> clocks = Map.of();
    private Map<TopicPartition, TaskMerge> taskOf = Map.of();
    private List<TaskMerge> tasks = List.of();
    private long delivered;
    private long heldBack;
    /** Whether the settings given to {@code wrap} say {@code group.protocol=consumer}: then T comes from the cluster. */
    private final boolean consumerProtocol;
    /** Each assigned topic's T as the brokers keep it; only on the consumer protocol, else null. */
    private final TaskCountTopicReader clusterTaskCounts;
    /** The layout built from {@link #clusterTaskCounts}, and what it was built from. */
    private GroupLayout clusterLayout;
    private Map<String, Integer> clusterLayoutCounts = Map.of();
    private Set<TopicPartition> clusterLayoutAssignment = Set.of();
    /**
     * On the consumer protocol, partitions the barrier paused until their topic's T is read
     * (records of an unread topic cannot be merged), and since when; up to max hold.
     */
    private final Map<TopicPartition, Long> awaitingTaskCount = new HashMap<>();
    /** Partitions released unmerged after max hold without their topic's T, until it is read or they are revoked. */
    private final Set<TopicPartition> withoutTaskCount = new HashSet<>();
    private boolean warnedNoGroup;
    private boolean warnedNoLayout;

    ExpansionBarrier(Consumer<K, V> consumer, ExpansionBarrierConfig config, Clock time) {
        this(consumer, config, time, StoreClients.KAFKA);
    }

    /** @param storeClients the clients that read the task count topic on the consumer protocol (mocks in tests) */
    ExpansionBarrier(Consumer<K, V> consumer, ExpansionBarrierConfig config, Clock time, StoreClients storeClients) {
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.graceMs = config.grace().toMillis();
        this.maxHoldMs = config.maxHold().toMillis();
        this.time = Objects.requireNonNull(time, "time");
        String clientId = clientId(consumer, config);
        this.metrics = new BarrierMetrics(clientId);
        this.consumerProtocol = config.consumerProtocol();
        // On the consumer protocol no assignment carries the layout: T is read where the brokers keep it.
        this.clusterTaskCounts = consumerProtocol
                ? new TaskCountTopicReader(config.taskCountTopic(), config.originals(), storeClients) : null;
        // Held weakly there; the release refers to the metrics and the reader only, not to this
        // barrier: locals, since a lambda that read the fields would hold the barrier itself.
        BarrierMetrics barrierMetrics = metrics;
        TaskCountTopicReader reader = clusterTaskCounts;
        ConsumerCloseWatch.watch(clientId, this, () -> {
            barrierMetrics.close();
            if (reader != null) {
                reader.close();
            }
        });
        Arrays.fill(lastWarnedMs, NEVER);
        if (consumerProtocol) {
            LOG.info("ExpansionBarrier of consumer {}: on group.protocol=consumer the task layout comes from the "
                    + "topic {} where the brokers' KeyPreservingServerAssignor keeps each topic's T ({}); a partition "
                    + "of a topic whose T is not read yet waits for it up to the max hold. Keys stay with their task "
                    + "only if you {}.",
                    clientId, config.taskCountTopic(), ExpansionBarrierConfig.TASK_COUNT_TOPIC_CONFIG,
                    ConsumerProtocol.SERVER_ASSIGNOR_SETUP);
        }
    }

    /** The consumer's own client id (Kafka generates one if unset), else the settings' {@code client.id}. */
    private static String clientId(Consumer<?, ?> consumer, ExpansionBarrierConfig config) {
        for (Map.Entry<MetricName, ? extends Metric> metric : consumer.metrics().entrySet()) {
            String clientId = metric.getKey().tags().get("client-id");
            if (clientId != null) {
                return clientId;
            }
        }
        return config.clientId();
    }

    /**
     * Wraps a consumer with the default settings: grace 1 second, max hold 30 seconds.
     *
     * @param consumer a consumer in a group assigned by {@link KeyPreservingAssignor}; poll it only through the barrier
     * @param <K> the key type
     * @param <V> the value type
     * @return the barrier
     */
    public static <K, V> ExpansionBarrier<K, V> wrap(Consumer<K, V> consumer) {
        return wrap(consumer, Map.of());
    }

    /**
     * Wraps a consumer, with the default max hold (30 seconds) or {@code grace} if longer.
     *
     * @param consumer a consumer in a group assigned by {@link KeyPreservingAssignor}; poll it only through the barrier
     * @param grace how long a task waits for a caught-up sibling partition that has no newer
     *              record; at least the producers' delivery delay plus {@code fetch.max.wait.ms}
     *              (as {@value ExpansionBarrierConfig#GRACE_MS_CONFIG})
     * @param <K> the key type
     * @param <V> the value type
     * @return the barrier
     * @throws IllegalArgumentException if grace is negative
     */
    public static <K, V> ExpansionBarrier<K, V> wrap(Consumer<K, V> consumer, Duration grace) {
        Objects.requireNonNull(grace, "grace");
        if (grace.isNegative()) {
            throw new IllegalArgumentException("grace must be at least 0, got " + grace);
        }
        return wrap(consumer, Map.of(ExpansionBarrierConfig.GRACE_MS_CONFIG, grace.toMillis(),
                ExpansionBarrierConfig.MAX_HOLD_MS_CONFIG, Math.max(ExpansionBarrierConfig.MAX_HOLD_MS_DEFAULT, grace.toMillis())));
    }

    /**
     * Wraps a consumer, with the settings of {@link ExpansionBarrierConfig} ({@code kscale.barrier.*})
     * from {@code configs}: usually the map the consumer was created with. Its {@code client.id}
     * names the metrics if the consumer's own is not at hand.
     *
     * @param consumer a consumer in a group assigned by {@link KeyPreservingAssignor}; poll it only through the barrier
     * @param configs the settings; other keys are ignored
     * @param <K> the key type
     * @param <V> the value type
     * @return the barrier
     * @throws org.apache.kafka.common.config.ConfigException naming the key, the value and what is allowed if a value is invalid
     */
    public static <K, V> ExpansionBarrier<K, V> wrap(Consumer<K, V> consumer, Map<String, ?> configs) {
        return new ExpansionBarrier<>(consumer, new ExpansionBarrierConfig(configs), Clock.SYSTEM);
    }

    /**
     * Polls the consumer and returns the records that may go now (see the class comment). May
     * return fewer records than were fetched, or none, while a task waits for a partition; polls
     * the consumer with a zero timeout instead of {@code timeout} while buffered records may go,
     * and with less than {@code timeout} when one may go sooner by the clock alone.
     * First asks for the follow-up rebalance of stateful consumers if it is due
     * ({@link FollowUpRebalance}), so that poll runs it.
     *
     * @param timeout passed to {@link Consumer#poll(Duration)}, or less (see above)
     * @return the records, each partition's in offset order; iterated (and by {@code records(topic)})
     *         in the order the merge let them go, across each task's partitions; with
     *         {@link ConsumerRecords#nextOffsets()} never beyond a record not returned
     */
    public ConsumerRecords<K, V> poll(Duration timeout) {
        FollowUpRebalance.triggerIfDue(consumer, time.milliseconds());
        refresh(false);
        ConsumerRecords<K, V> fetched = consumer.poll(pollTimeout(timeout));
        refresh(true); // a rebalance runs inside poll, and with it the application's rebalance listener
        return merge(awaitTaskCounts(fetched));
    }

    /** @return the records fetched but not returned by the poll that fetched them (buffered until they may go), so far */
    public long heldBackRecords() {
        return heldBack;
    }

    /** @return the records returned so far, pass-through ones included */
    public long deliveredRecords() {
        return delivered;
    }

    /** The barrier's metrics (tests). */
    BarrierMetrics metrics() {
        return metrics;
    }

    /**
     * Removes the barrier's metrics. Does not close the consumer, which the application owns;
     * the barrier must not be polled afterwards. Closing the consumer removes them too.
     * Idempotent.
     */
    @Override
    public void close() {
        ConsumerCloseWatch.unwatch(this);
        metrics.close();
        if (clusterTaskCounts != null) {
            clusterTaskCounts.close();
        }
    }

    /**
     * Follows assignment and layout changes, and drops the buffers of partitions the application
     * resumed or moved.
     *
     * @param afterPoll whether the consumer was just polled: a partition unpaused inside the poll
     *                  was revoked and assigned again, one unpaused between polls was resumed by the application
     */
    private void refresh(boolean afterPoll) {
        Set<TopicPartition> assignment = consumer.assignment();
        GroupLayout layout = layout(assignment);
        if (layout != knownLayout || !assignment.equals(knownAssignment)) {
            rebuild(assignment, layout);
        }
        noticeRewinds();
        resumeAwaitingTaskCounts(assignment);
        if (buffers.isEmpty()) {
            return;
        }
        Set<TopicPartition> paused = consumer.paused();
        for (Iterator<Map.Entry<TopicPartition, Buffer<K, V>>> it = buffers.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TopicPartition, Buffer<K, V>> entry = it.next();
            TopicPartition tp = entry.getKey();
            long held = entry.getValue().head().offset();
            boolean stillPaused = paused.contains(tp);
            if (stillPaused && atOffset(tp, held)) {
                continue;
            }
            it.remove();
            // What was delivered from it may say nothing about where it is now.
            clocks.get(tp).rewound();
            if (!stillPaused && afterPoll) {
                // Revoked and assigned again within the poll: its position went back to the
                // committed offset, which is at or before the held record. Start afresh.
                LOG.debug("{} was revoked and assigned again; dropping its {} buffered records", tp,
                        entry.getValue().records.size());
            } else {
                // Resumed, or moved by a seek (the application's, or its rebalance listener's
                // inside the poll): its position is the application's now, and the stale buffer
                // must neither be returned nor move that position when drained.
                if (stillPaused) {
                    consumer.resume(Collections.singleton(tp));
                }
                LOG.debug("{} was {} by the application while held at offset {}; dropping its {} buffered records "
                        + "and reading it from its position", tp, stillPaused ? "moved" : "resumed", held,
                        entry.getValue().records.size());
            }
        }
    }

    /**
     * Forgets what was delivered from each partition whose position went back to or before it:
     * revoked and assigned again within one poll (the position is the committed offset again), or
     * moved back by the application's seek, neither of which changes the assignment. Its
     * delivered record no longer vouches for it: were it to, a sibling's records read again
     * would count as passed by it and go ahead of its own older records read again. A position
     * not known now (being reset or validated) is taken as a rewind too.
     */
    private void noticeRewinds() {
        for (PartitionClock clock : clocks.values()) {
            if (clock.hasDelivered() && !positionAfter(clock.partition(), clock.deliveredOffset())) {
                LOG.debug("{} went back to or before offset {}, which it had returned; its records no longer vouch "
                        + "for it", clock.partition(), clock.deliveredOffset());
                clock.rewound();
            }
        }
    }

    /** @return whether the partition's position is known now and beyond {@code offset} */
    private boolean positionAfter(TopicPartition tp, long offset) {
        try {
            return consumer.position(tp, Duration.ZERO) > offset;
        } catch (TimeoutException | IllegalStateException e) {
            return false;
        }
    }

    /** @return whether the partition's position is {@code offset}: false if the application moved it, or a reset is pending */
    private boolean atOffset(TopicPartition tp, long offset) {
        try {
            // A zero timeout never blocks: a position being reset (seekToBeginning, seekToEnd) or
            // validated throws instead, and either way the buffer may be stale.
            return consumer.position(tp, Duration.ZERO) == offset;
        } catch (TimeoutException e) {
            return false;
        }
    }

    private GroupLayout layout(Set<TopicPartition> assignment) {
        if (consumerProtocol) {
            return clusterLayout(assignment);
        }
        ConsumerGroupMetadata group;
        try {
            group = consumer.groupMetadata();
        } catch (InvalidGroupIdException e) {
            if (!warnedNoGroup) {
                warnedNoGroup = true;
                LOG.warn("ExpansionBarrier: the consumer has no group.id, so there is no task layout and records of "
                        + "{} partitions pass through unordered; set group.id and partition.assignment.strategy="
                        + "{}", assignment.size(), KeyPreservingAssignor.class.getName());
            }
            return null;
        }
        Optional<GroupLayout> layout = MemberLayouts.latest(group.groupId(), group.memberId());
        if (layout.isEmpty() && !assignment.isEmpty() && !warnedNoLayout) {
            warnedNoLayout = true;
            // Also what a consumer on group.protocol=consumer sees when wrap() was not given its settings.
            LOG.warn("ExpansionBarrier: no task layout for member {} of group {} although it has {} partitions, so "
                    + "records pass through unordered. The layout comes from partition.assignment.strategy={} on "
                    + "group.protocol=classic. On group.protocol=consumer (KIP-848) no layout reaches the consumer, and "
                    + "the barrier cannot order keys; there, for keys to stay with their task, {}.", group.memberId(),
                    group.groupId(), assignment.size(), KeyPreservingAssignor.class.getName(),
                    ConsumerProtocol.SERVER_ASSIGNOR_SETUP);
        }
        return layout.orElse(null);
    }

    /**
     * The layout of the assigned topics whose T the brokers' task count topic holds (read on the
     * reader's thread); the same instance until the assignment or what was read changes, so that
     * the barrier regroups only then.
     */
    private GroupLayout clusterLayout(Set<TopicPartition> assignment) {
        Map<String, Integer> counts = clusterTaskCounts.taskCounts();
        if (counts == clusterLayoutCounts && assignment.equals(clusterLayoutAssignment)) {
            return clusterLayout;
        }
        Map<String, Integer> highestPartition = new HashMap<>();
        for (TopicPartition tp : assignment) {
            highestPartition.merge(tp.topic(), tp.partition(), Math::max);
        }
        clusterTaskCounts.want(highestPartition.keySet());
        List<TopicLayout> topics = new ArrayList<>();
        highestPartition.forEach((topic, highest) -> {
            Integer taskCount = counts.get(topic);
            if (taskCount != null) {
                // The count is only "last seen": the layout needs T to group partitions (p % T).
                topics.add(TopicLayout.of(topic, taskCount, Math.min(TopicLayout.MAX_COUNT,
                        Math.max(taskCount, highest + 1))));
            }
        });
        clusterLayoutCounts = counts;
        clusterLayoutAssignment = Set.copyOf(assignment);
        clusterLayout = topics.isEmpty() || topics.size() > GroupLayout.MAX_TOPICS ? null : GroupLayout.of(0, topics);
        return clusterLayout;
    }

    /**
     * On the consumer protocol: the fetched records of a topic whose T is not read yet cannot be
     * merged, so each such partition is sought back to its first fetched record and paused until
     * the reader has T (see {@link #resumeAwaitingTaskCounts}), for at most max hold; after that
     * its records pass through unmerged, each such partition counted (one WARN a minute). A group that
     * starts reading a grown topic would otherwise hand out the first fetches unordered.
     *
     * @return {@code fetched} without the partitions held back
     */
    private ConsumerRecords<K, V> awaitTaskCounts(ConsumerRecords<K, V> fetched) {
        if (clusterTaskCounts == null || fetched.isEmpty()) {
            return fetched;
        }
        Map<String, Integer> counts = clusterTaskCounts.taskCounts();
        long now = time.milliseconds();
        Map<TopicPartition, List<ConsumerRecord<K, V>>> kept = new HashMap<>();
        Map<TopicPartition, OffsetAndMetadata> nextOffsets = new HashMap<>(fetched.nextOffsets());
        boolean held = false;
        for (TopicPartition tp : fetched.partitions()) {
            List<ConsumerRecord<K, V>> records = fetched.records(tp);
            if (counts.containsKey(tp.topic()) || withoutTaskCount.contains(tp)) {
                kept.put(tp, records);
                continue;
            }
            awaitingTaskCount.putIfAbsent(tp, now);
            ConsumerRecord<K, V> first = records.get(0);
            consumer.seek(tp, first.offset());
            consumer.pause(Collections.singleton(tp));
            nextOffsets.put(tp, new OffsetAndMetadata(first.offset(), first.leaderEpoch(), ""));
            held = true;
            LOG.debug("Holding {} at offset {} until its topic's task count is read", tp, first.offset());
        }
        return held ? new ConsumerRecords<>(kept, nextOffsets) : fetched;
    }

    /** Resumes the partitions that waited for their topic's T once it is read or max hold is over; forgets revoked ones. */
    private void resumeAwaitingTaskCounts(Set<TopicPartition> assignment) {
        if (clusterTaskCounts == null) {
            return; // the classic protocol: nothing ever waits for T
        }
        Map<String, Integer> counts = clusterTaskCounts.taskCounts();
        withoutTaskCount.retainAll(assignment);
        withoutTaskCount.removeIf(tp -> counts.containsKey(tp.topic()));
        if (awaitingTaskCount.isEmpty()) {
            return;
        }
        Set<TopicPartition> paused = consumer.paused();
        long now = time.milliseconds();
        for (Iterator<Map.Entry<TopicPartition, Long>> it = awaitingTaskCount.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TopicPartition, Long> entry = it.next();
            TopicPartition tp = entry.getKey();
            if (!assignment.contains(tp) || !paused.contains(tp)) {
                it.remove(); // revoked, or resumed by the application: not the barrier's to resume
            } else if (counts.containsKey(tp.topic())) {
                it.remove();
                consumer.resume(Collections.singleton(tp)); // fetched again from the held record, and merged
            } else if (now - entry.getValue() >= maxHoldMs) {
                it.remove();
                withoutTaskCount.add(tp);
                consumer.resume(Collections.singleton(tp));
                metrics.released(ReleaseCause.UNKNOWN_TASK_COUNT);
                long sinceWarned = warningDue(ReleaseCause.UNKNOWN_TASK_COUNT, now);
                if (sinceWarned == 0) {
                    LOG.debug("Returning the records of {} unmerged: its topic's task count is not read", tp);
                } else {
                    LOG.warn("ExpansionBarrier: returning the records of {} unmerged: {}. {} partition(s) so since the "
                            + "last warning; counted in the metric {}", tp, ReleaseCause.UNKNOWN_TASK_COUNT.explanation(),
                            sinceWarned, ReleaseCause.UNKNOWN_TASK_COUNT.metricName());
                }
            }
        }
    }

    /** Regroups the assigned partitions by task; forgets partitions revoked or no longer sharing a task. */
    private void rebuild(Set<TopicPartition> assignment, GroupLayout layout) {
        Map<String, Map<Integer, List<TopicPartition>>> byTask = new HashMap<>();
        if (layout != null) {
            for (TopicPartition tp : assignment) {
                Optional<TopicLayout> topic = layout.topic(tp.topic());
                if (topic.isPresent()) {
                    byTask.computeIfAbsent(tp.topic(), t -> new HashMap<>())
                            .computeIfAbsent(topic.get().taskOf(tp.partition()), t -> new ArrayList<>()).add(tp);
                }
            }
        }
        Map<TopicPartition, PartitionClock> newClocks = new HashMap<>();
        Map<TopicPartition, TaskMerge> newTaskOf = new HashMap<>();
        List<TaskMerge> newTasks = new ArrayList<>();
        for (Map<Integer, List<TopicPartition>> topicTasks : byTask.values()) {
            for (List<TopicPartition> partitions : topicTasks.values()) {
                if (partitions.size() < 2) {
                    continue;
                }
                partitions.sort(PARTITION_ORDER);
                List<PartitionClock> taskClocks = new ArrayList<>(partitions.size());
                for (TopicPartition tp : partitions) {
                    PartitionClock partition = clocks.getOrDefault(tp, new PartitionClock(tp));
                    taskClocks.add(partition);
                    newClocks.put(tp, partition);
                }
                for (PartitionClock partition : taskClocks) {
                    for (PartitionClock sibling : taskClocks) {
                        if (sibling != partition) {
                            partition.joined(sibling);
                        }
                    }
                }
                TaskMerge task = new TaskMerge(taskClocks, graceMs, maxHoldMs);
                newTasks.add(task);
                partitions.forEach(tp -> newTaskOf.put(tp, task));
            }
        }
        for (PartitionClock old : clocks.values()) {
            TopicPartition tp = old.partition();
            if (newClocks.containsKey(tp)) {
                continue;
            }
            Buffer<K, V> buffer = buffers.remove(tp);
            if (buffer != null && assignment.contains(tp)) {
                // Its position is the held record's offset: the next fetch returns the buffered records again.
                LOG.debug("Releasing {}: it no longer shares a task with another partition here; its {} buffered "
                        + "records are fetched again from offset {}", tp, buffer.records.size(), buffer.head().offset());
                consumer.resume(Collections.singleton(tp));
            } else {
                LOG.debug("Forgetting {}: revoked or no longer sharing a task here{}", tp,
                        buffer == null ? "" : "; dropping its " + buffer.records.size() + " buffered records");
            }
        }
        clocks = newClocks;
        taskOf = newTaskOf;
        tasks = newTasks;
        knownAssignment = Set.copyOf(assignment);
        knownLayout = layout;
    }

    /**
     * @return {@code timeout}, zero if a buffered record may go before anything more is fetched, or
     *         shorter if one may go sooner by the clock alone (grace or max hold running out)
     */
    private Duration pollTimeout(Duration timeout) {
        if (!awaitingTaskCount.isEmpty() && timeout.compareTo(AWAITING_TASK_COUNT_POLL) > 0) {
            // T arrives on the reader's thread: look again soon rather than block for the whole timeout.
            timeout = AWAITING_TASK_COUNT_POLL;
        }
        if (buffers.isEmpty()) {
            return timeout;
        }
        long now = time.milliseconds();
        ToLongFunction<TopicPartition> fetchedAt = tp -> buffers.get(tp).fetchedAt;
        long deadline = Long.MAX_VALUE;
        for (Map.Entry<TaskMerge, Map<TopicPartition, List<ConsumerRecord<K, V>>>> task
                : addBuffers(new HashMap<>()).entrySet()) {
            if (task.getKey().canDeliver(task.getValue(), fetchedAt, this::currentLag, now)) {
                return Duration.ZERO;
            }
            deadline = Math.min(deadline, task.getKey().nextDeadline(task.getValue(), fetchedAt, now));
        }
        if (deadline == Long.MAX_VALUE) {
            return timeout;
        }
        Duration untilDeadline = Duration.ofMillis(deadline - now);
        return untilDeadline.compareTo(timeout) < 0 ? untilDeadline : timeout;
    }

    /** Adds each buffer as its partition's queue, grouped by task; returns {@code byTask}. */
    private Map<TaskMerge, Map<TopicPartition, List<ConsumerRecord<K, V>>>> addBuffers(
            Map<TaskMerge, Map<TopicPartition, List<ConsumerRecord<K, V>>>> byTask) {
        for (Map.Entry<TopicPartition, Buffer<K, V>> buffer : buffers.entrySet()) {
            byTask.computeIfAbsent(taskOf.get(buffer.getKey()), t -> new HashMap<>())
                    .put(buffer.getKey(), buffer.getValue().records);
        }
        return byTask;
    }

    private ConsumerRecords<K, V> merge(ConsumerRecords<K, V> fetched) {
        if (tasks.isEmpty()) {
            delivered += fetched.count();
            return fetched;
        }
        Map<TopicPartition, List<ConsumerRecord<K, V>>> out = new TreeMap<>(PARTITION_ORDER);
        // What the application iterates: records passed through, then each task's in its merge's order.
        List<ConsumerRecord<K, V>> inOrder = new ArrayList<>();
        Map<TaskMerge, Map<TopicPartition, List<ConsumerRecord<K, V>>>> byTask = new LinkedHashMap<>();
        for (TopicPartition tp : fetched.partitions()) {
            TaskMerge task = taskOf.get(tp);
            if (task == null) {
                out.put(tp, fetched.records(tp));
                inOrder.addAll(fetched.records(tp));
            } else {
                byTask.computeIfAbsent(task, t -> new HashMap<>()).put(tp, fetched.records(tp));
            }
        }
        addBuffers(byTask); // a buffered partition is paused: the fetch has none of its records
        if (byTask.isEmpty()) {
            delivered += fetched.count();
            return fetched;
        }
        Map<TopicPartition, OffsetAndMetadata> nextOffsets = new HashMap<>(fetched.nextOffsets());
        long now = time.milliseconds();
        ToLongFunction<TopicPartition> fetchedAt = tp -> {
            Buffer<K, V> buffer = buffers.get(tp);
            return buffer == null ? now : buffer.fetchedAt;
        };
        for (Map.Entry<TaskMerge, Map<TopicPartition, List<ConsumerRecord<K, V>>>> task : byTask.entrySet()) {
            TaskMerge.Outcome<K, V> outcome = task.getKey().merge(task.getValue(), fetchedAt, this::currentLag, now);
            out.putAll(outcome.delivered);
            inOrder.addAll(outcome.inOrder);
            for (TaskMerge.Release release : outcome.releases) {
                released(release, now);
            }
            for (TaskMerge.OutOfOrder late : outcome.outOfOrder) {
                outOfOrder(late, now);
            }
            Set<TopicPartition> held = new HashSet<>();
            for (TaskMerge.Hold<K, V> hold : outcome.holds) {
                hold(hold, fetched, nextOffsets, now);
                held.add(hold.clock.partition());
            }
            for (TopicPartition tp : task.getValue().keySet()) {
                if (!held.contains(tp) && buffers.containsKey(tp)) {
                    drained(tp, nextOffsets);
                }
            }
        }
        delivered += inOrder.size();
        return new MergedRecords<>(out, inOrder, nextOffsets);
    }

    /** Counts records returned after a later record of a sibling, and warns of them at most once a minute. */
    private void outOfOrder(TaskMerge.OutOfOrder late, long now) {
        metrics.outOfOrder(late.records);
        outOfOrderSinceWarned += late.records;
        if (lastWarnedOutOfOrderMs != NEVER && now - lastWarnedOutOfOrderMs < WARN_INTERVAL_MS) {
            LOG.debug("Returned {} records of {} from offset {} (timestamp {}) after {} had returned one stamped {}",
                    late.records, late.partition, late.firstOffset, late.firstTimestamp, late.sibling, late.siblingTimestamp);
            return;
        }
        LOG.warn("ExpansionBarrier: returned {} record(s) of {} from offset {} (timestamp {}) after {} of the same task "
                + "had returned a record stamped {}: keys that moved between them may have come out of order. The older "
                + "records reached the log, or this consumer, more than {} ({} ms) after their timestamp (a broker "
                + "failover, producer retries, a producer clock running behind), or a bound released the later one "
                + "(see the release metrics). {} such record(s) since the last warning; counted in the metric {}. To keep "
                + "order through a broker failover, set {} to cover it (see the guide).", late.records, late.partition,
                late.firstOffset, late.firstTimestamp, late.sibling, late.siblingTimestamp,
                ExpansionBarrierConfig.GRACE_MS_CONFIG, graceMs, outOfOrderSinceWarned, BarrierMetrics.OUT_OF_ORDER_RECORDS,
                ExpansionBarrierConfig.GRACE_MS_CONFIG);
        lastWarnedOutOfOrderMs = now;
        outOfOrderSinceWarned = 0;
    }

    /** Counts a release by a bound and warns of it, at most once per cause a minute. */
    private void released(TaskMerge.Release release, long now) {
        metrics.released(release.cause);
        long sinceWarned = warningDue(release.cause, now);
        if (sinceWarned == 0) {
            LOG.debug("Released {} at offset {} (timestamp {}, fetched at {}) before {} passed it: {}", release.partition,
                    release.offset, release.timestamp, release.fetchedAt, release.sibling, release.cause);
            return;
        }
        LOG.warn("ExpansionBarrier: returned records of {} from offset {} (timestamp {}, fetched at {}) before {} of "
                + "the same task had passed them: {}. {} such release(s) since the last warning of this cause; counted in "
                + "the metric {}", release.partition, release.offset, release.timestamp, release.fetchedAt,
                release.sibling, release.cause.explanation(), sinceWarned, release.cause.metricName());
    }

    /**
     * Counts one more release of the cause for its WARN, at most one a minute.
     *
     * @return 0 if the cause's WARN is not due yet; else the releases since the last WARN, this one
     *     included (the WARN is then taken as given)
     */
    private long warningDue(ReleaseCause cause, long now) {
        int i = cause.ordinal();
        releasesSinceWarned[i]++;
        if (lastWarnedMs[i] != NEVER && now - lastWarnedMs[i] < WARN_INTERVAL_MS) {
            return 0;
        }
        long since = releasesSinceWarned[i];
        lastWarnedMs[i] = now;
        releasesSinceWarned[i] = 0;
        return since;
    }

    /** Buffers a newly held partition, seeks it back and pauses it; or moves a buffered partition's position past what went. */
    private void hold(TaskMerge.Hold<K, V> hold, ConsumerRecords<K, V> fetched,
                      Map<TopicPartition, OffsetAndMetadata> nextOffsets, long now) {
        TopicPartition tp = hold.clock.partition();
        ConsumerRecord<K, V> record = hold.record();
        Buffer<K, V> buffer = buffers.get(tp);
        if (buffer == null) {
            OffsetAndMetadata end = fetched.nextOffsets().get(tp);
            if (end == null) {
                ConsumerRecord<K, V> last = hold.rest.get(hold.rest.size() - 1);
                end = new OffsetAndMetadata(last.offset() + 1, last.leaderEpoch(), "");
            }
            buffers.put(tp, new Buffer<>(List.copyOf(hold.rest), end, now));
            consumer.seek(tp, record.offset());
            consumer.pause(Collections.singleton(tp));
            heldBack += hold.rest.size();
            LOG.debug("Holding {} at offset {} (timestamp {}) until {} passes it; {} fetched records buffered",
                    tp, record.offset(), record.timestamp(), hold.waitingFor, hold.rest.size());
        } else if (buffer.head().offset() != record.offset()) {
            buffer.records = List.copyOf(hold.rest);
            consumer.seek(tp, record.offset());
        }
        nextOffsets.put(tp, new OffsetAndMetadata(record.offset(), record.leaderEpoch(), ""));
    }

    /** Every buffered record of the partition went: fetch again where the buffered fetch ended. */
    private void drained(TopicPartition tp, Map<TopicPartition, OffsetAndMetadata> nextOffsets) {
        Buffer<K, V> buffer = buffers.remove(tp);
        consumer.seek(tp, buffer.end.offset());
        consumer.resume(Collections.singleton(tp));
        nextOffsets.put(tp, buffer.end);
        LOG.debug("Releasing {}: its buffered records went; fetching again from offset {}", tp, buffer.end.offset());
    }

    @Override
    public String toString() {
        return "ExpansionBarrier(grace " + graceMs + " ms, max hold " + maxHoldMs + " ms, " + tasks.size() + " tasks to merge, delivered " + delivered
                + ", held back " + heldBack + ", " + buffers.size() + " partitions buffered)";
    }

    /**
     * A held partition's fetched records not returned yet, the held one first. While it exists
     * the partition is paused and its position is the held record's offset.
     */
    private static final class Buffer<K, V> {
        List<ConsumerRecord<K, V>> records;
        /** Where the fetch the records came from ended: the position once they all went. */
        final OffsetAndMetadata end;
        /** When the barrier fetched them, by its clock: grace counts from here for a record stamped later. */
        final long fetchedAt;

        Buffer(List<ConsumerRecord<K, V>> records, OffsetAndMetadata end, long fetchedAt) {
            this.records = records;
            this.end = end;
            this.fetchedAt = fetchedAt;
        }

        ConsumerRecord<K, V> head() {
            return records.get(0);
        }
    }

    /**
     * The consumer's {@code currentLag}, or unknown when the partition left the consumer's
     * assignment meanwhile: Kafka 4.4.0's consumer on {@code group.protocol=consumer} can drop a
     * member's partitions (after {@code onPartitionsLost}) between the poll that returned their
     * records and this call, and then throws {@code IllegalStateException} ("No current assignment
     * for partition") instead of answering.
     */
    private OptionalLong currentLag(TopicPartition partition) {
        try {
            return consumer.currentLag(partition);
        } catch (IllegalStateException e) {
            return OptionalLong.empty();
        }
    }
}
