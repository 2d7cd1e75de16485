package io.kscale.assignor.internals.server.store;

import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.server.TaskCount;
import io.kscale.assignor.internals.server.TaskCountStore;
import io.kscale.assignor.internals.server.TaskCountStoreEvents;
import io.kscale.assignor.internals.store.StoreClients;
import io.kscale.assignor.internals.store.TaskCountRecord;
import io.kscale.assignor.internals.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker-side {@link TaskCountStore}: each topic id's T in a small topic of the cluster
 * itself, read and written by clients that run inside the broker, on the store's own thread.
 *
 * <p><b>The topic</b> ({@link StoreTopic}): one partition, append-only, never cleaned; one record
 * per topic id ({@link TaskCountRecord}); the first record of an id is its T forever
 * ({@link KnownTaskCounts}). Created on first use.
 *
 * <p><b>The thread.</b> The assignor is configured while the broker starts, before its listeners
 * accept connections, so nothing here blocks the caller: {@link #start} starts a thread that
 * <ol>
 *   <li>waits until the cluster answers, retrying every {@code retryBackoff} (INFO at first, WARN
 *       with the cause once it has failed for a minute, then once a minute);
 *   <li>makes sure the topic exists, and reads it from the beginning to its end offset, together
 *       with the classic assignor's layout topics that are listed and exist (migration seeds, see
 *       {@link ClassicSeeds}; a listed topic that does not exist holds nothing up, it is read from
 *       the round in which it appears); then the store is <em>loaded</em>;
 *   <li>keeps reading both (each round asks for the end offsets, then polls up to them: records
 *       that other brokers' coordinators wrote arrive within about a second), and after each
 *       complete round writes the proposals queued since ({@code acks=all}, idempotent).
 * </ol>
 * A proposal is written only after a round that read the whole log without failing, and only if
 * that log holds no record of the id: a failed read never leads to a write.
 *
 * <p><b>The topic deleted, or deleted and re-created</b> while the broker runs. Every
 * {@value #TOPIC_ID_CHECK_MS} ms (the staleness bound below) the thread asks the admin client for
 * the topic's id. A re-created topic is a new log that restarts at offset 0: a consumer that kept
 * its position could skip records other brokers wrote into it, and this broker could then answer
 * "none stored" for a topic id another broker's T covers. So on a changed or vanished id the store
 * logs an ERROR, counts it ({@link TaskCountStoreEvents#storeTopicLost}), answers "not yet known" for every id it does
 * not know (those topics are held), drops its consumer and producer, and, once a topic of that name
 * exists again, reads it from offset 0 with new clients before it answers "none stored" again.
 * It then writes back every T it knows that the new log lacks ({@link KnownTaskCounts#storeTopicLost}).
 * Why writing back is safe: what this broker knows is each id's first record of the old log (the
 * same on every broker that read it) or its own proposal; every broker that writes back thus
 * writes the same first values, and the new log's first record of an id still wins, so a broker
 * whose own value comes second adopts the first one, as after any race.
 * The store never re-creates a topic it has once read: an empty topic that the store created by
 * itself would let brokers that start later answer "none stored" for every topic, and their groups
 * would take T from today's partition counts. The ERROR names the command that re-creates it.
 *
 * <p><b>Answers</b> ({@link #lookup}): not yet known before the first complete read, after
 * {@link #close()}, and for an id the store does not know while its last complete read is older
 * than {@value #MAX_STALENESS_MS} ms (see {@link KnownTaskCounts} for why); else known(T) or none
 * stored. A store that fails after loading keeps answering from what it read: the log only grows
 * and its first records never change, so what was read stays true.
 *
 * <p><b>Clients</b> ({@link StoreClientSettings}): on a PLAINTEXT cluster they connect to this
 * broker's inter-broker listener with no setting at all; on a secured one they need the
 * {@value StoreClientSettings#CLIENT_PREFIX}* settings, and without them the store logs one ERROR
 * and answers not yet known for good (groups are held, never given T from their counts).
 *
 * <p>Threads: {@link #lookup} and {@link #propose} run on the assignor's threads and only touch
 * concurrent maps; everything else runs on the store's thread, which owns the clients.
 */
public final class KafkaTaskCountStore implements TaskCountStore {

    /** How old the last complete read may be for "none stored" to be answered. */
    static final long MAX_STALENESS_MS = 10_000;
    /** The longest one blocking client call may take. */
    static final Duration STEP_TIMEOUT = Duration.ofSeconds(10);
    /** How often the thread checks that the topic is still the one it read (same id). */
    static final long TOPIC_ID_CHECK_MS = MAX_STALENESS_MS;
    /** How long a round waits for new records once it has read to the end. */
    static final Duration TAIL_POLL = Duration.ofMillis(500);
    /** How long a cluster may fail to answer before the store logs at WARN, and how often it repeats it. */
    static final long WARN_AFTER_MS = 60_000;
    private static final Duration CLIENT_CLOSE_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    private static final int PARTITION = 0;

    private static final Logger log = LoggerFactory.getLogger(KafkaTaskCountStore.class);

    private final String topic;
    private final TopicPartition storePartition;
    private final List<String> classicTopics;
    private final StoreClientSettings settings;
    private final StoreTopic storeTopic;
    private final StoreClients clients;
    private final Clock time;
    private final Duration retryBackoff;
    private final KnownTaskCounts counts;
    private final ClassicSeeds classic = new ClassicSeeds();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch closing = new CountDownLatch(1);

    private final AtomicLong recordsRead = new AtomicLong();
    private final AtomicLong proposalsWritten = new AtomicLong();
    private final AtomicLong writeFailures = new AtomicLong();
    private final AtomicLong readFailures = new AtomicLong();
    private final AtomicLong malformedRecords = new AtomicLong();
    private final AtomicLong storeTopicLosses = new AtomicLong();
    private final TaskCountStoreEvents events;

    // Owned by the store's thread (or by the test that calls step()).
    private volatile Consumer<byte[], byte[]> consumer;
    private Producer<byte[], byte[]> producer;
    private Admin admin;
    /** The id of the topic read, null until it was first described. */
    private Uuid storeTopicId;
    private long topicIdCheckedAtMs;
    /** Whether the topic was found missing after it had been read (its loss already logged and counted). */
    private boolean storeTopicMissing;
    /** The listed classic layout topics found so far (each is read from the round that finds it). */
    private final Set<String> classicTopicsRead = new HashSet<>();
    private Thread thread;
    private long failingSinceMs = -1;
    private long lastWarnMs;
    private long failuresInARow;
    private boolean warnedSettings;
    private boolean warnedAcl;

    /**
     * Creates the store and starts its thread; returns at once. The assignor goes through
     * {@link SharedTaskCountStores#forSettings}, which calls this once per broker JVM and settings.
     *
     * @param brokerConfigs     the broker's configs, as handed to the assignor's {@code configure}
     * @param topic             the task count topic, created if missing
     * @param replicationFactor its replication factor, -1 for the brokers' default
     * @param bootstrapServers  where the clients connect; empty to use this broker's inter-broker listener
     * @param clientOverrides   client settings (the prefix {@value StoreClientSettings#CLIENT_PREFIX}
     *                          stripped): security settings on secured clusters
     * @param classicLayoutTopics the classic assignor's layout topics to seed from; empty for none
     * @param retryBackoff      how long to wait after a failed round
     * @param events            told (on the store's threads) of failed reads and writes and of a lost
     *                          topic: the assignor's metrics
     * @return the started store
     * @throws IllegalArgumentException if a topic name is illegal, the replication factor neither -1
     *     nor positive, or the backoff not positive
     */
    static KafkaTaskCountStore start(Map<String, ?> brokerConfigs, String topic, short replicationFactor,
                                            String bootstrapServers, Map<String, ?> clientOverrides,
                                            List<String> classicLayoutTopics, Duration retryBackoff,
                                            TaskCountStoreEvents events) {
        KafkaTaskCountStore store = new KafkaTaskCountStore(brokerConfigs, topic, replicationFactor, bootstrapServers,
                clientOverrides, classicLayoutTopics, retryBackoff, events, StoreClients.KAFKA, Clock.SYSTEM,
                MAX_STALENESS_MS);
        store.startThread();
        return store;
    }

    /** As {@link #start}, without starting the thread: tests call {@link #step()} themselves. */
    KafkaTaskCountStore(Map<String, ?> brokerConfigs, String topic, short replicationFactor, String bootstrapServers,
                        Map<String, ?> clientOverrides, List<String> classicLayoutTopics, Duration retryBackoff,
                        TaskCountStoreEvents events, StoreClients clients, Clock time, long maxStalenessMs) {
        Objects.requireNonNull(brokerConfigs, "brokerConfigs");
        Objects.requireNonNull(clientOverrides, "clientOverrides");
        if (topic == null || !TopicLayout.isLegalName(topic)) {
            throw new IllegalArgumentException("task count topic '" + topic + "' is not a legal Kafka topic name");
        }
        Objects.requireNonNull(classicLayoutTopics, "classicLayoutTopics");
        for (String classicName : classicLayoutTopics) {
            if (classicName == null || !TopicLayout.isLegalName(classicName)) {
                throw new IllegalArgumentException("classic layout topic '" + classicName + "' is not a legal Kafka "
                        + "topic name");
            }
        }
        if (replicationFactor != -1 && replicationFactor < 1) {
            throw new IllegalArgumentException("task count topic replication factor " + replicationFactor
                    + " must be -1 (the brokers' default) or at least 1");
        }
        if (retryBackoff == null || retryBackoff.isNegative() || retryBackoff.isZero()) {
            throw new IllegalArgumentException("task count store retry backoff " + retryBackoff + " must be positive");
        }
        String nodeId = nodeId(brokerConfigs);
        this.topic = topic;
        this.storePartition = new TopicPartition(topic, PARTITION);
        this.classicTopics = List.copyOf(new LinkedHashSet<>(classicLayoutTopics));
        this.settings = StoreClientSettings.derive(brokerConfigs, bootstrapServers, clientOverrides,
                clientId(brokerConfigs));
        this.storeTopic = new StoreTopic(topic, replicationFactor);
        this.clients = Objects.requireNonNull(clients, "clients");
        this.time = Objects.requireNonNull(time, "time");
        this.retryBackoff = retryBackoff;
        this.events = Objects.requireNonNull(events, "events");
        this.counts = new KnownTaskCounts(time, maxStalenessMs, "broker " + nodeId);
    }

    @Override
    public TaskCount lookup(Uuid topicId) {
        return counts.lookup(topicId);
    }

    @Override
    public int propose(Uuid topicId, int proposed, int partitionCount) {
        return counts.propose(topicId, proposed, partitionCount);
    }

    private synchronized void startThread() {
        if (thread != null || closed.get()) {
            return;
        }
        thread = new Thread(this::run, "kscale-task-count-store");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (!closed.get()) {
                if (!step() && !closed.get()) {
                    closing.await(retryBackoff.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            log.error("The task count store's thread failed; lookups answer from what was read until now", e);
        } finally {
            closeClients();
        }
    }

    /**
     * One round: connect if needed, read both topics to their end offsets, then write the queued
     * proposals. Never throws.
     *
     * @return whether the round completed; false means wait {@code retryBackoff} before the next
     */
    boolean step() {
        Optional<String> problem = settings.problem();
        if (problem.isPresent()) {
            if (!warnedSettings) {
                warnedSettings = true;
                log.error("The task count store of the broker-side key-preserving assignor cannot connect: {}. Until "
                        + "then no topic's task count is known, and groups using the assignor keep their targets and "
                        + "leave new partitions unassigned.", problem.get());
            }
            return false;
        }
        try {
            if (!checkTopic()) {
                return false;
            }
            if (consumer == null) {
                open();
            }
            catchUp();
            if (!counts.loaded()) {
                counts.markLoaded();
                log.info("Task count store loaded from topic {} via {}: {} topic ids known, {} migration seeds from {}",
                        topic, settings.description(), counts.knownTopics(), classic.index().size(),
                        classicTopics.isEmpty() ? "no classic layout topic" : "topics " + classicTopicsRead + " of "
                                + classicTopics);
            }
            write();
            recovered();
            return true;
        } catch (WakeupException e) {
            return true; // close() woke the consumer: the loop ends
        } catch (InterruptException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            failed(e.getCause() == null ? e : e.getCause());
            return false;
        } catch (java.util.concurrent.TimeoutException | RuntimeException e) {
            failed(e);
            return false;
        }
    }

    /**
     * Checks the topic: the first time, creates it if missing and takes its id; later, every
     * {@value #TOPIC_ID_CHECK_MS} ms (every round while it is missing or its end moved back),
     * compares its id with the one read.
     *
     * @return false if the topic is missing: the round ends there
     */
    private boolean checkTopic() throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
        if (admin == null) {
            admin = clients.admin(settings.admin());
        }
        long now = time.milliseconds();
        if (storeTopicId == null) {
            storeTopic.ensure(admin, STEP_TIMEOUT);
            storeTopicId = storeTopic.id(admin, STEP_TIMEOUT).orElse(null);
            topicIdCheckedAtMs = now;
            return true;
        }
        if (!storeTopicMissing && now - topicIdCheckedAtMs < TOPIC_ID_CHECK_MS) {
            return true;
        }
        Optional<Uuid> id = storeTopic.id(admin, STEP_TIMEOUT);
        topicIdCheckedAtMs = now;
        if (id.isEmpty()) {
            if (!storeTopicMissing) {
                storeTopicMissing = true;
                lost("was deleted", "Re-create it (kafka-topics.sh --bootstrap-server <brokers> --create --topic " + topic
                        + " --partitions 1 --config cleanup.policy=delete --config retention.ms=-1 --config "
                        + "retention.bytes=-1), after restoring its old records into it if you have a copy; the "
                        + "store does not re-create it by itself, since an empty store would let brokers that start "
                        + "later take T from today's partition counts. Do not restart brokers meanwhile: a broker "
                        + "that starts without the topic creates it empty and loses what this one knows.");
            }
            return false;
        }
        if (id.get().equals(storeTopicId)) {
            return true;
        }
        if (storeTopicMissing) {
            log.info("Task count topic {} exists again (id {}); reading it from the beginning, then writing back the "
                    + "task counts this broker knows", topic, id.get());
        } else {
            lost("was deleted and created again (id " + storeTopicId + ", now " + id.get() + ")", "Nothing to do if "
                    + "it was deleted by mistake: this broker writes back what it knows, and so does every broker that "
                    + "ran since before the deletion; do not restart brokers until the ERROR has been seen on all of "
                    + "them. If you have a copy of its old records, produce them into it.");
        }
        storeTopicMissing = false;
        storeTopicId = id.get();
        storeTopic.recheck(admin, STEP_TIMEOUT);
        return true;
    }

    /**
     * The topic read so far is gone: hold the ids not known here, and read whatever topic of that
     * name comes next from offset 0, with new clients.
     */
    private void lost(String what, String advice) {
        storeTopicLosses.incrementAndGet();
        try {
            events.storeTopicLost();
        } catch (RuntimeException e) {
            log.debug("Counting the loss of the task count topic failed", e);
        }
        int known = counts.storeTopicLost();
        closeReadersAndWriter();
        log.error("Task count topic {} {}. This broker keeps the {} task counts it read and holds every other topic "
                + "(its groups keep their targets, new partitions stay unassigned) until it has read the topic of that "
                + "name from the beginning; then it writes back the task counts that topic lacks. {}", topic, what,
                known, advice);
    }

    /** Drops the consumer and the producer (the admin client stays): the next round opens new ones. */
    private void closeReadersAndWriter() {
        Consumer<byte[], byte[]> closingConsumer = consumer;
        consumer = null;
        if (closingConsumer != null) {
            closeQuietly("consumer", () -> closeConsumer(closingConsumer));
        }
        Producer<byte[], byte[]> closingProducer = producer;
        producer = null;
        if (closingProducer != null) {
            closeQuietly("producer", () -> closingProducer.close(CLIENT_CLOSE_TIMEOUT));
        }
        classicTopicsRead.clear();
    }

    /** Creates the consumer, at the beginning of the topic, and the producer. */
    private void open() {
        Consumer<byte[], byte[]> newConsumer = clients.consumer(settings.consumer());
        try {
            newConsumer.assign(List.of(storePartition));
            newConsumer.seekToBeginning(List.of(storePartition));
            producer = clients.producer(settings.producer(STEP_TIMEOUT.toMillis()));
        } catch (RuntimeException e) {
            closeQuietly("consumer", () -> closeConsumer(newConsumer));
            throw e;
        }
        consumer = newConsumer;
        if (closed.get()) {
            newConsumer.wakeup(); // close() ran before the consumer was published
        }
    }

    /** Reads every assigned partition up to the end offsets of now; each classic topic too once it exists. */
    private void catchUp() {
        long asOfMs = time.milliseconds();
        assignClassicTopicsOnceTheyExist();
        List<TopicPartition> partitions = new ArrayList<>(consumer.assignment());
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, STEP_TIMEOUT);
        long storeEnd = ends.getOrDefault(storePartition, 0L);
        if (consumer.position(storePartition, STEP_TIMEOUT) > storeEnd) {
            log.warn("Task count topic {} ends at offset {}, before what was read: it was truncated, or deleted and "
                    + "created again. Reading it from the beginning, and checking its id now.", topic, storeEnd);
            consumer.seekToBeginning(List.of(storePartition));
            topicIdCheckedAtMs = asOfMs - TOPIC_ID_CHECK_MS; // the next round checks the id
        }
        boolean classicRead = false;
        do {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(TAIL_POLL)) {
                if (record.topic().equals(topic)) {
                    onStoreRecord(record);
                } else {
                    classic.onRecord(record.topic(), record.key(), record.value(), record.offset());
                    classicRead = true;
                }
            }
            if (time.milliseconds() - asOfMs > STEP_TIMEOUT.toMillis()) {
                throw new TimeoutException("reading up to end offsets " + ends + " took longer than " + STEP_TIMEOUT);
            }
        } while (!reached(ends) && !closed.get());
        if (classicRead) {
            counts.seeds(classic.index());
        }
        counts.caughtUpAsOf(asOfMs);
    }

    /**
     * A classic layout topic may be created after this broker started (its first group's first
     * save): each listed topic not found yet is looked for in every round, and read from the round
     * that finds it. One that does not exist holds nothing up.
     */
    private void assignClassicTopicsOnceTheyExist() {
        List<TopicPartition> found = new ArrayList<>();
        for (String classicTopic : classicTopics) {
            if (classicTopicsRead.contains(classicTopic)) {
                continue;
            }
            List<PartitionInfo> infos = consumer.partitionsFor(classicTopic, STEP_TIMEOUT);
            if (infos == null || infos.isEmpty()) {
                continue;
            }
            for (PartitionInfo info : infos) {
                found.add(new TopicPartition(classicTopic, info.partition()));
            }
            classicTopicsRead.add(classicTopic);
            log.info("Task count store reads classic layout topic {} ({} partitions) for migration seeds",
                    classicTopic, infos.size());
        }
        if (found.isEmpty()) {
            return;
        }
        List<TopicPartition> all = new ArrayList<>(consumer.assignment());
        all.addAll(found);
        consumer.assign(all);
        consumer.seekToBeginning(found);
    }

    private boolean reached(Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey(), STEP_TIMEOUT) < end.getValue()) {
                return false;
            }
        }
        return true;
    }

    private void onStoreRecord(ConsumerRecord<byte[], byte[]> record) {
        recordsRead.incrementAndGet();
        Optional<Uuid> topicId = TaskCountRecord.topicId(record.key());
        if (topicId.isEmpty()) {
            malformedRecords.incrementAndGet();
            log.warn("Ignoring the record at offset {} of task count topic {}: its key names no topic id", record.offset(),
                    topic);
            return;
        }
        Optional<TaskCountRecord> decoded = TaskCountRecord.decode(record.value());
        if (decoded.isPresent()) {
            counts.onRecord(topicId.get(), decoded.get(), record.offset());
        } else {
            malformedRecords.incrementAndGet();
            counts.onUnreadable(topicId.get(), record.offset(), record.value() == null ? -1 : record.value().length);
        }
    }

    /** Sends the queued proposals; a failed one is queued again. */
    private void write() {
        List<KnownTaskCounts.Write> writes = counts.takeWrites();
        for (int i = 0; i < writes.size(); i++) {
            KnownTaskCounts.Write write = writes.get(i);
            try {
                producer.send(new ProducerRecord<>(topic, PARTITION, TaskCountRecord.key(write.topicId),
                        write.record.value()), (metadata, failure) -> onWritten(write, failure));
            } catch (RuntimeException e) {
                for (KnownTaskCounts.Write unsent : writes.subList(i, writes.size())) {
                    writeFailures.incrementAndGet();
                    events.writeFailed();
                    counts.onWriteFailed(unsent.topicId);
                }
                throw e;
            }
        }
    }

    /** Runs on the producer's thread. */
    private void onWritten(KnownTaskCounts.Write write, Exception failure) {
        if (failure == null) {
            proposalsWritten.incrementAndGet();
            log.info("Recorded T={} for topic id {} in task count topic {}", write.record.taskCount(), write.topicId,
                    topic);
            return;
        }
        writeFailures.incrementAndGet();
        events.writeFailed();
        counts.onWriteFailed(write.topicId);
        log.warn("Could not record T={} for topic id {} in task count topic {}: {}. Trying again after the next read; "
                + "this broker keeps using T={} meanwhile.", write.record.taskCount(), write.topicId, topic,
                failure.toString(), write.record.taskCount());
    }

    private void failed(Throwable failure) {
        readFailures.incrementAndGet();
        events.readFailed();
        failuresInARow++;
        long now = time.milliseconds();
        if (failingSinceMs < 0) {
            failingSinceMs = now;
        }
        String state = counts.loaded()
                ? "answers from the " + counts.knownTopics() + " task counts read so far, and \"not yet known\" for other "
                        + "topics once its last complete read is " + MAX_STALENESS_MS + " ms old"
                : "answers \"not yet known\" until it has read the topic (groups keep their targets)";
        if (isAuthorization(failure) && !warnedAcl) {
            warnedAcl = true;
            lastWarnMs = now;
            log.warn("The task count store may not use topic {} ({}). Its clients' principal needs Describe, Create, "
                    + "Read and Write on topic {}{}; see docs/operations.md for the kafka-acls.sh commands. The store {}.",
                    topic, failure.toString(), topic, classicTopics.isEmpty() ? ""
                            : ", and Describe and Read on topics " + classicTopics, state);
        } else if (failuresInARow == 1) {
            log.info("Task count store: the cluster does not answer yet via {} ({}); retrying every {} ms. The store "
                    + "{}.", settings.description(), failure.toString(), retryBackoff.toMillis(), state);
        } else if (now - failingSinceMs >= WARN_AFTER_MS && now - lastWarnMs >= WARN_AFTER_MS) {
            lastWarnMs = now;
            log.warn("Task count store: the cluster has not answered for {} s via {} ({} failed rounds), last with: {}. "
                    + "The store {}.", (now - failingSinceMs) / 1000, settings.description(), failuresInARow,
                    failure.toString(), state);
        } else {
            log.debug("Task count store round failed", failure);
        }
    }

    private void recovered() {
        if (failuresInARow > 0) {
            log.info("Task count store reads topic {} again after {} failed rounds", topic, failuresInARow);
        }
        failuresInARow = 0;
        failingSinceMs = -1;
        lastWarnMs = 0;
    }

    private static boolean isAuthorization(Throwable failure) {
        for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof AuthorizationException || t instanceof AuthenticationException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Stops the thread (within about 8 seconds: 5 to finish its round, 3 more once interrupted)
     * and closes the clients; lookups answer not yet known from now on.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        counts.close();
        closing.countDown();
        Consumer<byte[], byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
        Thread running;
        synchronized (this) {
            running = thread;
        }
        if (running == null) {
            closeClients();
            return;
        }
        try {
            running.join(CLOSE_TIMEOUT.toMillis());
            if (running.isAlive()) {
                running.interrupt(); // blocked in an admin or producer call
                running.join(CLIENT_CLOSE_TIMEOUT.toMillis() * 3);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (running.isAlive()) {
            log.warn("The task count store's thread did not stop within {} s", CLOSE_TIMEOUT.getSeconds() + 3);
        }
    }

    private void closeClients() {
        closeReadersAndWriter();
        Admin closingAdmin = admin;
        admin = null;
        if (closingAdmin != null) {
            closeQuietly("admin client", () -> closingAdmin.close(CLIENT_CLOSE_TIMEOUT));
        }
    }

    /**
     * close(Duration), which kafka-clients 4.1 deprecated for close(CloseOptions): brokers from 4.0
     * on run this, and 4.0's clients have no CloseOptions.
     */
    @SuppressWarnings("deprecation")
    private static void closeConsumer(Consumer<byte[], byte[]> closing) {
        closing.close(CLIENT_CLOSE_TIMEOUT);
    }

    private static void closeQuietly(String client, Runnable close) {
        try {
            close.run();
        } catch (RuntimeException e) {
            log.debug("Closing the task count store's {} failed", client, e);
        }
    }

    /** @return the client id of the store's clients on this broker */
    static String clientId(Map<String, ?> brokerConfigs) {
        return "kscale-task-count-store-" + nodeId(brokerConfigs);
    }

    private static String nodeId(Map<String, ?> brokerConfigs) {
        Object id = brokerConfigs.get("node.id");
        if (id == null || id.toString().trim().isEmpty()) {
            id = brokerConfigs.get("broker.id");
        }
        return id == null || id.toString().trim().isEmpty() ? "unknown" : id.toString().trim();
    }

    /** @return whether the first complete read is done (and the store not closed) */
    public boolean loaded() {
        return counts.loaded();
    }

    /** @return records read from the task count topic */
    public long recordsRead() {
        return recordsRead.get();
    }

    /** @return proposals (and migration seeds) the brokers acknowledged */
    public long proposalsWritten() {
        return proposalsWritten.get();
    }

    /** @return writes that failed (each is tried again) */
    public long writeFailures() {
        return writeFailures.get();
    }

    /** @return rounds that failed to read: the cluster did not answer, or refused */
    public long readFailures() {
        return readFailures.get();
    }

    /** @return proposals of this broker that another broker's earlier record overruled */
    public long racesLost() {
        return counts.racesLost();
    }

    /** @return topics whose T came from the classic assignor's layouts */
    public long seededTopics() {
        return counts.seededTopics();
    }

    /** @return records of the task count topic that could not be read */
    public long malformedRecords() {
        return malformedRecords.get();
    }

    /** @return later records of a topic id with another T than its first, ignored */
    public long conflictingRecords() {
        return counts.conflictingRecords();
    }

    /** @return times the topic was found deleted, or deleted and re-created, while this store ran */
    public long storeTopicLosses() {
        return storeTopicLosses.get();
    }

    /** @return topic ids whose T is known here */
    public int knownTopics() {
        return counts.knownTopics();
    }

    /** @return the store's view of the records (tests) */
    KnownTaskCounts counts() {
        return counts;
    }

    @Override
    public String toString() {
        return "KafkaTaskCountStore(topic " + topic + ")";
    }
}
