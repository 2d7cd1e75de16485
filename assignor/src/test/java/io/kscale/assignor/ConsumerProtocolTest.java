package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link KeyPreservingAssignor} on {@code group.protocol=consumer} (KIP-848), where it cannot run:
 * what its own {@code configure()} says, and what Kafka's consumer does before that (see
 * docs/consumer-assignor.md, "On group.protocol=consumer").
 */
class ConsumerProtocolTest {

    /** Nothing listens there: the consumer is only constructed, never connected. */
    private static final String UNREACHABLE = "127.0.0.1:1";

    private static Map<String, Object> consumerSettings(String protocol) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, UNREACHABLE);
        settings.put(ConsumerConfig.GROUP_ID_CONFIG, "consumer-protocol-test");
        settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        settings.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        settings.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, KeyPreservingAssignor.class.getName());
        return settings;
    }

    @ParameterizedTest
    @ValueSource(strings = {"consumer", "CONSUMER", " Consumer "})
    void shouldRefuseTheConsumerProtocolNamingTheServerSideAssignorAndItsSettings(String protocol) {
        KeyPreservingAssignor assignor = new KeyPreservingAssignor();

        assertThatThrownBy(() -> assignor.configure(consumerSettings(protocol)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Invalid value " + protocol + " for configuration group.protocol")
                .hasMessageContaining("io.kscale.assignor.KeyPreservingServerAssignor")
                .hasMessageContaining("group.consumer.assignors")
                .hasMessageContaining("group.remote.assignor=kscale-key-preserving")
                .hasMessageContaining("group.protocol=classic");
    }

    @Test
    void shouldConfigureOnTheClassicProtocol() {
        KeyPreservingAssignor assignor = new KeyPreservingAssignor();
        try {
            assignor.configure(consumerSettings("classic"));
        } finally {
            assignor.close();
        }
    }

    /**
     * What a user of a plain {@code KafkaConsumer} sees. kafka-clients 4.x (4.4.0 checked here)
     * refuses {@code partition.assignment.strategy} on this protocol with its own message, while
     * it parses its settings, before it loads any assignor: the message above never shows there.
     * kafka-clients 3.x (3.9.1, run by client-compat) ignores the setting and starts without
     * loading the assignor (its {@code configure()} would have thrown). This pins both, so that
     * a Kafka release that loads the assignor first shows up here.
     */
    @Test
    void shouldBeRefusedByKafkasOwnConsumerBeforeTheAssignorIsLoaded() {
        Throwable thrown = catchThrowable(() -> new KafkaConsumer<byte[], byte[]>(consumerSettings("consumer"))
                .close(Duration.ZERO));

        String version = kafkaClientsVersion();
        if (Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 4) {
            assertThat(thrown).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("partition.assignment.strategy cannot be set when group.protocol=CONSUMER")
                    .hasMessageNotContaining("KeyPreservingServerAssignor");
        } else {
            assertThat(thrown).as("kafka-clients %s ignores partition.assignment.strategy on the consumer protocol",
                    version).isNull();
        }
    }

    /** The version of the kafka-clients jar on the classpath, as that jar states it (its own AppInfoParser reads the same). */
    private static String kafkaClientsVersion() {
        try (InputStream in = ConsumerConfig.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
