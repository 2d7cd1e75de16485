package io.kscale.assignor;

import io.kscale.assignor.internals.store.StoreSettingValidators;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/**
 * Settings of {@link KeyPreservingServerAssignor}: broker properties (in {@code server.properties}),
 * which the broker hands to the assignor's {@code configure()} together with all its own.
 *
 * <p>Every setting has a default that works on a PLAINTEXT cluster: the store of task counts is
 * the topic {@value #STORE_TOPIC_DEFAULT}, reached through this broker's inter-broker
 * listener. On a secured cluster, the store's clients take their security settings from keys
 * with the prefix {@value #STORE_CLIENT_PREFIX}, the prefix stripped: for instance
 * {@code kscale.server.assignor.store.client.security.protocol=SASL_SSL} and
 * {@code kscale.server.assignor.store.client.sasl.jaas.config=...}. They are passed through as
 * they are, not declared here one by one, since they are Kafka's own client settings.
 *
 * <p>Expansion policy: KEEP, always. A topic's task count T is recorded once, when a group first
 * assigns the topic through this assignor, and never changes: an expansion to a multiple of T
 * keeps every key in its task, any other count breaks affinity for some keys until the count is
 * a multiple of T again. Unlike the client-side {@link KeyPreservingAssignorConfig}, there is no
 * rebase: T is shared by every group reading the topic, and no single group may change it.
 *
 * <p>Same shape as the other settings classes: per key a public {@code X_CONFIG} and
 * {@code X_DEFAULT}, one {@link ConfigDef}, parsed once into typed fields.
 */
public final class KeyPreservingServerAssignorConfig {

    /** Keys with this prefix, the prefix stripped, are settings of the store's clients. */
    public static final String STORE_CLIENT_PREFIX = "kscale.server.assignor.store.client.";

    /** The topic that holds each topic id's task count. */
    public static final String STORE_TOPIC_CONFIG = "kscale.server.assignor.store.topic";
    public static final String STORE_TOPIC_DEFAULT = "kscale-task-counts";
    private static final String STORE_TOPIC_DOC = "Name of the topic that holds the task count T of every topic id "
            + "the assignor has placed, shared by every group on the cluster: an append-only log (not compacted: the "
            + "first record of a topic id is its T forever). Created by the assignor on first use, never again by a "
            + "broker that has read it: if it is deleted, brokers hold the topics whose T they do not know and log an "
            + "ERROR that says how to re-create it. Set it alike on every broker, and never delete it.";

    /** Replication factor of the store topic when the assignor creates it. */
    public static final String STORE_REPLICATION_FACTOR_CONFIG = "kscale.server.assignor.store.replication.factor";
    public static final short STORE_REPLICATION_FACTOR_DEFAULT = -1;
    private static final String STORE_REPLICATION_FACTOR_DOC = "Replication factor of the store topic when the "
            + "assignor creates it; -1 uses the broker's default.replication.factor.";

    /** Where the store's clients connect. */
    public static final String STORE_BOOTSTRAP_SERVERS_CONFIG = "kscale.server.assignor.store.bootstrap.servers";
    public static final String STORE_BOOTSTRAP_SERVERS_DEFAULT = "";
    private static final String STORE_BOOTSTRAP_SERVERS_DOC = "host:port pairs the store's clients connect to. "
            + "Empty: this broker's own inter-broker listener, with that listener's security protocol unless "
            + STORE_CLIENT_PREFIX + "security.protocol says otherwise.";

    /** The classic assignor's layout store topics, read to carry T over when groups migrate. */
    public static final String CLASSIC_LAYOUT_TOPICS_CONFIG = "kscale.server.assignor.classic.layout.topics";
    public static final String CLASSIC_LAYOUT_TOPICS_DEFAULT = "kscale-assignor-layouts";
    /** The most topics {@value #CLASSIC_LAYOUT_TOPICS_CONFIG} may list: each is read by every broker. */
    public static final int MAX_CLASSIC_LAYOUT_TOPICS = 100;
    private static final String CLASSIC_LAYOUT_TOPICS_DOC = "The layout store topics of the client-side "
            + "KeyPreservingAssignor (the default kscale-assignor-layouts, and the kscale.assignor.layout.store.topic "
            + "of every group that sets its own). The store reads them all and keeps reading them, so that a topic a "
            + "classic group already expanded keeps its T when the group moves to group.protocol=consumer; when "
            + "groups disagree on a topic's T, the smallest wins. A listed topic that does not exist yet is read once "
            + "it does. Empty: no such seeding, T of a topic new to this assignor is its partition count.";

    /** Pause between attempts when the store cannot be read or written. */
    public static final String STORE_RETRY_BACKOFF_MS_CONFIG = "kscale.server.assignor.store.retry.backoff.ms";
    public static final long STORE_RETRY_BACKOFF_MS_DEFAULT = 1_000L;
    private static final String STORE_RETRY_BACKOFF_MS_DOC = "Pause between the store's attempts to read or write "
            + "when the store topic cannot be reached. Meanwhile topics whose T may be stored are held: members keep "
            + "their current partitions of them and new partitions stay unassigned.";

    private static final String GROUP = "Key-preserving server assignor";

    private static final ConfigDef CONFIG = new ConfigDef()
            .define(STORE_TOPIC_CONFIG, Type.STRING, STORE_TOPIC_DEFAULT, StoreSettingValidators.topicName(),
                    Importance.LOW, STORE_TOPIC_DOC, GROUP, 0, Width.MEDIUM, "Store topic")
            .define(STORE_REPLICATION_FACTOR_CONFIG, Type.SHORT, STORE_REPLICATION_FACTOR_DEFAULT,
                    StoreSettingValidators.replicationFactor(),
                    Importance.LOW, STORE_REPLICATION_FACTOR_DOC, GROUP, 1, Width.SHORT, "Store replication factor")
            .define(STORE_BOOTSTRAP_SERVERS_CONFIG, Type.LIST, STORE_BOOTSTRAP_SERVERS_DEFAULT,
                    new HostPortsValidator(),
                    Importance.MEDIUM, STORE_BOOTSTRAP_SERVERS_DOC, GROUP, 2, Width.LONG, "Store bootstrap servers")
            .define(CLASSIC_LAYOUT_TOPICS_CONFIG, Type.LIST, CLASSIC_LAYOUT_TOPICS_DEFAULT,
                    StoreSettingValidators.topicNames(MAX_CLASSIC_LAYOUT_TOPICS),
                    Importance.MEDIUM, CLASSIC_LAYOUT_TOPICS_DOC, GROUP, 3, Width.LONG, "Classic layout topics")
            .define(STORE_RETRY_BACKOFF_MS_CONFIG, Type.LONG, STORE_RETRY_BACKOFF_MS_DEFAULT,
                    Range.between(100L, 60_000L),
                    Importance.LOW, STORE_RETRY_BACKOFF_MS_DOC, GROUP, 4, Width.SHORT, "Store retry backoff");

    private final String storeTopic;
    private final short replicationFactor;
    private final List<String> bootstrapServers;
    private final List<String> classicLayoutTopics;
    private final Duration retryBackoff;
    private final Map<String, Object> clientOverrides;

    /**
     * Parses and validates the settings.
     *
     * @param props the broker's settings; keys this class does not know are ignored, except those
     *              with the prefix {@value #STORE_CLIENT_PREFIX}
     * @throws ConfigException naming the key, the value and what is allowed if a value is invalid
     */
    public KeyPreservingServerAssignorConfig(Map<String, ?> props) {
        Map<String, Object> parsed = CONFIG.parse(props);
        this.storeTopic = (String) parsed.get(STORE_TOPIC_CONFIG);
        this.replicationFactor = (Short) parsed.get(STORE_REPLICATION_FACTOR_CONFIG);
        @SuppressWarnings("unchecked")
        List<String> servers = (List<String>) parsed.get(STORE_BOOTSTRAP_SERVERS_CONFIG);
        this.bootstrapServers = List.copyOf(servers);
        @SuppressWarnings("unchecked")
        List<String> classic = (List<String>) parsed.get(CLASSIC_LAYOUT_TOPICS_CONFIG);
        this.classicLayoutTopics = List.copyOf(classic);
        this.retryBackoff = Duration.ofMillis((Long) parsed.get(STORE_RETRY_BACKOFF_MS_CONFIG));
        Map<String, Object> overrides = new TreeMap<>();
        props.forEach((key, value) -> {
            if (key != null && key.startsWith(STORE_CLIENT_PREFIX) && key.length() > STORE_CLIENT_PREFIX.length()) {
                overrides.put(key.substring(STORE_CLIENT_PREFIX.length()), value);
            }
        });
        this.clientOverrides = Collections.unmodifiableMap(overrides);
    }

    /** @return the definitions of the settings, for docs and tools */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    /** @return the value of {@value #STORE_TOPIC_CONFIG} */
    public String storeTopic() {
        return storeTopic;
    }

    /** @return the value of {@value #STORE_REPLICATION_FACTOR_CONFIG}: -1 for the broker's default */
    public short replicationFactor() {
        return replicationFactor;
    }

    /** @return the value of {@value #STORE_BOOTSTRAP_SERVERS_CONFIG}; empty: use this broker's inter-broker listener */
    public List<String> bootstrapServers() {
        return bootstrapServers;
    }

    /** @return the value of {@value #CLASSIC_LAYOUT_TOPICS_CONFIG}, distinct names; empty: no seeding from the classic stores */
    public List<String> classicLayoutTopics() {
        return classicLayoutTopics;
    }

    /** @return the value of {@value #STORE_RETRY_BACKOFF_MS_CONFIG} */
    public Duration retryBackoff() {
        return retryBackoff;
    }

    /**
     * @return the settings with the prefix {@value #STORE_CLIENT_PREFIX}, the prefix stripped, in
     *         key order: client settings (security.protocol, sasl.*, ssl.*) for the store's clients
     */
    public Map<String, Object> clientOverrides() {
        return clientOverrides;
    }

    @Override
    public String toString() {
        // Client overrides may hold secrets (sasl.jaas.config, ssl passwords): only their keys are shown.
        return STORE_TOPIC_CONFIG + "=" + storeTopic + ", " + STORE_REPLICATION_FACTOR_CONFIG + "=" + replicationFactor
                + ", " + STORE_BOOTSTRAP_SERVERS_CONFIG + "=" + bootstrapServers + ", " + CLASSIC_LAYOUT_TOPICS_CONFIG
                + "=" + classicLayoutTopics + ", " + STORE_RETRY_BACKOFF_MS_CONFIG + "=" + retryBackoff.toMillis()
                + ", " + STORE_CLIENT_PREFIX + "* keys=" + clientOverrides.keySet();
    }

    /** Each entry host:port, the port 1..65535. */
    private static final class HostPortsValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> entries = (List<String>) value;
            for (String entry : entries) {
                int colon = entry.lastIndexOf(':');
                int port;
                try {
                    port = colon <= 0 ? -1 : Integer.parseInt(entry.substring(colon + 1));
                } catch (NumberFormatException e) {
                    port = -1;
                }
                if (port < 1 || port > 65_535) {
                    throw new ConfigException(name, value, "entry '" + entry + "' must be host:port, port 1 to 65535");
                }
            }
        }

        @Override
        public String toString() {
            return "comma-separated host:port pairs, or empty";
        }
    }
}
