package io.kscale.assignor.internals.server.store;

import io.kscale.assignor.internals.server.TaskCountStoreEvents;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One store per broker JVM and settings, however many assignor instances the broker configures.
 * The broker configs name a SASL listener without credentials, so the stores open no connection.
 */
class SharedTaskCountStoresTest {

    private static final Map<String, Object> BROKER = Map.of("node.id", "1", "listeners", "SASL_SSL://:9094",
            "security.inter.broker.protocol", "SASL_SSL");

    @AfterEach
    void closeStores() {
        SharedTaskCountStores.closeAll();
    }

    @Test
    void shouldShareOneStoreAmongInstancesWithTheSameSettings() {
        KafkaTaskCountStore first = store(BROKER, "kscale-task-counts");
        Map<String, Object> reconfigured = new HashMap<>(BROKER);
        reconfigured.put("log.retention.ms", "1000"); // a dynamic reconfiguration builds a new KafkaConfig

        assertThat(store(reconfigured, "kscale-task-counts")).isSameAs(first);
        assertThat(SharedTaskCountStores.count()).isEqualTo(1);
    }

    @Test
    void shouldStartAnotherStoreForOtherSettings() {
        KafkaTaskCountStore first = store(BROKER, "kscale-task-counts");
        Map<String, Object> otherListener = new HashMap<>(BROKER);
        otherListener.put("listeners", "SASL_SSL://:9095");

        assertThat(store(BROKER, "other-task-counts")).isNotSameAs(first);
        assertThat(store(otherListener, "kscale-task-counts")).isNotSameAs(first);
        assertThat(SharedTaskCountStores.count()).isEqualTo(3);
    }

    private static KafkaTaskCountStore store(Map<String, Object> broker, String topic) {
        return SharedTaskCountStores.forSettings(broker, topic, (short) -1, "", Map.of(),
                List.of("kscale-assignor-layouts"),
                Duration.ofSeconds(1), TaskCountStoreEvents.NONE);
    }
}
