package io.kscale.examples.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The application on a real broker in a container: the counts come out, and the group leader ran
 * kscale's assignor (its metrics, {@code kscale.streams:type=warmup-task-assignor}, count the
 * assignments it computed).
 */
class WordCountAppBrokerTest {

    private static KafkaContainer kafka;

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = StartGatedKafkaContainer.fromSystemProperty()
                .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
                .withStartupTimeout(Duration.ofMinutes(3)); // a busy CI machine can be slow
        kafka.start();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBootstrapServers()))) {
            // Create topics explicitly, with their partition counts.
            admin.createTopics(List.of(new NewTopic(WordCountApp.INPUT, 4, (short) 1),
                    new NewTopic(WordCountApp.OUTPUT, 4, (short) 1))).all().get();
        }
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.stop();
        }
    }

    @Test
    void countsWordsWithKscalesAssignorAsLeader(@TempDir java.nio.file.Path stateDir) throws Exception {
        Properties settings = WordCountApp.settings(kafka.getBootstrapServers());
        settings.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        settings.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 0); // one instance here
        settings.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        settings.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);

        try (KafkaStreams streams = new KafkaStreams(WordCountApp.topology(), settings)) {
            streams.start();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBootstrapServers()),
                    new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>(WordCountApp.INPUT, "grow a Kafka deployment")).get();
                producer.send(new ProducerRecord<>(WordCountApp.INPUT, "grow it again")).get();
            }

            Map<String, Long> expected = Map.of("grow", 2L, "kafka", 1L, "again", 1L);
            assertThat(readCounts(Duration.ofMinutes(2), expected)).containsAllEntriesOf(expected);

            MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
            Set<ObjectName> assignors = jmx.queryNames(new ObjectName("kscale.streams:type=warmup-task-assignor,*"), null);
            assertThat(assignors).as("kscale's Streams assignor metrics").isNotEmpty();
            double assignments = 0;
            for (ObjectName name : assignors) {
                assignments += ((Number) jmx.getAttribute(name, "assignments-total")).doubleValue();
            }
            assertThat(assignments).as("assignments computed by WarmupTaskAssignor").isGreaterThanOrEqualTo(1);
        }
    }

    /** The latest count per word on the output topic, read until it holds {@code expected} (or the timeout). */
    private static Map<String, Long> readCounts(Duration timeout, Map<String, Long> expected) {
        Map<String, Long> counts = new HashMap<>();
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "word-count-reader",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(), new LongDeserializer())) {
            consumer.subscribe(List.of(WordCountApp.OUTPUT));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!counts.entrySet().containsAll(expected.entrySet()) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(500))) {
                    counts.put(record.key(), record.value());
                }
            }
        }
        return counts;
    }
}
