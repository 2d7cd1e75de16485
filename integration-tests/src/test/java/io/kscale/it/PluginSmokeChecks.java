package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.awaitility.Awaitility.await;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.partitioner.UniformStickyBytesPartitioner;
import io.kscale.streams.WarmupTaskAssignor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;

/**
 * What every kscale user checks first, on any broker: a producer with
 * {@link UniformStickyBytesPartitioner}, a consumer group with {@link KeyPreservingAssignor} across
 * a 2 -> 4 expansion (each key consumed by the same member before and after), and a Streams app
 * with {@link WarmupTaskAssignor}; each plug-in switched on by its one setting. Subclasses say
 * where the broker is: {@link QuickstartWithTestcontainersIT} (a plain Testcontainers
 * {@code KafkaContainer}) and {@link PluginsOnBrokerVersionIT} (the broker version under test).
 */
abstract class PluginSmokeChecks {

    /** The broker's bootstrap address; called in each test, after the subclass's set-up. */
    protected abstract String bootstrapServers();

    @Test
    void producerSpreadsUnkeyedRecordsUniformly() throws Exception {
        assumePartitionerLoads();
        createTopic(bootstrapServers(), "uniform", 3);
        assertSpreadsUniformly(producerProps(), "uniform");
    }

    /**
     * Sends 3,000 unkeyed 100-byte records to a topic of 3 partitions with the partitioner
     * switching every 4 KB, and asserts that every partition got records and that no two differ
     * by more than two stints.
     */
    static void assertSpreadsUniformly(Map<String, Object> producerProps, String topic) throws Exception {
        Map<String, Object> props = new HashMap<>(producerProps);
        props.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, UniformStickyBytesPartitioner.class.getName());
        props.put("partitioner.sticky.batch.size", 4096); // switch partition every 4 KB

        Map<Integer, Integer> perPartition = new HashMap<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            // Sent without waiting for each (the partition is chosen in send()), then all awaited.
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                sends.add(producer.send(new ProducerRecord<>(topic, null, "x".repeat(100))));
            }
            for (Future<RecordMetadata> sent : sends) {
                perPartition.merge(sent.get().partition(), 1, Integer::sum);
            }
        }

        assertThat(perPartition).containsOnlyKeys(0, 1, 2);
        int spread = perPartition.values().stream().mapToInt(Integer::intValue).max().getAsInt()
                - perPartition.values().stream().mapToInt(Integer::intValue).min().getAsInt();
        assertThat(spread).as("records per partition %s", perPartition).isLessThanOrEqualTo(2 * 4096 / 100);
    }

    @Test
    void consumerGroupKeepsEveryKeyOnItsConsumerWhenPartitionsDouble() throws Exception {
        assertKeysStayOnTheirConsumerWhenPartitionsDouble(bootstrapServers(), "orders",
                Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, KeyPreservingAssignor.class.getName()));
    }

    /**
     * Two members of a group with {@code assignorSettings} consume 40 keys from a topic of 2
     * partitions, the topic grows to 4, and they consume the keys again: each key must reach the
     * same member both times.
     */
    static void assertKeysStayOnTheirConsumerWhenPartitionsDouble(String bootstrapServers, String topic,
            Map<String, Object> assignorSettings) throws Exception {
        createTopic(bootstrapServers, topic, 2);
        Map<String, String> firstOwner = new ConcurrentHashMap<>();
        Map<String, String> laterOwner = new ConcurrentHashMap<>();
        try (KafkaConsumer<String, String> a = consumer(bootstrapServers, "a", assignorSettings);
             KafkaConsumer<String, String> b = consumer(bootstrapServers, "b", assignorSettings)) {
            a.subscribe(List.of(topic));
            b.subscribe(List.of(topic));
            pollUntil(a, b, firstOwner, () -> a.assignment().size() == 1 && b.assignment().size() == 1);
            produceKeys(bootstrapServers, topic, "before");
            pollUntil(a, b, firstOwner, () -> firstOwner.size() == KEYS);

            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers))) {
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all().get();
            }
            pollUntil(a, b, laterOwner, () -> a.assignment().size() == 2 && b.assignment().size() == 2);
            produceKeys(bootstrapServers, topic, "after");
            pollUntil(a, b, laterOwner, () -> laterOwner.size() == KEYS);
        }

        assertThat(laterOwner).as("consumer of each key after 2 -> 4 partitions").isEqualTo(firstOwner);
    }

    @Test
    void streamsAppRunsWithTheWarmupTaskAssignor() throws Exception {
        createTopic(bootstrapServers(), "words", 2);
        createTopic(bootstrapServers(), "words-upper", 2);
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("words", Consumed.with(Serdes.String(), Serdes.String()))
                .mapValues(value -> value.toUpperCase())
                .to("words-upper", Produced.with(Serdes.String(), Serdes.String()));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, getClass().getSimpleName() + "-app");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, WarmupTaskAssignor.class.getName());
        props.put(StreamsConfig.STATE_DIR_CONFIG, "target/streams-" + getClass().getSimpleName());

        Map<String, String> upper = new ConcurrentHashMap<>();
        try (KafkaStreams streams = new KafkaStreams(builder.build(), props);
             KafkaConsumer<String, String> reader = consumer(bootstrapServers(), "reader",
                     Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, KeyPreservingAssignor.class.getName()))) {
            streams.start();
            produceKeys(bootstrapServers(), "words", "hello");
            reader.subscribe(List.of("words-upper"));
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                for (ConsumerRecord<String, String> record : reader.poll(Duration.ofMillis(200))) {
                    upper.put(record.key(), record.value());
                }
                return upper.size() == KEYS;
            });
            // Processing goes on through a rebalance, which may still be under way: wait for it to end.
            await().atMost(Duration.ofSeconds(60)).untilAsserted(
                    () -> assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING));
        }
        assertThat(upper).hasSize(KEYS).allSatisfy((key, value) -> assertThat(value).startsWith("HELLO-"));
    }

    // ------------------------------------------------------------------------------------------

    private static final int KEYS = 40;
    private static final String PARTITIONER = "io.kscale.partitioner.UniformStickyBytesPartitioner";

    /**
     * The partitioner implements {@code Monitorable} (KIP-877, kafka-clients 4.1), so on older
     * clients (client-compat runs these checks on them too) its class cannot load. There, check
     * that it fails in the documented way and skip with the reason.
     */
    private static void assumePartitionerLoads() {
        try {
            Class.forName("org.apache.kafka.common.metrics.Monitorable");
            return;
        } catch (ClassNotFoundException expected) {
            // an older client: fall through
        }
        assertThatThrownBy(() -> Class.forName(PARTITIONER))
                .isInstanceOf(NoClassDefFoundError.class)
                .hasMessageContaining("org/apache/kafka/common/metrics/Monitorable");
        abort("kafka-clients " + clientVersion() + " has no Monitorable: " + PARTITIONER
                + " needs kafka-clients 4.1 or newer (it fails to load with NoClassDefFoundError naming Monitorable)");
    }

    /** The kafka-clients version on the classpath, from the properties file its jar carries. */
    static String clientVersion() {
        Properties version = new Properties();
        try (var in = Admin.class.getClassLoader().getResourceAsStream("kafka/kafka-version.properties")) {
            if (in != null) {
                version.load(in);
            }
        } catch (java.io.IOException e) {
            // unknown, as below
        }
        return version.getProperty("version", "(unknown version)");
    }

    private static void createTopic(String bootstrapServers, String name, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
        }
    }

    private Map<String, Object> producerProps() {
        return producerProps(bootstrapServers());
    }

    private static Map<String, Object> producerProps(String bootstrapServers) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        // One request in flight: the topics are created a moment before (KAFKA-14359, see ClusterFaultsIT).
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return props;
    }

    private static void produceKeys(String bootstrapServers, String topic, String valuePrefix) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(bootstrapServers))) {
            for (int k = 0; k < KEYS; k++) {
                producer.send(new ProducerRecord<>(topic, "key-" + k, valuePrefix + "-" + k)).get();
            }
        }
    }

    /** A consumer of group quickstart-group (quickstart-reader for the reader), with the assignor settings. */
    private static KafkaConsumer<String, String> consumer(String bootstrapServers, String name,
            Map<String, Object> assignorSettings) {
        Map<String, Object> props = new HashMap<>(assignorSettings);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "reader".equals(name) ? "quickstart-reader" : "quickstart-group");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1000); // the leader sees the new partitions soon
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        return new KafkaConsumer<>(props);
    }

    /** Polls both members (a rebalance needs both) until the condition holds, noting who got each key. */
    static void pollUntil(KafkaConsumer<String, String> a, KafkaConsumer<String, String> b,
            Map<String, String> owners, Callable<Boolean> condition) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            poll(a, "a", owners);
            poll(b, "b", owners);
            return condition.call();
        });
    }

    /** Records, per key, the consumer that got it. */
    private static void poll(KafkaConsumer<String, String> consumer, String name, Map<String, String> owners) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
            owners.put(record.key(), name);
        }
    }
}
