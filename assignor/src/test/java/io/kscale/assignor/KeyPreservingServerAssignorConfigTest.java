package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class KeyPreservingServerAssignorConfigTest {

    @Test
    void shouldDefaultToAPlainClusterWithoutSettings() {
        KeyPreservingServerAssignorConfig config = new KeyPreservingServerAssignorConfig(Map.of(
                "listeners", "PLAINTEXT://:9092", "broker.id", "1"));
        assertThat(config.storeTopic()).isEqualTo("kscale-task-counts");
        assertThat(config.replicationFactor()).isEqualTo((short) -1);
        assertThat(config.bootstrapServers()).isEmpty();
        assertThat(config.classicLayoutTopics()).containsExactly("kscale-assignor-layouts");
        assertThat(config.retryBackoff()).isEqualTo(Duration.ofSeconds(1));
        assertThat(config.clientOverrides()).isEmpty();
    }

    @Test
    void shouldPassPrefixedClientSettingsWithThePrefixStripped() {
        KeyPreservingServerAssignorConfig config = new KeyPreservingServerAssignorConfig(Map.of(
                "kscale.server.assignor.store.client.security.protocol", "SASL_SSL",
                "kscale.server.assignor.store.client.sasl.mechanism", "SCRAM-SHA-512",
                "kscale.server.assignor.store.client.", "ignored: no key after the prefix",
                "security.protocol", "PLAINTEXT"));
        assertThat(config.clientOverrides()).containsExactly(
                Map.entry("sasl.mechanism", "SCRAM-SHA-512"), Map.entry("security.protocol", "SASL_SSL"));
    }

    @Test
    void shouldNotShowClientSettingValuesInToString() {
        KeyPreservingServerAssignorConfig config = new KeyPreservingServerAssignorConfig(Map.of(
                "kscale.server.assignor.store.client.sasl.jaas.config", "secret-password"));
        assertThat(config.toString()).contains("sasl.jaas.config").doesNotContain("secret-password");
    }

    @Test
    void shouldAcceptAnEmptyClassicLayoutTopicListToTurnSeedingOff() {
        assertThat(new KeyPreservingServerAssignorConfig(Map.of(
                KeyPreservingServerAssignorConfig.CLASSIC_LAYOUT_TOPICS_CONFIG, "")).classicLayoutTopics()).isEmpty();
    }

    @Test
    void shouldParseSeveralClassicLayoutTopics() {
        assertThat(new KeyPreservingServerAssignorConfig(Map.of(
                KeyPreservingServerAssignorConfig.CLASSIC_LAYOUT_TOPICS_CONFIG, "kscale-assignor-layouts, team-b.layouts"))
                .classicLayoutTopics()).containsExactly("kscale-assignor-layouts", "team-b.layouts");
    }

    @Test
    void shouldRejectMoreClassicLayoutTopicsThanTheBoundOrOneListedTwice() {
        String tooMany = String.join(",", java.util.stream.IntStream.rangeClosed(0, 100)
                .mapToObj(i -> "layouts-" + i).toArray(String[]::new));
        assertThatThrownBy(() -> new KeyPreservingServerAssignorConfig(Map.of(
                KeyPreservingServerAssignorConfig.CLASSIC_LAYOUT_TOPICS_CONFIG, tooMany)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(KeyPreservingServerAssignorConfig.CLASSIC_LAYOUT_TOPICS_CONFIG)
                .hasMessageContaining("up to 100").hasMessageContaining("it lists 101");
        assertThatThrownBy(() -> new KeyPreservingServerAssignorConfig(Map.of(
                KeyPreservingServerAssignorConfig.CLASSIC_LAYOUT_TOPICS_CONFIG, "a,b,a")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("'a' is listed twice");
    }

    @Test
    void shouldParseBootstrapServers() {
        assertThat(new KeyPreservingServerAssignorConfig(Map.of(
                KeyPreservingServerAssignorConfig.STORE_BOOTSTRAP_SERVERS_CONFIG, "a:9092, b:9093")).bootstrapServers())
                .isEqualTo(List.of("a:9092", "b:9093"));
    }

    @Test
    void shouldRejectBadValuesNamingTheKey() {
        Map<String, String> bad = Map.of(
                KeyPreservingServerAssignorConfig.STORE_TOPIC_CONFIG, "no spaces",
                KeyPreservingServerAssignorConfig.STORE_REPLICATION_FACTOR_CONFIG, "0",
                KeyPreservingServerAssignorConfig.STORE_BOOTSTRAP_SERVERS_CONFIG, "localhost",
                KeyPreservingServerAssignorConfig.CLASSIC_LAYOUT_TOPICS_CONFIG, "a/b",
                KeyPreservingServerAssignorConfig.STORE_RETRY_BACKOFF_MS_CONFIG, "60001");
        bad.forEach((key, value) -> assertThatThrownBy(() -> new KeyPreservingServerAssignorConfig(Map.of(key, value)))
                .as(key).isInstanceOf(ConfigException.class).hasMessageContaining(key).hasMessageContaining(value));
    }
}
