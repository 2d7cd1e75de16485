package io.kscale.lab.cluster;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * How a node of a {@link DockerKafkaCluster} is configured: the {@code apache/kafka} image reads
 * broker properties from {@code KAFKA_*} environment variables, and each node needs its id,
 * quorum and listeners. Pure functions, unit-tested without Docker.
 */
final class KafkaImageEnvironment {

    /** Container ports, as Testcontainers' {@code KafkaContainer} configures them. */
    static final int CLIENT_PORT = 9092;
    static final int BROKER_PORT = 9093;
    static final int CONTROLLER_PORT = 9094;

    private static final String ENV_PREFIX = "KAFKA_";
    private static final Pattern PROPERTY_KEY = Pattern.compile("[a-z0-9][a-z0-9._-]*");

    private KafkaImageEnvironment() {
    }

    /** The Docker network alias, and container host name, of node {@code id}. */
    static String networkAlias(int id) {
        return "kafka-" + id;
    }

    /** The static KRaft quorum over the aliases: {@code 0@kafka-0:9094,1@kafka-1:9094,...}. */
    static String quorumVoters(int brokers) {
        return IntStream.range(0, brokers)
                .mapToObj(id -> id + "@" + networkAlias(id) + ":" + CONTROLLER_PORT)
                .collect(Collectors.joining(","));
    }

    /**
     * The environment variable that the {@code apache/kafka} image turns into broker property
     * {@code key}: {@code KAFKA_} + the key upper-cased, with {@code _} written as {@code __},
     * {@code -} as {@code ___} and {@code .} as {@code _}; {@link #propertyKey} is the image's way
     * back.
     *
     * @throws IllegalArgumentException for a key the image cannot express (upper case letters,
     *                                  other characters, or no way back to the same key)
     */
    static String envVarName(String key) {
        if (!PROPERTY_KEY.matcher(key).matches()) {
            throw new IllegalArgumentException("Broker property '" + key + "' cannot be passed to the Docker image "
                    + "(only lower-case keys of [a-z0-9._-] map to KAFKA_* variables); use the process backend "
                    + "(-D" + ClusterBackend.PROPERTY + "=process) for it");
        }
        StringBuilder name = new StringBuilder(ENV_PREFIX);
        for (char c : key.toCharArray()) {
            switch (c) {
                case '_':
                    name.append("__");
                    break;
                case '-':
                    name.append("___");
                    break;
                case '.':
                    name.append('_');
                    break;
                default:
                    name.append(Character.toUpperCase(c));
            }
        }
        if (!key.equals(propertyKey(name.toString()))) {
            // e.g. "a_.b" and "a-b" would both be KAFKA_A___B
            throw new IllegalArgumentException("Broker property '" + key + "' has no unambiguous KAFKA_* variable "
                    + "in the Docker image; use the process backend (-D" + ClusterBackend.PROPERTY + "=process) for it");
        }
        return name.toString();
    }

    /**
     * The broker property the image makes of a {@code KAFKA_*} variable: its
     * {@code KafkaDockerWrapper} removes every {@code KAFKA_} (not only the prefix, so a key
     * containing {@code kafka.} cannot be expressed), lower-cases, turns {@code _} into
     * {@code .}, then {@code ...} into {@code -} and {@code ..} into {@code _}.
     */
    static String propertyKey(String envVar) {
        if (!envVar.startsWith(ENV_PREFIX)) {
            throw new IllegalArgumentException("Not a KAFKA_* variable: " + envVar);
        }
        return envVar.replace(ENV_PREFIX, "").toLowerCase(Locale.ROOT)
                .replace("_", ".")
                .replace("...", "-")
                .replace("..", "_");
    }

    /** Broker settings as {@code KAFKA_*} variables, in the settings' order. */
    static Map<String, String> settingsEnv(Map<String, String> settings) {
        Map<String, String> env = new LinkedHashMap<>();
        settings.forEach((key, value) -> env.put(envVarName(key), value));
        return env;
    }

    /**
     * The whole environment of node {@code id}: the cluster's settings, then the node's own
     * identity and listeners, which win over settings (as on the process backend).
     * {@code KAFKA_ADVERTISED_LISTENERS} is not here: KafkaContainer's starter script exports it
     * once the container runs.
     */
    static Map<String, String> containerEnv(ClusterSpec spec, int id, String clusterId, Map<String, String> settings) {
        Map<String, String> env = settingsEnv(settings);
        env.put("CLUSTER_ID", clusterId);
        env.put("KAFKA_NODE_ID", Integer.toString(id));
        env.put("KAFKA_PROCESS_ROLES", "broker,controller");
        env.put("KAFKA_CONTROLLER_QUORUM_VOTERS", quorumVoters(spec.brokers()));
        env.put("KAFKA_LISTENERS", "PLAINTEXT://0.0.0.0:" + CLIENT_PORT + ",BROKER://0.0.0.0:" + BROKER_PORT
                + ",CONTROLLER://0.0.0.0:" + CONTROLLER_PORT);
        env.put("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "BROKER:PLAINTEXT,PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        env.put("KAFKA_INTER_BROKER_LISTENER_NAME", "BROKER");
        env.put("KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER");
        // JVM options, read by kafka-server-start.sh (the image does not turn these into properties).
        env.put("KAFKA_HEAP_OPTS", "-Xms64m -Xmx" + spec.brokerHeap());
        env.put("KAFKA_JVM_PERFORMANCE_OPTS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true");
        return env;
    }
}
