package io.kscale.lab.cluster;

import static io.kscale.lab.SettingChecks.positive;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What cluster to start: how many brokers, which broker settings to override, which extra jars
 * brokers load, and where their files go. Immutable; build one with {@link #builder()}.
 */
public final class ClusterSpec {

    public static final int MIN_BROKERS = 1;
    public static final int MAX_BROKERS = 5;

    /** Maximum client-facing delay {@link KafkaCluster#setLatency} accepts. */
    public static final Duration MAX_LATENCY = Duration.ofMillis(500);

    private final int brokers;
    private final Map<String, String> brokerProperties;
    private final List<Path> pluginJars;
    private final Path workDir;
    private final Duration startupTimeout;
    private final String brokerHeap;
    private final ClusterSecurity security;

    private ClusterSpec(Builder builder) {
        this.brokers = builder.brokers;
        this.brokerProperties = Map.copyOf(builder.brokerProperties);
        this.pluginJars = List.copyOf(builder.pluginJars);
        this.workDir = builder.workDir;
        this.startupTimeout = builder.startupTimeout;
        this.brokerHeap = builder.brokerHeap;
        this.security = builder.security;
    }

    public static Builder builder() {
        return new Builder();
    }

    public int brokers() {
        return brokers;
    }

    /** Broker settings that override the backend's defaults, applied to every broker. */
    public Map<String, String> brokerProperties() {
        return brokerProperties;
    }

    /** Jars added to every broker's classpath, e.g. a broker-side group assignor. */
    public List<Path> pluginJars() {
        return pluginJars;
    }

    /** The folder under which each cluster gets a folder of its own (logs, data). */
    public Path workDir() {
        return workDir;
    }

    public Duration startupTimeout() {
        return startupTimeout;
    }

    /** The {@code -Xmx} of each broker JVM, e.g. {@code 768m}. */
    public String brokerHeap() {
        return brokerHeap;
    }

    /** How clients reach the cluster: {@link ClusterSecurity#PLAINTEXT} unless set. */
    public ClusterSecurity security() {
        return security;
    }

    public static final class Builder {
        private int brokers = 3;
        private final Map<String, String> brokerProperties = new LinkedHashMap<>();
        private final List<Path> pluginJars = new ArrayList<>();
        private Path workDir = Path.of("target", "kscale-clusters");
        private Duration startupTimeout = Duration.ofSeconds(90);
        private String brokerHeap = "768m";
        private ClusterSecurity security = ClusterSecurity.PLAINTEXT;

        private Builder() {
        }

        public Builder brokers(int brokers) {
            if (brokers < MIN_BROKERS || brokers > MAX_BROKERS) {
                throw new IllegalArgumentException("brokers must be between " + MIN_BROKERS + " and "
                        + MAX_BROKERS + ", got " + brokers);
            }
            this.brokers = brokers;
            return this;
        }

        public Builder brokerProperty(String key, String value) {
            brokerProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public Builder brokerProperties(Map<String, String> properties) {
            properties.forEach(this::brokerProperty);
            return this;
        }

        public Builder pluginJar(Path jar) {
            pluginJars.add(Objects.requireNonNull(jar, "jar"));
            return this;
        }

        public Builder workDir(Path workDir) {
            this.workDir = Objects.requireNonNull(workDir, "workDir");
            return this;
        }

        public Builder startupTimeout(Duration timeout) {
            this.startupTimeout = positive("startupTimeout", timeout);
            return this;
        }

        public Builder brokerHeap(String heap) {
            if (!heap.matches("[0-9]+[kmgKMG]?")) {
                throw new IllegalArgumentException("brokerHeap must look like 512m or 1g, got " + heap);
            }
            this.brokerHeap = heap;
            return this;
        }

        /**
         * TLS, SCRAM-SHA-512 and ACLs ({@link ClusterSecurity#SASL_SSL}), or none (the default).
         * The Docker backend rejects a secured spec.
         */
        public Builder security(ClusterSecurity security) {
            this.security = Objects.requireNonNull(security, "security");
            return this;
        }

        public ClusterSpec build() {
            return new ClusterSpec(this);
        }
    }
}
