package io.kscale.assignor.internals.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where the store's clients connect, over the listener shapes brokers are configured with. */
class StoreClientSettingsTest {

    @Test
    void shouldDialLoopbackForAWildcardListenerInKRaftCombinedMode() {
        assertThat(endpoint("listeners", "PLAINTEXT://:9092,CONTROLLER://:9093",
                "controller.listener.names", "CONTROLLER", "process.roles", "broker,controller"))
                .hasToString("PLAINTEXT 127.0.0.1:9092 PLAINTEXT");
        assertThat(endpoint("listeners", "PLAINTEXT://0.0.0.0:9092")).hasToString("PLAINTEXT 127.0.0.1:9092 PLAINTEXT");
        assertThat(endpoint("listeners", "PLAINTEXT://[::]:9092")).hasToString("PLAINTEXT [::1]:9092 PLAINTEXT");
    }

    @Test
    void shouldTakeKafkasDefaultListenerWhenTheConfigsNameNone() {
        assertThat(endpoint("node.id", "1")).as("the assignor gets the originals, without defaults")
                .hasToString("PLAINTEXT 127.0.0.1:9092 PLAINTEXT");
    }

    @Test
    void shouldPreferTheAdvertisedAddress() {
        assertThat(endpoint("listeners", "PLAINTEXT://0.0.0.0:9092",
                "advertised.listeners", "PLAINTEXT://kafka-1.internal:9092"))
                .hasToString("PLAINTEXT kafka-1.internal:9092 PLAINTEXT");
        assertThat(endpoint("listeners", "PLAINTEXT://[::1]:9092", "advertised.listeners", "PLAINTEXT://:9092"))
                .as("an advertised wildcard names no host").hasToString("PLAINTEXT [::1]:9092 PLAINTEXT");
    }

    @Test
    void shouldTakeTheNamedInterBrokerListener() {
        assertThat(endpoint("listeners", "EXTERNAL://0.0.0.0:9092,BROKER://0.0.0.0:9093,CONTROLLER://:9094",
                "advertised.listeners", "EXTERNAL://localhost:32768,BROKER://c0ffee:9093",
                "listener.security.protocol.map", "EXTERNAL:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name", "broker", "controller.listener.names", "CONTROLLER"))
                .as("Testcontainers' shape: the external address is the host's, not the broker's")
                .hasToString("BROKER c0ffee:9093 PLAINTEXT");
    }

    @Test
    void shouldTakeTheListenerOfTheInterBrokerProtocol() {
        assertThat(endpoint("listeners", "CONTROLLER://:9093,INTERNAL://10.0.0.5:9092",
                "listener.security.protocol.map", "CONTROLLER:PLAINTEXT,INTERNAL:SASL_SSL",
                "controller.listener.names", "CONTROLLER", "security.inter.broker.protocol", "SASL_SSL"))
                .hasToString("INTERNAL 10.0.0.5:9092 SASL_SSL");
        assertThat(endpoint("listeners", "CONTROLLER://:9093,INTERNAL://10.0.0.5:9092",
                "listener.security.protocol.map", "CONTROLLER:PLAINTEXT,INTERNAL:PLAINTEXT",
                "controller.listener.names", "CONTROLLER"))
                .as("PLAINTEXT by default, never the controller listener").hasToString("INTERNAL 10.0.0.5:9092 PLAINTEXT");
    }

    @Test
    void shouldRefuseWhatNamesNoUsableListener() {
        assertThatThrownBy(() -> endpoint("listeners", "CONTROLLER://:9093", "controller.listener.names", "CONTROLLER"))
                .hasMessageContaining("no listener of protocol PLAINTEXT");
        assertThatThrownBy(() -> endpoint("listeners", "PLAINTEXT://:0")).hasMessageContaining("port 0");
        assertThatThrownBy(() -> endpoint("listeners", "PLAINTEXT://:9092", "inter.broker.listener.name", "BROKER"))
                .hasMessageContaining("listener BROKER has no security protocol");
        assertThatThrownBy(() -> endpoint("listeners", "PLAINTEXT:9092")).hasMessageContaining("cannot read listener");
    }

    @Test
    void shouldNeedCredentialsForASecuredListener() {
        Map<String, Object> broker = Map.of("listeners", "SASL_SSL://:9094", "security.inter.broker.protocol", "SASL_SSL");

        StoreClientSettings without = StoreClientSettings.derive(broker, "", Map.of(), "id");
        StoreClientSettings with = StoreClientSettings.derive(broker, "", Map.of("security.protocol", "SASL_SSL",
                "sasl.mechanism", "PLAIN"), "id");

        assertThat(without.problem()).get().asString()
                .contains(StoreClientSettings.CLIENT_PREFIX + "security.protocol=SASL_SSL");
        assertThat(with.problem()).isEmpty();
        assertThat(with.consumer()).containsEntry("bootstrap.servers", "127.0.0.1:9094")
                .containsEntry("sasl.mechanism", "PLAIN").containsEntry("security.protocol", "SASL_SSL");
    }

    @Test
    void shouldTakeTheConfiguredBootstrapServersAndKeepTheStoresOwnSettings() {
        StoreClientSettings settings = StoreClientSettings.derive(Map.of(), "kafka:9092",
                Map.of("group.id", "x", "acks", "1", "key.serializer", "y", "linger.ms", 5), "kscale-task-count-store-1");

        assertThat(settings.problem()).isEmpty();
        assertThat(settings.consumer()).containsEntry("bootstrap.servers", "kafka:9092").doesNotContainKey("group.id")
                .doesNotContainKey("acks").containsEntry("client.id", "kscale-task-count-store-1");
        assertThat(settings.producer(10_000)).containsEntry("acks", "all").containsEntry("enable.idempotence", true)
                .containsEntry("linger.ms", 0).containsEntry("max.block.ms", 10_000L);
        assertThat(settings.admin()).doesNotContainKey("acks").doesNotContainKey("linger.ms");
    }

    private static StoreClientSettings.Endpoint endpoint(String... keysAndValues) {
        Map<String, Object> configs = new HashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            configs.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return StoreClientSettings.interBrokerEndpoint(configs);
    }
}
