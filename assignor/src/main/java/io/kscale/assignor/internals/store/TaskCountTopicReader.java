package io.kscale.assignor.internals.store;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the broker-side assignor's task count topic from a member, for member-side helpers on
 * {@code group.protocol=consumer}, where no assignment userData carries the layout: the T of
 * each topic the member asks for, by name. Read-only: it never writes the topic.
 *
 * <p>The topic holds one record per topic id ({@link TaskCountRecord}), the first record of an
 * id being its T forever, as the brokers read it. Names are resolved to ids with the admin
 * client on every refresh, so a topic deleted and re-created under its name (a new id) gets the
 * new id's T, or none until a broker records one.
 *
 * <p>Its own daemon thread does the I/O, so that the poll loop never waits on it. Each round
 * resolves the wanted names ({@link Admin#describeTopics}), then reads the topic from where the
 * last round stopped to its end; a round runs every {@value #REFRESH_MS} ms, or every
 * {@value #UNKNOWN_REFRESH_MS} ms while a wanted topic's T is unknown, and at once when new names
 * are wanted. Answers are what it has read: none for a topic until its id and record are known.
 * A failure (the topic missing, an ACL, the cluster away) is logged at WARN at most once a minute
 * with the cause, and the round retried; what was read stays true, since the log only grows and
 * its first records never change. Memory: one entry per topic id recorded in the topic, and one
 * per wanted name.
 */
public final class TaskCountTopicReader implements AutoCloseable {

    static final long REFRESH_MS = 10_000;
    static final long UNKNOWN_REFRESH_MS = 1_000;
    private static final long WARN_INTERVAL_MS = 60_000;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final String CLIENT_ID_SUFFIX = "-kscale-task-counts";

    private static final Logger log = LoggerFactory.getLogger(TaskCountTopicReader.class);

    private final TopicPartition storePartition;
    private final StoreClients clients;
    private final Map<String, Object> consumerSettings;
    private final Map<String, Object> adminSettings;
    private final Thread thread;
    private final Object lock = new Object();

    // Guarded by lock.
    private Set<String> wanted = Set.of();
    private boolean wantedChanged;
    private boolean closed;

    /** What the poll loop reads: the T of each wanted topic known so far. Replaced whole. */
    private volatile Map<String, Integer> taskCounts = Map.of();

    // The thread's own.
    private final Map<Uuid, Integer> byTopicId = new HashMap<>();
    private Consumer<byte[], byte[]> consumer;
    private Admin admin;
    private long lastWarnedMs = Long.MIN_VALUE;
    private long failedRounds;

    /**
     * Starts reading.
     *
     * @param storeTopic the task count topic, as the brokers' {@code kscale.server.assignor.store.topic}
     * @param consumerConfigs the member's consumer settings: its connection and security settings are used
     * @param clients Kafka's clients, or mocks in tests
     */
    public TaskCountTopicReader(String storeTopic, Map<String, ?> consumerConfigs, StoreClients clients) {
        this.storePartition = new TopicPartition(Objects.requireNonNull(storeTopic, "storeTopic"), 0);
        this.clients = Objects.requireNonNull(clients, "clients");
        this.consumerSettings = KafkaLayoutStore.consumerSettings(consumerConfigs);
        this.adminSettings = KafkaLayoutStore.adminSettings(consumerConfigs);
        String clientId = clientId(consumerConfigs);
        consumerSettings.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        adminSettings.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        this.thread = new Thread(this::run, "kscale-task-count-reader-" + clientId);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private static String clientId(Map<String, ?> consumerConfigs) {
        Object clientId = consumerConfigs.get(ConsumerConfig.CLIENT_ID_CONFIG);
        String prefix = clientId == null || clientId.toString().isBlank() ? "kscale" : clientId.toString().trim();
        return prefix + CLIENT_ID_SUFFIX;
    }

    /**
     * Names the topics whose T is needed (the member's assigned topics); a new name starts a round
     * at once. Cheap when the set is unchanged.
     */
    public void want(Set<String> topics) {
        synchronized (lock) {
            if (topics.equals(wanted)) {
                return;
            }
            wantedChanged = wantedChanged || !wanted.containsAll(topics);
            wanted = Set.copyOf(topics);
            lock.notifyAll();
        }
    }

    /** @return the topic's T as recorded by the brokers, if read yet */
    public OptionalInt taskCount(String topic) {
        Integer taskCount = taskCounts.get(topic);
        return taskCount == null ? OptionalInt.empty() : OptionalInt.of(taskCount);
    }

    /**
     * @return the T of each wanted topic read so far, by name; immutable, and the same instance
     *     until a round learns something new, so that a caller can tell a change by identity
     */
    public Map<String, Integer> taskCounts() {
        return taskCounts;
    }

    /** @return rounds that failed so far (tests) */
    long failedRounds() {
        synchronized (lock) {
            return failedRounds;
        }
    }

    /** Stops the thread and closes its clients; waits for it up to a few seconds. Idempotent. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        Consumer<byte[], byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
        try {
            thread.join(CALL_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try {
            while (true) {
                Set<String> names;
                synchronized (lock) {
                    if (closed) {
                        return;
                    }
                    names = wanted;
                    wantedChanged = false;
                }
                if (!names.isEmpty()) {
                    try {
                        round(names);
                    } catch (LinkageError | AssertionError e) {
                        // A client class missing, or a test's mock refusing: report it, like any failed round.
                        failed(e);
                    }
                }
                synchronized (lock) {
                    long waitMs = names.size() == taskCounts.size() ? REFRESH_MS : UNKNOWN_REFRESH_MS;
                    if (!closed && !wantedChanged) {
                        lock.wait(waitMs);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeClients();
        }
    }

    /** Resolves the names to ids, reads the topic to its end, and publishes the answers. */
    private void round(Set<String> names) {
        try {
            if (admin == null) {
                admin = clients.admin(adminSettings);
            }
            if (consumer == null) {
                consumer = clients.consumer(consumerSettings);
                consumer.assign(List.of(storePartition));
                consumer.seekToBeginning(List.of(storePartition));
            }
            Map<String, Uuid> ids = topicIds(names);
            readToEnd();
            Map<String, Integer> known = new HashMap<>();
            ids.forEach((name, id) -> {
                Integer taskCount = byTopicId.get(id);
                if (taskCount != null) {
                    known.put(name, taskCount);
                }
            });
            if (!known.equals(taskCounts)) {
                taskCounts = Map.copyOf(known);
            }
        } catch (WakeupException | InterruptException e) {
            // Closing.
        } catch (RuntimeException | ExecutionException | TimeoutException e) {
            failed(e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the id of each name that exists; a name that does not is left out */
    private Map<String, Uuid> topicIds(Set<String> names) throws InterruptedException, ExecutionException, TimeoutException {
        Map<String, KafkaFuture<TopicDescription>> described = admin.describeTopics(names).topicNameValues();
        Map<String, Uuid> ids = new HashMap<>();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> entry : described.entrySet()) {
            try {
                ids.put(entry.getKey(), entry.getValue().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).topicId());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
        }
        return ids;
    }

    private void readToEnd() {
        Long end = consumer.endOffsets(List.of(storePartition), CALL_TIMEOUT).get(storePartition);
        if (end == null) {
            throw new IllegalStateException("no end offset for " + storePartition);
        }
        long deadline = System.nanoTime() + CALL_TIMEOUT.toNanos();
        while (consumer.position(storePartition, CALL_TIMEOUT) < end) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("could not read " + storePartition + " to offset " + end + " within "
                        + CALL_TIMEOUT.toSeconds() + " s");
            }
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
                TaskCountRecord.topicId(record.key()).ifPresent(id -> TaskCountRecord.decode(record.value())
                        .ifPresent(value -> byTopicId.putIfAbsent(id, value.taskCount())));
            }
        }
    }

    private void failed(Throwable cause) {
        long now = System.currentTimeMillis();
        synchronized (lock) {
            failedRounds++;
        }
        if (lastWarnedMs != Long.MIN_VALUE && now - lastWarnedMs < WARN_INTERVAL_MS) {
            log.debug("Reading the task count topic {} failed again: {}", storePartition.topic(), cause.toString());
            return;
        }
        lastWarnedMs = now;
        log.warn("Could not read the task count topic {} (where KeyPreservingServerAssignor keeps each topic's T; "
                + "its name is the brokers' kscale.server.assignor.store.topic): {}. Until it is read, records of "
                + "topics whose T is unknown pass through the expansion barrier unordered. Retrying; a member needs "
                + "READ and DESCRIBE on that topic, and DESCRIBE on the topics it reads.", storePartition.topic(),
                cause.toString());
        // A fresh consumer next round: a failed one may be stuck on a deleted or re-created topic.
        closeClients();
    }

    private void closeClients() {
        if (consumer != null) {
            try {
                consumer.close(Duration.ZERO);
            } catch (RuntimeException e) {
                log.debug("Closing the task count reader's consumer failed: {}", e.toString());
            }
            consumer = null;
        }
        if (admin != null) {
            try {
                admin.close(Duration.ZERO);
            } catch (RuntimeException e) {
                log.debug("Closing the task count reader's admin client failed: {}", e.toString());
            }
            admin = null;
        }
    }
}
