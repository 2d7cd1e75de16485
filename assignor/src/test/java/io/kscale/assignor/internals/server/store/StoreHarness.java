package io.kscale.assignor.internals.server.store;

import io.kscale.assignor.MockTime;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.server.ServerAssignorMetrics;
import io.kscale.assignor.internals.store.StoreClients;
import io.kscale.assignor.internals.store.TaskCountRecord;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeConfigsResult;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A {@link KafkaTaskCountStore} over Kafka's mock clients, with a log per topic that the test and
 * the store's producer append to: {@link #step()} delivers to the mock consumer what was appended
 * since the last round, and afterwards appends what the producer sent (as the broker would). The
 * clock moves only when a test moves it.
 */
final class StoreHarness {

    static final String TOPIC = "kscale-task-counts";
    static final String CLASSIC = "kscale-assignor-layouts";
    static final TopicPartition STORE = new TopicPartition(TOPIC, 0);
    /** A second classic layout topic, of groups that set their own kscale.assignor.layout.store.topic. */
    static final String CLASSIC_OTHER = "team-b-layouts";
    static final Map<String, Object> PLAINTEXT_BROKER = Map.of("node.id", "1",
            "listeners", "PLAINTEXT://:9092,CONTROLLER://:9093", "controller.listener.names", "CONTROLLER");

    final MockTime time = new MockTime(1_700_000_000_000L);
    /** The store's latest consumer and producer (it makes new ones when its topic was lost). */
    MockConsumer<byte[], byte[]> consumer;
    MockProducer<byte[], byte[]> producer = newProducer();
    /** What every producer of the store sent, in order. */
    private final List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
    final List<ConsumerRecord<byte[], byte[]>> storeLog = new ArrayList<>();
    /** The classic layout topics' logs (one partition each), by topic. */
    final Map<String, List<ConsumerRecord<byte[], byte[]>>> classicLogs = Map.of(CLASSIC, new ArrayList<>(),
            CLASSIC_OTHER, new ArrayList<>());
    final List<ConsumerRecord<byte[], byte[]>> classicLog = classicLogs.get(CLASSIC);
    final AtomicInteger clientsCreated = new AtomicInteger();
    final List<NewTopic> created = new ArrayList<>();
    /** Whether the store topic exists (createTopics then answers "exists"). */
    boolean topicExists;
    /** The store topic's id while it exists. */
    Uuid topicId = new Uuid(7, 1);
    String cleanupPolicy = "delete";
    /** What the admin client's createTopics fails with, if anything. */
    RuntimeException createFailure;
    final KafkaTaskCountStore store;
    private int storeDelivered;
    private final Map<String, Integer> classicDelivered = new HashMap<>();
    private int producerAppended;

    StoreHarness() {
        this(PLAINTEXT_BROKER, Map.of(), List.of(CLASSIC));
    }

    /** The classic layout topics that exist. */
    private final List<String> classicTopicsCreated = new ArrayList<>();
    /** What the store reported: failed reads and writes, lost topics. */
    final ServerAssignorMetrics metrics = new ServerAssignorMetrics(() -> 0);

    StoreHarness(Map<String, ?> brokerConfigs, Map<String, ?> overrides, List<String> classicTopics) {
        consumer = newConsumer();
        store = new KafkaTaskCountStore(brokerConfigs, TOPIC, (short) -1, "", overrides, classicTopics,
                Duration.ofSeconds(1), metrics, new MockClients(), time,
                KafkaTaskCountStore.MAX_STALENESS_MS);
    }

    private MockConsumer<byte[], byte[]> newConsumer() {
        MockConsumer<byte[], byte[]> fresh = new MockConsumer<>("earliest");
        fresh.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
        for (String classicTopic : classicTopicsCreated) {
            fresh.updatePartitions(classicTopic, List.of(new PartitionInfo(classicTopic, 0, null, null, null)));
        }
        fresh.updateBeginningOffsets(Map.of(STORE, 0L, classic(CLASSIC), 0L, classic(CLASSIC_OTHER), 0L));
        consumer = fresh;
        updateEndOffsets();
        storeDelivered = 0;
        classicDelivered.clear();
        fresh.schedulePollTask(this::deliver); // made during a round: that round's task went to the closed one
        return fresh;
    }

    private static MockProducer<byte[], byte[]> newProducer() {
        return new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Deletes the store topic: its log is gone, and describing it answers "unknown topic". */
    void deleteStoreTopic() {
        topicExists = false;
        storeLog.clear();
    }

    /** Creates the store topic again (by an operator, or by another broker that started): a new id, an empty log. */
    void recreateStoreTopic() {
        deleteStoreTopic();
        topicExists = true;
        topicId = new Uuid(topicId.getMostSignificantBits() + 1, 1);
    }

    /** The classic layout topic exists from now on. */
    void createClassicTopic() {
        createClassicTopic(CLASSIC);
    }

    /** This classic layout topic exists from now on. */
    void createClassicTopic(String classicTopic) {
        classicTopicsCreated.add(classicTopic);
        consumer.updatePartitions(classicTopic, List.of(new PartitionInfo(classicTopic, 0, null, null, null)));
    }

    private static TopicPartition classic(String classicTopic) {
        return new TopicPartition(classicTopic, 0);
    }

    private void updateEndOffsets() {
        consumer.updateEndOffsets(Map.of(STORE, (long) storeLog.size(),
                classic(CLASSIC), (long) classicLogs.get(CLASSIC).size(),
                classic(CLASSIC_OTHER), (long) classicLogs.get(CLASSIC_OTHER).size()));
    }

    /** One round of the store, with what the logs hold; then the broker appends what the store sent. */
    boolean step() {
        updateEndOffsets();
        consumer.schedulePollTask(this::deliver);
        boolean completed = store.step();
        List<ProducerRecord<byte[], byte[]>> history = producer.history();
        for (ProducerRecord<byte[], byte[]> record : history.subList(producerAppended, history.size())) {
            sent.add(record);
            if (topicExists) {
                appendRaw(record.key(), record.value());
            }
        }
        producerAppended = history.size();
        return completed;
    }

    private void deliver() {
        if (!consumer.assignment().contains(STORE)) {
            return;
        }
        for (; storeDelivered < storeLog.size(); storeDelivered++) {
            consumer.addRecord(storeLog.get(storeDelivered));
        }
        classicLogs.forEach((classicTopic, records) -> {
            if (consumer.assignment().contains(classic(classicTopic))) {
                int delivered = classicDelivered.getOrDefault(classicTopic, 0);
                for (; delivered < records.size(); delivered++) {
                    consumer.addRecord(records.get(delivered));
                }
                classicDelivered.put(classicTopic, delivered);
            }
        });
    }

    /** Another broker's record (or this one's, landed) at the end of the store log. */
    void append(Uuid topicId, int taskCount, int partitionCount, String writer) {
        appendRaw(TaskCountRecord.key(topicId), new TaskCountRecord(taskCount, partitionCount, 1L, writer).value());
    }

    void appendRaw(byte[] key, byte[] value) {
        storeLog.add(new ConsumerRecord<>(TOPIC, 0, storeLog.size(), key, value));
    }

    /** A classic group's layout at the end of the classic layout topic. */
    void appendClassic(String group, GroupLayout layout) {
        appendClassic(CLASSIC, group, layout);
    }

    /** A classic group's layout at the end of this classic layout topic. */
    void appendClassic(String classicTopic, String group, GroupLayout layout) {
        ByteBuffer encoded = LayoutCodec.encode(layout);
        byte[] value = new byte[encoded.remaining()];
        encoded.get(value);
        List<ConsumerRecord<byte[], byte[]>> records = classicLogs.get(classicTopic);
        records.add(new ConsumerRecord<>(classicTopic, 0, records.size(), group.getBytes(StandardCharsets.UTF_8),
                value));
    }

    /** @return the task counts the store sent, as "topic id -> T" */
    List<String> written() {
        List<String> written = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> record : sent) {
            written.add(TaskCountRecord.topicId(record.key()).orElseThrow() + " -> "
                    + TaskCountRecord.decode(record.value()).orElseThrow().taskCount());
        }
        return written;
    }

    private final class MockClients implements StoreClients {
        @Override
        public Consumer<byte[], byte[]> consumer(Map<String, Object> settings) {
            clientsCreated.incrementAndGet();
            return consumer.closed() ? newConsumer() : consumer;
        }

        @Override
        public Producer<byte[], byte[]> producer(Map<String, Object> settings) {
            clientsCreated.incrementAndGet();
            if (producer.closed()) {
                producer = newProducer();
                producerAppended = 0;
            }
            return producer;
        }

        @Override
        public Admin admin(Map<String, Object> settings) {
            clientsCreated.incrementAndGet();
            return (Admin) Proxy.newProxyInstance(Admin.class.getClassLoader(), new Class<?>[] {Admin.class},
                    (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "createTopics":
                                if (createFailure instanceof org.apache.kafka.common.errors.AuthorizationException) {
                                    KafkaFutureImpl<CreateTopicsResult.TopicMetadataAndConfig> denied = new KafkaFutureImpl<>();
                                    denied.completeExceptionally(createFailure);
                                    return new CreateTopicsResult(Map.of(TOPIC, denied)) { };
                                }
                                if (createFailure != null) {
                                    throw createFailure;
                                }
                                KafkaFutureImpl<CreateTopicsResult.TopicMetadataAndConfig> result = new KafkaFutureImpl<>();
                                if (topicExists) {
                                    result.completeExceptionally(new TopicExistsException(TOPIC));
                                } else {
                                    @SuppressWarnings("unchecked")
                                    java.util.Collection<NewTopic> topics = (java.util.Collection<NewTopic>) args[0];
                                    created.addAll(topics);
                                    topicExists = true;
                                    result.complete(null);
                                }
                                return new CreateTopicsResult(Map.of(TOPIC, result)) { };
                            case "describeConfigs":
                                ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
                                Config config = new Config(List.of(new ConfigEntry("cleanup.policy", cleanupPolicy),
                                        new ConfigEntry("retention.ms", "-1"), new ConfigEntry("retention.bytes", "-1")));
                                return new DescribeConfigsResult(Map.of(resource, KafkaFuture.completedFuture(config))) { };
                            case "describeTopics":
                                KafkaFutureImpl<TopicDescription> description = new KafkaFutureImpl<>();
                                if (topicExists) {
                                    description.complete(new TopicDescription(TOPIC, false, List.of(), Set.of(), topicId));
                                } else {
                                    description.completeExceptionally(new UnknownTopicOrPartitionException(TOPIC));
                                }
                                return new DescribeTopicsResult(null, Map.of(TOPIC, description)) { };
                            case "close":
                                return null;
                            default:
                                throw new UnsupportedOperationException(method.getName());
                        }
                    });
        }
    }
}
