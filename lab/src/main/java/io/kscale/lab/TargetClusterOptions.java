package io.kscale.lab;

import io.kscale.lab.cluster.ClusterSpec;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.KafkaClusters;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Option;

/**
 * Where a scenario runs, shared by every scenario command: a real cluster the lab starts (the
 * default), or the user's own cluster named by {@code --bootstrap-server}, or by the
 * {@code bootstrap.servers} of the {@code --command-config} file (as {@code kscale-lab cluster}
 * writes it, security settings included).
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
                    + " not available. Default: bootstrap.servers of --command-config, if it has one.")
    String bootstrapServer;

    @Option(names = "--command-config", paramLabel = "FILE",
            description = "Client settings (security and so on) as a properties file, for every client the"
                    + " scenario creates; with bootstrap.servers in it, the scenario runs on that cluster (the file"
                    + " kscale-lab cluster writes works as is).")
    Path commandConfig;

    /** Whether the scenario runs on the user's cluster: --bootstrap-server, or bootstrap.servers in --command-config. */
    boolean userCluster() {
        return bootstrapServer() != null;
    }

    /** The user's cluster: --bootstrap-server, else bootstrap.servers of --command-config, else null. */
    String bootstrapServer() {
        if (bootstrapServer != null) {
            return bootstrapServer;
        }
        try {
            Object fromFile = commandConfig().get("bootstrap.servers");
            return fromFile == null || fromFile.toString().isBlank() ? null : fromFile.toString().trim();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read --command-config " + commandConfig, e);
        }
    }

    KafkaCluster startEmbedded() {
        return startEmbedded(spec -> spec);
    }

    /** @param cluster adds what the scenario needs of the brokers (plug-in jars, settings) to the spec */
    KafkaCluster startEmbedded(UnaryOperator<ClusterSpec.Builder> cluster) {
        return KafkaClusters.start(cluster.apply(ClusterSpec.builder().brokers(brokers)).build(), backend);
    }

    /** The --command-config settings plus bootstrap.servers of the user's cluster. */
    Map<String, Object> userClusterProperties() throws IOException {
        Map<String, Object> props = new HashMap<>(commandConfig());
        props.put("bootstrap.servers", bootstrapServer());
        return props;
    }

    /** What a scenario returned, and the line that described where it ran. */
    static final class Outcome<R> {
        final String setup;
        final R result;

        Outcome(String setup, R result) {
            this.setup = setup;
            this.result = result;
        }
    }

    /**
     * Runs a scenario on the user's cluster, or on an embedded one started for it and stopped
     * afterwards, after printing one line that says where it runs.
     *
     * @param out where the setup line goes
     * @param description what the scenario does, for the setup line
     * @param scenario runs on the given client settings (connection plus --command-config)
     */
    <R> Outcome<R> run(PrintWriter out, String description, Function<Map<String, Object>, R> scenario) throws IOException {
        return run(out, description, spec -> spec, scenario);
    }

    /**
     * As {@link #run(PrintWriter, String, Function)}, with brokers that the scenario prepares
     * through {@code cluster} when the lab starts them (a user's cluster is used as it is).
     */
    <R> Outcome<R> run(PrintWriter out, String description, UnaryOperator<ClusterSpec.Builder> cluster,
                       Function<Map<String, Object>, R> scenario) throws IOException {
        if (userCluster()) {
            String setup = String.format(Locale.ROOT, "Cluster %s. %s", bootstrapServer(), description);
            out.println(setup);
            out.flush();
            return new Outcome<>(setup, scenario.apply(userClusterProperties()));
        }
        try (KafkaCluster embedded = startEmbedded(cluster)) {
            String setup = String.format(Locale.ROOT, "Embedded cluster of %d broker(s) (Kafka 4.4.0, loopback). %s",
                    embedded.brokerCount(), description);
            out.println(setup);
            out.flush();
            Map<String, Object> props = new HashMap<>(commandConfig());
            props.putAll(embedded.clientProperties());
            return new Outcome<>(setup, scenario.apply(props));
        }
    }

    /**
     * Prints a scenario's text table and where its HTML report went: the end of every scenario command.
     *
     * @return the command's exit status
     */
    static int printResults(PrintWriter out, String table, Path htmlReport) {
        out.println();
        out.print(table);
        out.println();
        out.println("Report: " + htmlReport.toAbsolutePath());
        out.flush();
        return 0;
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
