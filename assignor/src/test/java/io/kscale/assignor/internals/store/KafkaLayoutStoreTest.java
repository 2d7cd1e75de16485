package io.kscale.assignor.internals.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The settings {@link KafkaLayoutStore} derives from the consumer's, and its best-effort contract
 * when no broker answers. {@code KafkaLayoutStoreIT} runs it against a real broker.
 */
class KafkaLayoutStoreTest {

    private static final String GROUP = "orders-app";
    private static final String TOPIC = "__kscale_layouts";
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    /** The owner's words in the store's WARNs; any adapter's would do. */
    private static final StoreAdvice ADVICE = new StoreAdvice("test.layout.store.topic", "The test goes on without it");
    /**
     * Closing a client may take up to a second after the call's timeout; the rest is slack for a
     * loaded machine (creating the clients alone took 6-12 s at a load average of 25-30 on 2 cores).
     * What this limit catches is a call that ignores the deadline and waits for the clients' own
     * timeouts, 30 s (request.timeout.ms) or 60 s (default.api.timeout.ms).
     */
    private static final Duration CALL_LIMIT = TIMEOUT.plusSeconds(15);
    private static final GroupLayout LAYOUT = GroupLayout.of(3, List.of(TopicLayout.of("orders", 4, 8)));

    private static final Map<String, Object> SECURITY = Map.of(
            "bootstrap.servers", "broker-1:9093,broker-2:9093",
            "security.protocol", "SASL_SSL",
            "ssl.truststore.location", "/etc/kafka/truststore.jks",
            "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"p\";",
            "sasl.mechanism", "PLAIN");

    /** The settings a consumer hands its assignor: its own, unknown keys included. */
    private static Map<String, Object> consumerConfigs() {
        Map<String, Object> configs = new HashMap<>(SECURITY);
        configs.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        configs.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        configs.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        configs.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "member-1");
        configs.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        configs.put(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, "com.example.TracingInterceptor");
        configs.put(ConsumerConfig.METRIC_REPORTER_CLASSES_CONFIG, "com.example.Reporter");
        configs.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
        configs.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10);
        configs.put(ConsumerConfig.CLIENT_ID_CONFIG, "orders-consumer-1");
        configs.put("kscale.layout.store.topic", TOPIC);
        configs.put("retries", 0);
        return configs;
    }

    @Test
    void shouldKeepTheConsumersConnectionAndSecuritySettingsForEveryClient() {
        Map<String, ?> configs = consumerConfigs();

        for (Map<String, Object> settings : List.of(KafkaLayoutStore.adminSettings(configs),
                KafkaLayoutStore.producerSettings(configs), KafkaLayoutStore.consumerSettings(configs))) {
            assertThat(settings).containsAllEntriesOf(SECURITY);
        }
    }

    @Test
    void shouldDropGroupSerdePluginAndUnknownSettings() {
        Map<String, ?> configs = consumerConfigs();

        for (Map<String, Object> settings : List.of(KafkaLayoutStore.adminSettings(configs),
                KafkaLayoutStore.producerSettings(configs), KafkaLayoutStore.consumerSettings(configs))) {
            assertThat(settings).doesNotContainKeys(ConsumerConfig.GROUP_ID_CONFIG,
                    ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                    ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, ConsumerConfig.METRIC_REPORTER_CLASSES_CONFIG,
                    ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "kscale.layout.store.topic", "retries");
        }
        assertThat(KafkaLayoutStore.adminSettings(configs)).doesNotContainKeys(
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
    }

    @Test
    void shouldSetTheStoresOwnSerdesAcksAndNoAutoCommit() {
        Map<String, ?> configs = consumerConfigs();

        assertThat(KafkaLayoutStore.producerSettings(configs))
                .containsEntry(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName())
                .containsEntry(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName())
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                .doesNotContainKeys(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
        assertThat(KafkaLayoutStore.consumerSettings(configs))
                .containsEntry(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName())
                .containsEntry(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName())
                .containsEntry(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)
                .doesNotContainKeys(ConsumerConfig.GROUP_ID_CONFIG);
    }

    @Test
    void shouldSuffixTheConsumersClientId() {
        Map<String, Object> configs = consumerConfigs();

        for (Map<String, Object> settings : List.of(KafkaLayoutStore.adminSettings(configs),
                KafkaLayoutStore.producerSettings(configs), KafkaLayoutStore.consumerSettings(configs))) {
            assertThat(settings).containsEntry(ConsumerConfig.CLIENT_ID_CONFIG, "orders-consumer-1-layout-store");
        }
        configs.remove(ConsumerConfig.CLIENT_ID_CONFIG);
        assertThat(KafkaLayoutStore.adminSettings(configs))
                .containsEntry(ConsumerConfig.CLIENT_ID_CONFIG, "kscale-layout-store");
    }

    @Test
    void shouldNameTheAclThatAnAuthorizationFailureMeans() {
        assertThat(KafkaLayoutStore.missingAcl(new TopicAuthorizationException(java.util.Set.of(TOPIC)), TOPIC, true))
                .isEqualTo("READ on topic " + TOPIC);
        assertThat(KafkaLayoutStore.missingAcl(new java.util.concurrent.ExecutionException(
                new TopicAuthorizationException(java.util.Set.of(TOPIC))), TOPIC, false)).isEqualTo("WRITE on topic " + TOPIC);
        assertThat(KafkaLayoutStore.missingAcl(new ClusterAuthorizationException("no"), TOPIC, false))
                .isEqualTo("IDEMPOTENT_WRITE on the cluster");
        assertThat(KafkaLayoutStore.missingAcl(GroupAuthorizationException.forGroupId("g"), TOPIC, true))
                .isEqualTo("READ on group g");
        assertThat(KafkaLayoutStore.missingAcl(new org.apache.kafka.common.errors.TimeoutException("slow"), TOPIC, true))
                .isNull();
    }

    @Test
    void shouldNameThePrincipalAndTheGrantInTheMissingAclWarning() {
        String principal = KafkaLayoutStore.principal(consumerConfigs());
        String warning = KafkaLayoutStore.missingAclWarning(principal, "WRITE on topic " + TOPIC, "save", GROUP, TOPIC, 1);

        assertThat(principal).isEqualTo("User:u");
        assertThat(warning).startsWith("User:u lacks WRITE on topic " + TOPIC + ", so the layout store of group "
                + GROUP + " cannot save").contains("--allow-principal User:u --operation Read --operation Write")
                .doesNotContain("password");
        assertThat(KafkaLayoutStore.principal(Map.of("sasl.jaas.config",
                new org.apache.kafka.common.config.types.Password("x required username=\"app\" password=\"s\";"))))
                .isEqualTo("User:app");
        assertThat(KafkaLayoutStore.principal(Map.of())).isEqualTo("the consumer's principal");
    }

    @Test
    void shouldRejectIllegalArguments() {
        Map<String, Object> configs = consumerConfigs();

        assertThatThrownBy(() -> new KafkaLayoutStore("", TOPIC, (short) -1, TIMEOUT, configs, ADVICE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("group id");
        assertThatThrownBy(() -> new KafkaLayoutStore(GROUP, "bad topic", (short) -1, TIMEOUT, configs, ADVICE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad topic");
        assertThatThrownBy(() -> new KafkaLayoutStore(GROUP, TOPIC, (short) 0, TIMEOUT, configs, ADVICE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replication factor 0");
        assertThatThrownBy(() -> new KafkaLayoutStore(GROUP, TOPIC, (short) -1, Duration.ZERO, configs, ADVICE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    }

    @Test
    void shouldNameTopicAndGroup() {
        KafkaLayoutStore store = new KafkaLayoutStore(GROUP, TOPIC, (short) -1, TIMEOUT, consumerConfigs(), ADVICE);

        assertThat(store).hasToString("KafkaLayoutStore(topic __kscale_layouts, group orders-app)");
    }

    @Test
    void shouldLoadNothingAndCountAFailureWithinTheTimeoutWhenNoBrokerAnswers() throws IOException {
        try (Socket refusing = refusingPort()) {
            KafkaLayoutStore store = unreachableStore(refusing);

            long start = System.nanoTime();
            Optional<GroupLayout> loaded = store.load();
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(loaded).isEmpty();
            assertThat(store.failures()).isEqualTo(1);
            assertThat(took).isLessThan(CALL_LIMIT);
        }
    }

    @Test
    void shouldSaveWithoutThrowingAndCountAFailureWithinTheTimeoutWhenNoBrokerAnswers() throws IOException {
        try (Socket refusing = refusingPort()) {
            KafkaLayoutStore store = unreachableStore(refusing);

            long start = System.nanoTime();
            store.save(LAYOUT);
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(store.failures()).isEqualTo(1);
            assertThat(took).isLessThan(CALL_LIMIT);
        }
    }

    /** Issue 11: forgetting the last topic of a group deletes its record, so compaction removes the key. */
    @Test
    void shouldWriteATombstoneForALayoutWithoutTopics() {
        assertThat(KafkaLayoutStore.recordValue(GroupLayout.of(9, List.of()))).isNull();
        assertThat(KafkaLayoutStore.recordValue(LAYOUT)).isNotEmpty();
        assertThat(io.kscale.assignor.internals.layout.LayoutCodec.decode(java.nio.ByteBuffer.wrap(KafkaLayoutStore.recordValue(LAYOUT))))
                .contains(LAYOUT);
    }

    /** A loopback port that is bound but not listening: connections to it are refused. */
    private static Socket refusingPort() throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return socket;
    }

    private static KafkaLayoutStore unreachableStore(Socket refusing) {
        Map<String, Object> configs = consumerConfigs();
        configs.keySet().removeAll(SECURITY.keySet());
        configs.put("bootstrap.servers", InetAddress.getLoopbackAddress().getHostAddress() + ":" + refusing.getLocalPort());
        return new KafkaLayoutStore(GROUP, TOPIC, (short) -1, TIMEOUT, configs, ADVICE);
    }
}
