package io.kscale.assignor.internals.server.store;

import io.kscale.assignor.internals.store.StoreClients;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The settings of the task count store's clients, derived from the broker's own configs so that a
 * PLAINTEXT cluster needs none (issue 18, "Zero-config on plain clusters"). Pure: unit-tested over
 * listener shapes.
 *
 * <p><b>Where to connect.</b> The given bootstrap servers, if any. Otherwise this broker's
 * inter-broker listener, whose advertised address every broker can reach and whose metadata
 * answers name the other brokers on that same listener: {@code inter.broker.listener.name}, else
 * the listener named after {@code security.inter.broker.protocol} (default PLAINTEXT), as Kafka
 * itself picks it, else the first listener that is no controller listener and uses that
 * protocol. Its address comes from {@code advertised.listeners}, else from {@code listeners}; a
 * wildcard host (empty, {@code 0.0.0.0}, {@code ::}) means every interface, so the client dials
 * loopback ({@code 127.0.0.1}, {@code [::1]}). Example: {@code listeners=PLAINTEXT://:9092,
 * CONTROLLER://:9093}, {@code controller.listener.names=CONTROLLER} (KRaft, combined mode), no
 * advertised listeners: bootstrap {@code 127.0.0.1:9092}, PLAINTEXT.
 *
 * <p><b>Security.</b> The listener's protocol comes from {@code listener.security.protocol.map}
 * (Kafka's default maps each protocol name to itself). PLAINTEXT needs nothing. Any other protocol
 * needs credentials the broker's configs do not give a client, so the store needs
 * {@value #CLIENT_PREFIX}{@code security.protocol} and the rest of the client's security settings
 * among its overrides; without them the settings are {@linkplain #problem() unusable} and the
 * store stays "not yet known". The overrides are applied over the derived settings, then the
 * store's own settings (serdes, {@code acks=all}, idempotence, no group) over them.
 */
final class StoreClientSettings {

    /** The broker setting prefix of the store's client overrides (the assignor's config strips it). */
    static final String CLIENT_PREFIX = "kscale.server.assignor.store.client.";
    static final String PLAINTEXT = "PLAINTEXT";
    /** Kafka's default {@code listeners}: the assignor gets the broker's originals, without defaults. */
    static final String DEFAULT_LISTENERS = "PLAINTEXT://:9092";
    /** Kafka's default {@code listener.security.protocol.map}: each protocol name maps to itself. */
    private static final Set<String> PROTOCOLS = Set.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");
    private static final Pattern LISTENER = Pattern.compile("\\s*([A-Za-z0-9_]+)://(\\[[^\\]]*\\]|[^:\\[\\]]*):(\\d+)\\s*");
    /** Settings of the application side that a store client must never take from the overrides. */
    private static final Set<String> DROPPED = Set.of(
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ConsumerConfig.GROUP_ID_CONFIG, ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
            ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, ProducerConfig.TRANSACTIONAL_ID_CONFIG);

    private final Map<String, Object> common;
    private final String problem;
    private final String description;

    private StoreClientSettings(Map<String, Object> common, String problem, String description) {
        this.common = common;
        this.problem = problem;
        this.description = description;
    }

    /**
     * @param brokerConfigs     the broker's configs as handed to the assignor's {@code configure}: its
     *                          originals, values mostly strings, Kafka's defaults absent
     * @param bootstrapServers  the store's bootstrap servers, empty to derive them
     * @param overrides         client settings, the prefix {@value #CLIENT_PREFIX} stripped
     * @param clientId          the clients' id
     * @return the settings, or why there are none ({@link #problem()})
     */
    static StoreClientSettings derive(Map<String, ?> brokerConfigs, String bootstrapServers,
                                      Map<String, ?> overrides, String clientId) {
        Objects.requireNonNull(brokerConfigs, "brokerConfigs");
        Map<String, Object> common = new HashMap<>();
        common.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        String description;
        if (bootstrapServers != null && !bootstrapServers.trim().isEmpty()) {
            common.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers.trim());
            description = bootstrapServers.trim() + " (as configured)";
        } else {
            Endpoint endpoint;
            try {
                endpoint = interBrokerEndpoint(brokerConfigs);
            } catch (IllegalArgumentException e) {
                return new StoreClientSettings(Map.of(), e.getMessage()
                        + "; set the store's bootstrap servers and its " + CLIENT_PREFIX + "* client settings", null);
            }
            if (!endpoint.protocol.equals(PLAINTEXT) && !overrides.containsKey(AdminClientConfig.SECURITY_PROTOCOL_CONFIG)) {
                return new StoreClientSettings(Map.of(), "listener " + endpoint.listener + " (" + endpoint.address + ") uses "
                        + endpoint.protocol
                        + ", and the broker's configs hold no client credentials: add " + CLIENT_PREFIX
                        + "security.protocol=" + endpoint.protocol + " and the client settings that protocol needs ("
                        + CLIENT_PREFIX + "ssl.truststore.location, " + CLIENT_PREFIX + "sasl.mechanism, " + CLIENT_PREFIX
                        + "sasl.jaas.config, ... as for any client of that listener) to the broker's configs", null);
            }
            common.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, endpoint.address);
            common.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, endpoint.protocol);
            description = endpoint.address + " (listener " + endpoint.listener + ", " + endpoint.protocol + ")";
        }
        overrides.forEach((key, value) -> {
            if (key != null && value != null && !DROPPED.contains(key)) {
                common.put(key, value);
            }
        });
        return new StoreClientSettings(common, null, description);
    }

    /** @return the settings every client gets (before its own), empty if {@link #problem()} */
    Map<String, Object> common() {
        return Map.copyOf(common);
    }

    /** @return why the store has no client settings, empty if it has */
    Optional<String> problem() {
        return Optional.ofNullable(problem);
    }

    /** @return where the clients connect, for the logs */
    String description() {
        return description;
    }

    Map<String, Object> consumer() {
        return StoreClients.withConsumerDefaults(known(ConsumerConfig.configNames()));
    }

    /** @param maxBlockMs the longest {@code send()} may wait for metadata */
    Map<String, Object> producer(long maxBlockMs) {
        Map<String, Object> settings = StoreClients.withProducerDefaults(known(ProducerConfig.configNames()));
        settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, maxBlockMs);
        return settings;
    }

    Map<String, Object> admin() {
        return known(AdminClientConfig.configNames());
    }

    private Map<String, Object> known(Set<String> names) {
        Map<String, Object> settings = new HashMap<>();
        common.forEach((key, value) -> {
            if (names.contains(key)) {
                settings.put(key, value);
            }
        });
        return settings;
    }

    /** An address to dial, the listener it belongs to and its security protocol. */
    static final class Endpoint {
        final String listener;
        final String address;
        final String protocol;

        Endpoint(String listener, String address, String protocol) {
            this.listener = listener;
            this.address = address;
            this.protocol = protocol;
        }

        @Override
        public String toString() {
            return listener + " " + address + " " + protocol;
        }
    }

    /**
     * @return this broker's inter-broker listener: its name, an address this machine can dial, its protocol
     * @throws IllegalArgumentException if the configs name none, or one without a usable address
     */
    static Endpoint interBrokerEndpoint(Map<String, ?> brokerConfigs) {
        Map<String, String> protocols = protocolMap(text(brokerConfigs, "listener.security.protocol.map"));
        String listeners = text(brokerConfigs, "listeners");
        Map<String, String[]> bound = listeners(listeners.isEmpty() ? DEFAULT_LISTENERS : listeners, "listeners");
        Map<String, String[]> advertised = listeners(text(brokerConfigs, "advertised.listeners"), "advertised.listeners");
        Set<String> controllers = names(text(brokerConfigs, "controller.listener.names"));
        String name = upper(text(brokerConfigs, "inter.broker.listener.name"));
        if (name.isEmpty()) {
            String protocol = upper(text(brokerConfigs, "security.inter.broker.protocol"));
            String wanted = protocol.isEmpty() ? PLAINTEXT : protocol;
            name = wanted;
            if (!bound.containsKey(wanted) && !advertised.containsKey(wanted)) {
                name = bound.keySet().stream()
                        .filter(l -> !controllers.contains(l) && wanted.equals(protocolOf(l, protocols)))
                        .findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no listener of protocol " + wanted
                                + " in listeners=" + text(brokerConfigs, "listeners")));
            }
        }
        String protocol = protocolOf(name, protocols);
        if (protocol == null) {
            throw new IllegalArgumentException("listener " + name + " has no security protocol in "
                    + "listener.security.protocol.map");
        }
        String[] address = advertised.get(name);
        if (address == null || isWildcard(address[0])) {
            address = bound.get(name);
        }
        if (address == null) {
            throw new IllegalArgumentException("inter-broker listener " + name + " is in neither listeners nor "
                    + "advertised.listeners");
        }
        if (address[1].equals("0")) {
            throw new IllegalArgumentException("inter-broker listener " + name + " has port 0 (chosen at bind time)");
        }
        return new Endpoint(name, dialable(address[0]) + ":" + address[1], protocol);
    }

    private static String protocolOf(String listener, Map<String, String> protocols) {
        String mapped = protocols.get(listener);
        return mapped != null ? mapped : PROTOCOLS.contains(listener) ? listener : null;
    }

    /** Parses {@code NAME://host:port,...} into name -> {host, port}. */
    private static Map<String, String[]> listeners(String text, String setting) {
        Map<String, String[]> parsed = new LinkedHashMap<>();
        if (text.isEmpty()) {
            return parsed;
        }
        for (String part : text.split(",")) {
            if (part.trim().isEmpty()) {
                continue;
            }
            Matcher m = LISTENER.matcher(part);
            if (!m.matches()) {
                throw new IllegalArgumentException("cannot read listener '" + part.trim() + "' of " + setting);
            }
            parsed.putIfAbsent(m.group(1).toUpperCase(Locale.ROOT), new String[] {m.group(2), m.group(3)});
        }
        return parsed;
    }

    private static Map<String, String> protocolMap(String text) {
        Map<String, String> map = new HashMap<>();
        for (String protocol : PROTOCOLS) {
            map.put(protocol, protocol);
        }
        if (text.isEmpty()) {
            return map;
        }
        map.clear(); // a map that is set replaces the default altogether, as in Kafka
        for (String pair : text.split(",")) {
            int colon = pair.indexOf(':');
            if (colon > 0) {
                map.put(upper(pair.substring(0, colon)), upper(pair.substring(colon + 1)));
            }
        }
        return map;
    }

    private static Set<String> names(String text) {
        Set<String> names = new java.util.HashSet<>();
        for (String name : text.split(",")) {
            if (!name.trim().isEmpty()) {
                names.add(upper(name));
            }
        }
        return names;
    }

    private static boolean isWildcard(String host) {
        return host.isEmpty() || host.equals("0.0.0.0") || host.equals("[::]") || host.equals("[0:0:0:0:0:0:0:0]");
    }

    /** A host this machine can dial: loopback for a wildcard, of the same address family. */
    private static String dialable(String host) {
        if (host.isEmpty() || host.equals("0.0.0.0")) {
            return "127.0.0.1";
        }
        if (isWildcard(host)) {
            return "[::1]";
        }
        return host;
    }

    private static String text(Map<String, ?> configs, String key) {
        Object value = configs.get(key);
        if (value instanceof java.util.Collection) {
            return String.join(",", ((java.util.Collection<?>) value).stream().map(String::valueOf)
                    .toArray(String[]::new));
        }
        return value == null ? "" : value.toString().trim();
    }

    private static String upper(String text) {
        return text.trim().toUpperCase(Locale.ROOT);
    }
}
