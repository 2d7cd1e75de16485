package io.kscale.assignor.internals.store;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.lifecycle.ConsumerCloseWatch;
import io.kscale.assignor.internals.time.Clock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LayoutStore} on the brokers: one record per group in a small compacted topic, keyed by
 * group id, whose value is the {@link LayoutCodec} form of the group's layout. Compaction keeps
 * the latest record per group, so the topic stays small however often layouts change.
 *
 * <p>How a call works. {@link #save} makes sure the topic exists (one partition, compacted; an
 * existing topic is fine, but one whose {@code cleanup.policy} is not {@code compact} gets one
 * WARN with the command that fixes it), then produces the record to partition 0 with
 * {@code acks=all} and idempotence, and waits for the ack. {@link #load} reads partition 0 up to
 * its end offset with an unsubscribed consumer that it keeps between loads
 * ({@link LayoutTopicReader}): the first load reads from the beginning, each later one only what
 * was appended since, and the last value under the group's key is the layout. Worked example:
 * groups {@code g1} and {@code g2} share the topic, which holds {@code [0] g1->epoch 1, [1]
 * g2->epoch 4, [2] g1->epoch 2}; the first {@code load()} for {@code g1} reads offsets 0-2 and
 * returns epoch 2; after {@code [3] g1->epoch 3} it reads offset 3 only and returns epoch 3. A
 * null value (a tombstone) means no layout: the leader writes one when every topic of the layout
 * has been forgotten (the consumer assignor's {@code kscale.assignor.layout.forget.after.ms}); a single
 * forgotten topic needs none, since the group's next record, without it, replaces the last. A value
 * that does not decode is untrusted input, logged once and ignored: {@code load()} then reports a
 * failure, and the leader derives the layout from its members and the partition counts.
 *
 * <p>Clients. A save creates its producer (and, until the topic is known to exist, an admin
 * client) and closes them before it returns: saves are rare and run on the writer thread of
 * {@link LayoutPersistence}, so their cost does not matter, and nothing with a thread of its own
 * stays open. The load's consumer has no thread and stays open until {@link #close()} (the
 * consumer closing, see {@link ConsumerCloseWatch}). Every blocking step of a call counts against
 * the call's {@link Deadline}, closing included (each close at most a second).
 *
 * <p>Settings. The clients are created with the consumer's own connection and security settings
 * ({@code bootstrap.servers}, {@code security.protocol}, {@code ssl.*}, {@code sasl.*}, ...). The store must reach the very cluster the group lives on, as the principal
 * the group's members authenticate as, so that the ACLs granted to the application cover the
 * topic too; a second set of settings would be one more copy of secrets for users to keep in sync
 * with the consumer's. Only keys that the consumer itself knows and that every client shares
 * (those in {@link AdminClientConfig#configNames()}) are kept, and of those only the ones the
 * client being built knows; group, serde, interceptor, metric reporter and client id settings are
 * always dropped (see {@link #DROPPED}), and the store sets its own: client id
 * {@code <consumer client.id>-layout-store}, byte array serdes, {@code acks=all} and idempotence
 * for the producer, no group and no auto commit for the consumer.
 *
 * <p>Best effort, as {@link LayoutStore} requires: no method throws; failures (timeouts, missing
 * ACLs, a malformed stored value) are logged, reported in the result and counted in
 * {@link #failures()}. A call the brokers refuse for want of an ACL logs one WARN per store that
 * names the principal and the ACL (e.g. {@code User:app lacks WRITE on topic kscale-assignor-layouts})
 * with the {@code kafka-acls.sh} command granting what the store needs; later refusals go to DEBUG.
 *
 * <p>Threads: a load and a save may run at the same time (the consumer's thread and the writer);
 * they share only the fields marked volatile or atomic.
 */
public final class KafkaLayoutStore implements LayoutStore {

    /** Appended to the consumer's client id to name the store's clients. */
    static final String CLIENT_ID_SUFFIX = "-layout-store";

    /** The client id prefix when the consumer has none. */
    static final String DEFAULT_CLIENT_ID = "kscale";

    /**
     * Consumer settings never passed on, even when the client being built knows them: the store's
     * clients join no group, run none of the application's plug-ins and name themselves.
     * {@code config.providers} is dropped because the values handed to an assignor are already
     * resolved.
     */
    static final Set<String> DROPPED = Set.of(
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ConsumerConfig.GROUP_ID_CONFIG,
            ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
            ConsumerConfig.GROUP_PROTOCOL_CONFIG,
            ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG,
            ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
            ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG,
            ConsumerConfig.METRIC_REPORTER_CLASSES_CONFIG,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            ConsumerConfig.CLIENT_ID_CONFIG,
            AbstractConfig.CONFIG_PROVIDERS_CONFIG);

    /**
     * The topic's settings. Compaction keeps the latest record per group; it skips the active
     * segment, so a day-long segment lets it run on a topic this small.
     */
    static final Map<String, String> TOPIC_CONFIGS = Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
            TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, "0",
            TopicConfig.SEGMENT_MS_CONFIG, Long.toString(TimeUnit.DAYS.toMillis(1)));

    private static final Duration MAX_CLOSE_TIMEOUT = Duration.ofSeconds(1);
    private static final int PARTITION = 0;

    private static final Logger log = LoggerFactory.getLogger(KafkaLayoutStore.class);
    private static final Pattern JAAS_USERNAME = Pattern.compile("username\\s*=\\s*\"([^\"]+)\"");

    private final String groupId;
    private final String topic;
    private final byte[] key;
    private final short replicationFactor;
    private final Duration timeout;
    private final Map<String, Object> adminSettings;
    private final Map<String, Object> producerSettings;
    private final StoreClients clients;
    private final Clock time;
    private final StoreAdvice advice;
    private final LayoutTopicReader reader;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicBoolean warnedNotCompacted = new AtomicBoolean();
    private final AtomicBoolean warnedUnauthorized = new AtomicBoolean();
    /** The principal the store's clients authenticate as, for the missing-ACL WARN. */
    private final String principal;
    /** Whether the last create of the topic was refused (no CREATE ACL): a later save timeout then says so. */
    private volatile boolean createDenied;
    /** Whether a save found or created the topic; cleared by a failed save, so the next one checks again. */
    private volatile boolean topicReady;
    /** The offset of the malformed value last warned about, so each one is warned about once. */
    private volatile long warnedMalformedOffset = -1;

    /**
     * Creates a store; it connects to nothing until {@link #load()} or {@link #save} is called.
     *
     * @param groupId the consumer group whose layout is stored, the record key
     * @param topic the compacted topic that holds the layouts, created by the first save if missing
     * @param replicationFactor the topic's replication factor, or -1 for the brokers' default
     * @param timeout the longest {@link #load()} or {@link #save(GroupLayout)} blocks, closes included
     * @param consumerConfigs the consumer's settings as handed to {@code configure}, unknown keys included
     * @param advice how the WARNs name the owner's settings and what it does while the store cannot be read
     * @throws IllegalArgumentException if the group id is empty, the topic name illegal, the
     *     replication factor neither -1 nor positive, or the timeout not positive
     */
    public KafkaLayoutStore(String groupId, String topic, short replicationFactor, Duration timeout,
                     Map<String, ?> consumerConfigs, StoreAdvice advice) {
        this(groupId, topic, replicationFactor, timeout, consumerConfigs, advice, StoreClients.KAFKA, Clock.SYSTEM);
    }

    /** As above, with the clients and the clock given (tests: mock clients). */
    public KafkaLayoutStore(String groupId, String topic, short replicationFactor, Duration timeout,
                     Map<String, ?> consumerConfigs, StoreAdvice advice, StoreClients clients, Clock time) {
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(consumerConfigs, "consumerConfigs");
        this.advice = Objects.requireNonNull(advice, "advice");
        if (groupId.isEmpty()) {
            throw new IllegalArgumentException("the layout store needs a group id; got an empty one");
        }
        if (!TopicLayout.isLegalName(topic)) {
            throw new IllegalArgumentException("layout store topic '" + topic + "' is not a legal Kafka topic name");
        }
        if (replicationFactor != -1 && replicationFactor < 1) {
            throw new IllegalArgumentException("layout store replication factor " + replicationFactor
                    + " must be -1 (the brokers' default) or at least 1");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("layout store timeout " + timeout + " must be positive");
        }
        this.groupId = groupId;
        this.topic = topic;
        this.key = groupId.getBytes(StandardCharsets.UTF_8);
        this.replicationFactor = replicationFactor;
        this.timeout = timeout;
        this.clients = Objects.requireNonNull(clients, "clients");
        this.time = Objects.requireNonNull(time, "time");
        this.principal = principal(consumerConfigs);
        this.adminSettings = adminSettings(consumerConfigs);
        this.producerSettings = producerSettings(consumerConfigs);
        Map<String, Object> consumerSettings = consumerSettings(consumerConfigs);
        this.reader = new LayoutTopicReader(new TopicPartition(topic, PARTITION), key,
                () -> clients.consumer(consumerSettings), this::describeTopicId);
    }

    /** @return how many loads and saves failed so far, malformed stored values included */
    public long failures() {
        return failures.get();
    }

    /** Loads within this store's timeout (tests). */
    public Optional<GroupLayout> load() {
        return load(Deadline.after(time, timeout)).layout();
    }

    @Override
    public Loaded load(Deadline deadline) {
        String cause;
        try {
            return decode(reader.readLatest(deadline));
        } catch (TimeoutException e) {
            cause = e.toString(); // the reader keeps its consumer and position: the next load goes on from there
        } catch (RuntimeException e) {
            cause = e.toString();
            reader.reset(deadline.remainingAtMost(MAX_CLOSE_TIMEOUT));
            log.debug("Reading the layout of group {} failed", groupId, e);
            if (warnIfUnauthorized(e, "load")) {
                return Loaded.FAILED;
            }
        }
        failures.incrementAndGet();
        log.warn("Could not read the stored layout of group {} from topic {} in time: {}. {} ({} layout store failures "
                + "so far).", groupId, topic, cause, advice.whileUnreadable(), failures.get());
        return Loaded.FAILED;
    }

    /** @return records the loads of this store read so far (tests: each load reads only what is new) */
    public long recordsRead() {
        return reader.recordsRead();
    }

    /**
     * The store topic's id, from a short-lived admin client (the consumer API has no topic ids):
     * how the reader tells a re-created topic whatever its end offset (issue 17).
     *
     * @return the id, or null if the topic does not exist or the brokers give none
     */
    private Uuid describeTopicId(String name, Deadline deadline) {
        Admin admin = clients.admin(adminSettings);
        try {
            long left = deadline.remainingMs();
            TopicDescription description = admin.describeTopics(List.of(name),
                    new DescribeTopicsOptions().timeoutMs((int) Math.min(Integer.MAX_VALUE, Math.max(1, left))))
                    .topicNameValues().get(name).get(left, TimeUnit.MILLISECONDS);
            Uuid id = description == null ? null : description.topicId();
            return id == null || Uuid.ZERO_UUID.equals(id) ? null : id;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return null;
            }
            throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause()
                    : new org.apache.kafka.common.KafkaException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new TimeoutException("describing topic " + name);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.apache.kafka.common.errors.InterruptException(e);
        } finally {
            closeQuietly("admin client", () -> admin.close(deadline.remainingAtMost(MAX_CLOSE_TIMEOUT)));
        }
    }

    private Loaded decode(ConsumerRecord<byte[], byte[]> latest) {
        if (latest == null) {
            log.debug("No layout stored for group {} in topic {}", groupId, topic);
            return Loaded.NOTHING;
        }
        if (latest.value() == null) {
            log.debug("The layout of group {} in topic {} was deleted at offset {}", groupId, topic, latest.offset());
            return Loaded.NOTHING;
        }
        Optional<GroupLayout> layout = LayoutCodec.decode(ByteBuffer.wrap(latest.value()));
        if (layout.isPresent()) {
            log.debug("Loaded layout epoch {} of group {} from topic {} offset {}", layout.get().epoch(), groupId, topic,
                    latest.offset());
            return Loaded.of(layout.get());
        }
        failures.incrementAndGet();
        if (warnedMalformedOffset != latest.offset()) {
            warnedMalformedOffset = latest.offset();
            log.warn("Ignoring the stored layout of group {} in topic {}: the value at offset {} ({} bytes) is not a "
                    + "layout. The leader derives the layout from its members and the partition counts; the next "
                    + "save replaces the value.", groupId, topic, latest.offset(), latest.value().length);
        }
        return Loaded.FAILED;
    }

    /** Saves within this store's timeout (tests). */
    public boolean save(GroupLayout layout) {
        return save(layout, Deadline.after(time, timeout));
    }

    @Override
    public boolean save(GroupLayout layout, Deadline deadline) {
        if (layout == null) {
            failures.incrementAndGet();
            log.warn("Not storing a null layout for group {} in topic {}", groupId, topic);
            return false;
        }
        String cause;
        Throwable failure = null;
        try {
            if (!topicReady) {
                ensureTopic(deadline);
                topicReady = true;
            }
            produce(layout, deadline);
            if (layout.isEmpty()) {
                log.info("Deleted the layout record of group {} in topic {} with a tombstone: no topic is left in "
                        + "layout epoch {}", groupId, topic, layout.epoch());
            } else {
                log.info("Stored layout epoch {} of group {} in topic {}", layout.epoch(), groupId, topic);
            }
            return true;
        } catch (ExecutionException e) {
            failure = e.getCause();
            cause = String.valueOf(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            cause = "timed out";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cause = "interrupted";
        } catch (RuntimeException e) {
            failure = e;
            cause = e.toString();
        }
        topicReady = false;
        if (failure != null && warnIfUnauthorized(failure, "save")) {
            return false;
        }
        if (createDenied) {
            cause += " (" + principal + " may not create topic " + topic + " either: grant it CREATE on the topic, or "
                    + "create the topic beforehand)";
        }
        failures.incrementAndGet();
        log.warn("Could not store layout epoch {} of group {} in topic {} in time: {}. The leader tries again at the "
                + "next rebalance. Until a save succeeds, the layout survives only while a member of the group is "
                + "alive: if every member stops, the leader derives task counts from the partition counts again, and "
                + "keys of expanded topics may move to other tasks ({} layout store failures so far).", layout.epoch(),
                groupId, topic, cause, failures.get());
        return false;
    }

    private void ensureTopic(Deadline deadline)
            throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
        Optional<Short> replicas = replicationFactor == -1 ? Optional.empty() : Optional.of(replicationFactor);
        NewTopic newTopic = new NewTopic(topic, Optional.of(1), replicas).configs(TOPIC_CONFIGS);
        Admin admin = clients.admin(adminSettings);
        try {
            long left = deadline.remainingMs();
            admin.createTopics(List.of(newTopic), new CreateTopicsOptions().timeoutMs((int) Math.max(1, left)))
                    .all().get(left, TimeUnit.MILLISECONDS);
            createDenied = false;
            log.info("Created compacted topic {} for the task layouts of consumer groups", topic);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof TopicExistsException) {
                createDenied = false;
                checkCompacted(admin, deadline);
                return;
            }
            if (cause instanceof TopicAuthorizationException || cause instanceof ClusterAuthorizationException) {
                createDenied = true;
                // An operator may have created the topic for a principal that may not; the write tells.
                log.debug("May not create topic {} ({}); writing to it in case it exists", topic, cause.toString());
                checkCompacted(admin, deadline);
                return;
            }
            throw e;
        } finally {
            closeQuietly("admin client", () -> admin.close(deadline.remainingAtMost(MAX_CLOSE_TIMEOUT)));
        }
    }

    /**
     * Warns once if the existing topic is not compacted: the brokers then delete the layouts after
     * {@code retention.ms} (7 days by default), and a full restart after that takes the partition
     * counts as task counts. Only a WARN: the store works until then, and changing a topic's
     * settings is the operator's call. A topic that cannot be described (no DescribeConfigs ACL)
     * is not checked.
     */
    private void checkCompacted(Admin admin, Deadline deadline) throws InterruptedException {
        if (warnedNotCompacted.get()) {
            return;
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try {
            Config config = admin.describeConfigs(List.of(resource)).all()
                    .get(deadline.remainingMs(), TimeUnit.MILLISECONDS).get(resource);
            ConfigEntry entry = config == null ? null : config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
            String policy = entry == null ? null : entry.value();
            if (!isCompactedOnly(policy) && warnedNotCompacted.compareAndSet(false, true)) {
                log.warn(notCompactedWarning(topic, policy, advice));
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException | RuntimeException e) {
            log.debug("Could not read the cleanup.policy of layout store topic {}: {}", topic, e.toString());
        }
    }

    /** @return whether the policy keeps every group's latest record for good: {@code compact}, without {@code delete} */
    public static boolean isCompactedOnly(String policy) {
        if (policy == null) {
            return false;
        }
        boolean compact = false;
        for (String part : policy.split(",")) {
            String value = part.trim();
            if (value.equals(TopicConfig.CLEANUP_POLICY_DELETE)) {
                return false;
            }
            compact |= value.equals(TopicConfig.CLEANUP_POLICY_COMPACT);
        }
        return compact;
    }

    /** The WARN for a layout topic whose cleanup.policy is not {@code compact}, with the fix. */
    public static String notCompactedWarning(String topic, String policy, StoreAdvice advice) {
        return "Layout store topic " + topic + " has cleanup.policy=" + policy + ", not compact: the brokers delete "
                + "the group layouts in it after retention.ms, and a group that restarts entirely after that takes its "
                + "topics' partition counts as task counts (keys of expanded topics move). Fix it with: "
                + "kafka-configs.sh --bootstrap-server <brokers> --alter --entity-type topics --entity-name " + topic
                + " --add-config cleanup.policy=compact (or set " + advice.topicSetting()
                + " to a new topic, which the assignor creates compacted).";
    }

    /** @return whether the not-compacted WARN was logged (tests) */
    public boolean warnedNotCompacted() {
        return warnedNotCompacted.get();
    }

    /** Closes the load's consumer; the next load opens a new one and reads from the beginning. */
    @Override
    public void close() {
        reader.reset(MAX_CLOSE_TIMEOUT);
    }

    /**
     * The record value that stores a layout: its {@link LayoutCodec} form, or null (a tombstone)
     * for a layout with no topic left, so that compaction removes the group's record altogether.
     *
     * @param layout the layout to store
     * @return the value, or null for a tombstone
     */
    public static byte[] recordValue(GroupLayout layout) {
        if (layout.isEmpty()) {
            return null;
        }
        ByteBuffer encoded = LayoutCodec.encode(layout);
        byte[] value = new byte[encoded.remaining()];
        encoded.get(value);
        return value;
    }

    private void produce(GroupLayout layout, Deadline deadline)
            throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
        byte[] value = recordValue(layout);
        Map<String, Object> settings = new HashMap<>(producerSettings);
        // send() blocks for metadata up to max.block.ms: give it what is left of this call.
        settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, deadline.remainingMs());
        Producer<byte[], byte[]> producer = clients.producer(settings);
        try {
            producer.send(new ProducerRecord<>(topic, PARTITION, key, value))
                    .get(deadline.remainingMs(), TimeUnit.MILLISECONDS);
        } finally {
            closeQuietly("producer", () -> producer.close(deadline.remainingAtMost(MAX_CLOSE_TIMEOUT)));
        }
    }

    /**
     * The settings of the store's admin client.
     *
     * @param consumerConfigs the consumer's settings
     * @return its connection and security settings, and the store's client id
     */
    public static Map<String, Object> adminSettings(Map<String, ?> consumerConfigs) {
        return connectionSettings(consumerConfigs, AdminClientConfig.configNames());
    }

    /**
     * The settings of the store's producer ({@code max.block.ms} is set per call).
     *
     * @param consumerConfigs the consumer's settings
     * @return its connection and security settings, the store's client id, byte array
     *     serializers, {@code acks=all} and idempotence
     */
    public static Map<String, Object> producerSettings(Map<String, ?> consumerConfigs) {
        return StoreClients.withProducerDefaults(connectionSettings(consumerConfigs, ProducerConfig.configNames()));
    }

    /**
     * The settings of the store's consumer.
     *
     * @param consumerConfigs the consumer's settings
     * @return its connection and security settings, the store's client id, byte array
     *     deserializers, no group and no auto commit or topic creation
     */
    public static Map<String, Object> consumerSettings(Map<String, ?> consumerConfigs) {
        return StoreClients.withConsumerDefaults(connectionSettings(consumerConfigs, ConsumerConfig.configNames()));
    }

    /**
     * The consumer's settings that the consumer knows, every client shares and {@code known}
     * contains, minus {@link #DROPPED}, plus the store's client id.
     */
    private static Map<String, Object> connectionSettings(Map<String, ?> consumerConfigs, Set<String> known) {
        Set<String> consumerKnown = ConsumerConfig.configNames();
        Set<String> shared = AdminClientConfig.configNames();
        Map<String, Object> settings = new HashMap<>();
        for (Map.Entry<String, ?> entry : consumerConfigs.entrySet()) {
            String name = entry.getKey();
            if (name != null && entry.getValue() != null && consumerKnown.contains(name) && shared.contains(name)
                    && known.contains(name) && !DROPPED.contains(name)) {
                settings.put(name, entry.getValue());
            }
        }
        settings.put(ConsumerConfig.CLIENT_ID_CONFIG, clientIdPrefix(consumerConfigs) + CLIENT_ID_SUFFIX);
        return settings;
    }

    private static String clientIdPrefix(Map<String, ?> consumerConfigs) {
        Object clientId = consumerConfigs.get(ConsumerConfig.CLIENT_ID_CONFIG);
        String prefix = clientId == null ? "" : clientId.toString().trim();
        return prefix.isEmpty() ? DEFAULT_CLIENT_ID : prefix;
    }

    /**
     * If the brokers refused a load or save for want of an ACL: counts the failure and logs one
     * WARN per store naming the ACL (later refusals at DEBUG: the leader retries at every
     * rebalance, and the metric counts them).
     *
     * @return whether {@code failure} was an authorization failure
     */
    private boolean warnIfUnauthorized(Throwable failure, String call) {
        String acl = missingAcl(failure, topic, call.equals("load"));
        if (acl == null) {
            return false;
        }
        failures.incrementAndGet();
        if (warnedUnauthorized.compareAndSet(false, true)) {
            log.warn(missingAclWarning(principal, acl, call, groupId, topic, failures.get()));
        } else {
            log.debug("The layout store of group {} may not {} ({} lacks {}): {}", groupId, call, principal, acl,
                    failure.toString());
        }
        return true;
    }

    /**
     * The ACL whose absence an error means, as {@code OPERATION on resource}, or null when the
     * error is no authorization failure.
     *
     * @param failure what a client of the store threw, or the cause of its failed future
     * @param topic the store's topic
     * @param reading whether the failure came from reading (a load) or writing (a save)
     */
    static String missingAcl(Throwable failure, String topic, boolean reading) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof TopicAuthorizationException) {
                return (reading ? "READ" : "WRITE") + " on topic " + topic;
            }
            if (t instanceof ClusterAuthorizationException) {
                return "IDEMPOTENT_WRITE on the cluster";
            }
            if (t instanceof GroupAuthorizationException) {
                String group = ((GroupAuthorizationException) t).groupId();
                return "READ on group " + (group == null ? "(unnamed)" : group);
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    /** The WARN for a store call refused for want of an ACL, with the ACLs the store needs and the command that grants them. */
    static String missingAclWarning(String principal, String acl, String call, String groupId, String topic,
                                    long failures) {
        String grantee = principal.startsWith("User:") ? principal : "User:<principal>";
        return principal + " lacks " + acl + ", so the layout store of group " + groupId + " cannot " + call
                + " the group's layout. The store needs READ and WRITE on topic " + topic + ", and CREATE on it unless "
                + "the topic exists; grant them with: kafka-acls.sh --bootstrap-server <brokers> --command-config "
                + "<admin.properties> --add --allow-principal " + grantee + " --operation Read --operation Write "
                + "--operation Create --topic " + topic + ". Until then the group works without a stored layout: if "
                + "every member stops, keys of expanded topics may move to other tasks (" + failures + " layout store "
                + "failures so far; later refusals are logged at DEBUG and counted in layout-store-failures-total).";
    }

    /**
     * The principal the store's clients log in as, when the consumer's settings name it (a
     * SASL {@code username} in {@code sasl.jaas.config}), else a description.
     */
    static String principal(Map<String, ?> consumerConfigs) {
        Object jaas = consumerConfigs.get(SaslConfigs.SASL_JAAS_CONFIG);
        String text = jaas instanceof Password ? ((Password) jaas).value() : jaas == null ? "" : jaas.toString();
        Matcher user = JAAS_USERNAME.matcher(text);
        return user.find() ? "User:" + user.group(1) : "the consumer's principal";
    }

    private void closeQuietly(String client, Runnable close) {
        try {
            close.run();
        } catch (RuntimeException e) {
            log.debug("Closing the layout store's {} for group {} failed", client, groupId, e);
        }
    }

    @Override
    public String toString() {
        return "KafkaLayoutStore(topic " + topic + ", group " + groupId + ")";
    }
}
