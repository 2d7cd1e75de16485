package io.kscale.assignor.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.MockTime;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeConfigsResult;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.internals.KafkaFutureImpl;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaLayoutStore} over Kafka's mock clients (issue 11): each load reads only what was
 * appended since the last one, and an existing topic that is not compacted gets one WARN. Before
 * the fix every load created a consumer and read the topic from offset 0, and any existing topic
 * was taken whatever its {@code cleanup.policy}.
 */
class KafkaLayoutStoreMockedTest {

    private static final String GROUP = "orders-app";
    private static final String TOPIC = "kscale-assignor-layouts";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** The owner's words in the store's WARNs; any adapter's would do. */
    private static final StoreAdvice ADVICE = new StoreAdvice("test.layout.store.topic", "The test goes on without it");

    private final MockTime time = new MockTime(1_700_000_000_000L);
    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final AtomicInteger consumersCreated = new AtomicInteger();
    private String cleanupPolicy = "compact";
    private final AtomicInteger describes = new AtomicInteger();
    /** The store topic's id, as the admin client describes it. */
    private Uuid topicId = new Uuid(17, 1);
    /** What describing the topic fails with, if anything. */
    private RuntimeException describeFailure;

    private final KafkaLayoutStore store = new KafkaLayoutStore(GROUP, TOPIC, (short) -1, TIMEOUT,
            Map.of("bootstrap.servers", "127.0.0.1:9", "group.id", GROUP), ADVICE, new MockClients(), time);

    @Test
    void shouldReadOnlyTheRecordsAppendedSinceTheLastLoad() {
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
        consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
        consumer.updateEndOffsets(Map.of(PARTITION, 3L));
        consumer.schedulePollTask(() -> {
            consumer.addRecord(record(0, GROUP, layout(1)));
            consumer.addRecord(record(1, "payments-app", layout(4)));
            consumer.addRecord(record(2, GROUP, layout(2)));
        });
        assertThat(store.load()).contains(layout(2));
        assertThat(store.recordsRead()).isEqualTo(3);

        consumer.addRecord(record(3, "payments-app", layout(5)));
        consumer.addRecord(record(4, GROUP, layout(3)));
        consumer.updateEndOffsets(Map.of(PARTITION, 5L));
        assertThat(store.load()).contains(layout(3));
        assertThat(store.recordsRead()).as("the second load read offsets 3 and 4 only").isEqualTo(5);

        assertThat(store.load()).as("nothing new: the cached record").contains(layout(3));
        assertThat(store.recordsRead()).isEqualTo(5);
        assertThat(consumersCreated).as("one consumer, kept between loads").hasValue(1);
        assertThat(consumer.closed()).isFalse();

        store.close();
        assertThat(consumer.closed()).as("closed with the store").isTrue();
    }

    @Test
    void shouldReadFromTheBeginningAgainWhenTheTopicWasRecreated() {
        loadTwoStoredLayouts();

        // Deleted and created again: it ends before the position read up to, and holds one record.
        consumer.updateEndOffsets(Map.of(PARTITION, 1L));
        consumer.schedulePollTask(() -> consumer.addRecord(record(0, GROUP, layout(7))));

        assertThat(store.load()).contains(layout(7));
    }

    /**
     * Issue 17, finding 5: the store topic was deleted and created again, and records were
     * written to the new one past the position read in the old. Before the fix the reader noticed
     * a re-created topic only by its end offset falling below that position: here it read on from
     * offset 2 and kept the old topic's record of the group.
     */
    @Test
    void shouldTellARecreatedTopicByItsTopicIdWhateverItsEndOffset() {
        loadTwoStoredLayouts();

        topicId = new Uuid(17, 2);
        consumer.updateEndOffsets(Map.of(PARTITION, 3L));
        consumer.addRecord(record(0, GROUP, layout(7)));
        consumer.addRecord(record(1, "payments-app", layout(4)));
        consumer.addRecord(record(2, "payments-app", layout(5)));

        assertThat(store.load()).as("read from the beginning of the new topic").contains(layout(7));
    }

    /** Issue 17, finding 5: a re-created topic without the group's record holds no layout of it, not the old topic's. */
    @Test
    void shouldForgetTheOldTopicsRecordWhenTheTopicWasRecreated() {
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
        consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
        consumer.updateEndOffsets(Map.of(PARTITION, 1L));
        consumer.schedulePollTask(() -> consumer.addRecord(record(0, GROUP, layout(2))));
        assertThat(store.load()).contains(layout(2));

        topicId = new Uuid(17, 2);
        consumer.updateEndOffsets(Map.of(PARTITION, 2L));
        consumer.addRecord(record(0, "payments-app", layout(4)));
        consumer.addRecord(record(1, "payments-app", layout(5)));

        assertThat(store.load(Deadline.after(time, TIMEOUT)).failed()).isFalse();
        assertThat(store.load()).as("nothing of the group in the new topic").isEmpty();
    }

    /** Issue 17: the topic id cannot be had (no DESCRIBE): the load fails, counted, and nothing is thrown. */
    @Test
    void shouldFailTheLoadWhenTheTopicIdCannotBeHad() {
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
        consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
        consumer.updateEndOffsets(Map.of(PARTITION, 0L));
        describeFailure = new org.apache.kafka.common.errors.TopicAuthorizationException(java.util.Set.of(TOPIC));

        assertThat(store.load(Deadline.after(time, TIMEOUT)).failed()).isTrue();
        assertThat(store.failures()).isEqualTo(1);
        assertThat(consumer.closed()).as("the next load starts over").isTrue();
    }

    @Test
    void shouldLoadNothingWhenTheTopicDoesNotExist() {
        assertThat(store.load(Deadline.after(time, TIMEOUT)).failed()).isFalse();
        assertThat(store.load()).isEmpty();
        assertThat(store.failures()).isZero();
    }

    @Test
    void shouldWarnOnceWhenTheExistingTopicIsNotCompacted() {
        cleanupPolicy = "delete";

        assertThat(store.save(layout(1))).isTrue();
        assertThat(store.warnedNotCompacted()).isTrue();
        assertThat(store.save(layout(2))).isTrue();

        assertThat(describes).as("checked with the topic, not at every save").hasValue(1);
    }

    @Test
    void shouldNotWarnForACompactedTopic() {
        assertThat(store.save(layout(1))).isTrue();

        assertThat(store.warnedNotCompacted()).isFalse();
        assertThat(describes).hasValue(1);
    }

    @Test
    void shouldNameTheFixInTheWarning() {
        assertThat(KafkaLayoutStore.isCompactedOnly("compact")).isTrue();
        assertThat(KafkaLayoutStore.isCompactedOnly("compact,delete")).as("delete removes layouts after retention").isFalse();
        assertThat(KafkaLayoutStore.isCompactedOnly("delete")).isFalse();
        assertThat(KafkaLayoutStore.isCompactedOnly(null)).isFalse();
        assertThat(KafkaLayoutStore.notCompactedWarning(TOPIC, "delete", ADVICE))
                .contains("cleanup.policy=delete")
                .contains("kafka-configs.sh --bootstrap-server <brokers> --alter --entity-type topics --entity-name "
                        + TOPIC + " --add-config cleanup.policy=compact")
                .contains("or set " + ADVICE.topicSetting() + " to a new topic");
    }

    /** The store topic holds the group's layouts of epochs 1 and 2 at offsets 0 and 1, read once. */
    private void loadTwoStoredLayouts() {
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
        consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
        consumer.updateEndOffsets(Map.of(PARTITION, 2L));
        consumer.schedulePollTask(() -> {
            consumer.addRecord(record(0, GROUP, layout(1)));
            consumer.addRecord(record(1, GROUP, layout(2)));
        });
        assertThat(store.load()).contains(layout(2));
    }

    private static GroupLayout layout(long epoch) {
        return GroupLayout.of(epoch, List.of(TopicLayout.of("orders", 4, 4)));
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, String group, GroupLayout layout) {
        return new ConsumerRecord<>(TOPIC, 0, offset, group.getBytes(StandardCharsets.UTF_8),
                KafkaLayoutStore.recordValue(layout));
    }

    /** The mock consumer, a mock producer that acks at once, and an admin client for which the topic exists. */
    private final class MockClients implements StoreClients {
        @Override
        public Consumer<byte[], byte[]> consumer(Map<String, Object> settings) {
            consumersCreated.incrementAndGet();
            return consumer;
        }

        @Override
        public Producer<byte[], byte[]> producer(Map<String, Object> settings) {
            return new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
        }

        @Override
        public Admin admin(Map<String, Object> settings) {
            return (Admin) Proxy.newProxyInstance(Admin.class.getClassLoader(), new Class<?>[] {Admin.class},
                    (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "createTopics":
                                KafkaFutureImpl<CreateTopicsResult.TopicMetadataAndConfig> exists = new KafkaFutureImpl<>();
                                exists.completeExceptionally(new TopicExistsException(TOPIC));
                                return new CreateTopicsResult(Map.of(TOPIC, exists)) { };
                            case "describeConfigs":
                                describes.incrementAndGet();
                                ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
                                Config config = new Config(List.of(new ConfigEntry("cleanup.policy", cleanupPolicy)));
                                return new DescribeConfigsResult(Map.of(resource, KafkaFuture.completedFuture(config))) { };
                            case "describeTopics":
                                if (describeFailure != null) {
                                    KafkaFutureImpl<TopicDescription> failed = new KafkaFutureImpl<>();
                                    failed.completeExceptionally(describeFailure);
                                    return new DescribeTopicsResult(null, Map.of(TOPIC, failed)) { };
                                }
                                TopicDescription description = new TopicDescription(TOPIC, false, List.of(),
                                        java.util.Set.of(), topicId);
                                return new DescribeTopicsResult(null,
                                        Map.of(TOPIC, KafkaFuture.completedFuture(description))) { };
                            case "close":
                                return null;
                            default:
                                throw new UnsupportedOperationException(method.getName());
                        }
                    });
        }
    }
}
