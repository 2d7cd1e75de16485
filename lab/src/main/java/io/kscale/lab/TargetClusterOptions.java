package io.kscale.lab;

import io.kscale.lab.cluster.ClusterSpec;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.KafkaClusters;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Option;

/**
 * Where a scenario runs, shared by every scenario command: a real cluster the lab starts (the
 * default), or the user's own cluster named by {@code --bootstrap-server}.
 */
final class TargetClusterOptions {

    @Option(names = "--brokers", defaultValue = "3", paramLabel = "N",
            description = "Brokers of the cluster the lab starts, 1 to 5 (default: ${DEFAULT-VALUE}).")
    int brokers;

    @Option(names = "--backend", defaultValue = "${sys:kscale.cluster:-auto}", paramLabel = "process|docker|auto",
            description = "How the lab starts brokers: child JVMs, Testcontainers, or docker when an engine"
                    + " answers (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT",
            description = "Run on this cluster instead of starting one; faults such as added latency are then"
                    + " not available.")
    String bootstrapServer;

    @Option(names = "--command-config", paramLabel = "FILE",
            description = "Client settings (security and so on) as a properties file, for every client the"
                    + " scenario creates.")
    Path commandConfig;

    boolean userCluster() {
        return bootstrapServer != null;
    }

    KafkaCluster startEmbedded() {
        return KafkaClusters.start(ClusterSpec.builder().brokers(brokers).build(), backend);
    }

    /** The --command-config settings plus bootstrap.servers of the user's cluster. */
    Map<String, Object> userClusterProperties() throws IOException {
        Map<String, Object> props = new HashMap<>(commandConfig());
        props.put("bootstrap.servers", bootstrapServer);
        return props;
    }

    /** The --command-config settings, or none. */
    Map<String, Object> commandConfig() throws IOException {
        Map<String, Object> props = new HashMap<>();
        if (commandConfig != null) {
            Properties properties = new Properties();
            try (InputStream in = Files.newInputStream(commandConfig)) {
                properties.load(in);
            }
            properties.stringPropertyNames().forEach(k -> props.put(k, properties.getProperty(k)));
        }
        return props;
    }
}
