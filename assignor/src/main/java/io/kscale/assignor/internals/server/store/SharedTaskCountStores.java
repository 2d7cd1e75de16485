package io.kscale.assignor.internals.server.store;

import io.kscale.assignor.internals.server.TaskCountStoreEvents;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link KafkaTaskCountStore} per broker JVM and store settings. A broker creates and
 * configures its assignors many times (each {@code KafkaConfig} it builds, dynamic
 * reconfigurations included) and closes none of them, while only one instance serves groups: so
 * every instance asks here, and all instances with the same settings share one store, one thread
 * and one set of clients. Settings that differ (the store's own, or the client settings derived
 * from the broker's listeners) get a store of their own; the earlier one keeps running until the
 * JVM exits (its thread is a daemon), which a WARN says.
 *
 * <p>Never close a store obtained here: other assignor instances share it.
 */
public final class SharedTaskCountStores {

    private static final Logger log = LoggerFactory.getLogger(KafkaTaskCountStore.class);
    private static final Map<List<Object>, KafkaTaskCountStore> STORES = new ConcurrentHashMap<>();

    private SharedTaskCountStores() {
    }

    /**
     * The started store for these settings: the one already running, or a new one. Returns at
     * once; arguments as in {@link KafkaTaskCountStore#start} (the store that runs already keeps the
     * {@code events} it was started with).
     *
     * @throws IllegalArgumentException as {@link KafkaTaskCountStore#start}
     */
    public static KafkaTaskCountStore forSettings(Map<String, ?> brokerConfigs, String topic, short replicationFactor,
                                                  String bootstrapServers, Map<String, ?> clientOverrides,
                                                  List<String> classicLayoutTopics, Duration retryBackoff,
                                                  TaskCountStoreEvents events) {
        StoreClientSettings clients = StoreClientSettings.derive(brokerConfigs, bootstrapServers, clientOverrides,
                KafkaTaskCountStore.clientId(brokerConfigs));
        List<Object> key = List.of(String.valueOf(topic), replicationFactor, List.copyOf(classicLayoutTopics),
                String.valueOf(retryBackoff), clients.problem().orElse(""), clients.common());
        KafkaTaskCountStore running = STORES.get(key);
        if (running != null) {
            return running;
        }
        return STORES.computeIfAbsent(key, k -> {
            if (!STORES.isEmpty()) {
                log.warn("Starting another task count store for changed settings (topic {}, classic layout topics {}, "
                        + "via {}); the {} started before keep running until the broker stops", topic,
                        classicLayoutTopics, clients.description(), STORES.size());
            }
            return KafkaTaskCountStore.start(brokerConfigs, topic, replicationFactor, bootstrapServers,
                    clientOverrides, classicLayoutTopics, retryBackoff, events);
        });
    }

    /** Closes and forgets every store (tests). */
    static void closeAll() {
        for (KafkaTaskCountStore store : List.copyOf(STORES.values())) {
            store.close();
        }
        STORES.clear();
    }

    /** @return how many stores run (tests) */
    static int count() {
        return STORES.size();
    }

}
