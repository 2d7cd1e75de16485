package io.kscale.lab;

import io.kscale.lab.cluster.ClusterSecurity;
import io.kscale.lab.cluster.ClusterSpec;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.KafkaClusters;
import io.kscale.lab.cluster.ProcessKafkaCluster;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kscale-lab cluster}: starts a real local Kafka cluster and keeps it up until Ctrl-C. */
@Command(name = "cluster",
        mixinStandardHelpOptions = true,
        description = {
            "Starts a real local Kafka cluster on loopback until Ctrl-C.",
            "",
            "Each node is a KRaft broker and controller in a child JVM (or a container with",
            "--backend docker). Prints bootstrap.servers, runs until Ctrl-C, then stops every broker.",
            "",
            "With --security sasl_ssl (process backend only), clients connect over TLS with",
            "SCRAM-SHA-512 and brokers enforce ACLs; the admin's client settings are written",
            "to --client-config (mode 600; only its path is printed), a file that",
            "--command-config of the scenario commands and Kafka's own tools take as is.",
            "",
            "Example: kscale-lab cluster --brokers 3 --broker-property log.segment.bytes=1048576",
            "Example: kscale-lab cluster --security sasl_ssl --client-config admin.properties"
        })
final class ClusterCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--brokers", defaultValue = "3", paramLabel = "N",
            description = "Number of brokers, 1 to 5 (default: ${DEFAULT-VALUE}).")
    private int brokers;

    @Option(names = "--broker-property", paramLabel = "KEY=VALUE", split = ",",
            description = "A broker setting for every broker; repeat or separate with commas.")
    private Map<String, String> brokerProperties = new LinkedHashMap<>();

    @Option(names = "--work-dir", defaultValue = "target/kscale-clusters", paramLabel = "DIR",
            description = "Where broker logs and data go (default: ${DEFAULT-VALUE}).")
    private Path workDir;

    @Option(names = "--backend", defaultValue = "${sys:kscale.cluster:-auto}", paramLabel = "process|docker|auto",
            description = "Broker backend: child JVM processes, Testcontainers, or docker when an engine"
                    + " answers (default: ${DEFAULT-VALUE}).")
    private String backend;

    @Option(names = "--security", defaultValue = "plaintext", paramLabel = "plaintext|sasl_ssl",
            converter = SecurityConverter.class,
            description = "plaintext, or sasl_ssl: TLS listeners, SCRAM-SHA-512 users and StandardAuthorizer ACLs"
                    + " with a super user 'admin' (process backend only) (default: ${DEFAULT-VALUE}).")
    private ClusterSecurity security;

    @Option(names = "--client-config", paramLabel = "FILE",
            description = "Where to write the admin's client settings (default: client.properties in the"
                    + " cluster's folder under --work-dir).")
    private Path clientConfig;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        ClusterSpec clusterSpec = ClusterSpec.builder()
                .brokers(brokers)
                .brokerProperties(brokerProperties)
                .workDir(workDir)
                .security(security)
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        KafkaCluster cluster = KafkaClusters.start(clusterSpec, backend);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cluster.close();
            out.println("Stopped.");
            out.flush();
            stopped.countDown();
        }, "kscale-lab-stop"));
        announce(out, cluster, clientConfig);
        out.println("Press Ctrl-C to stop.");
        out.flush();
        stopped.await();
        return 0;
    }

    /**
     * Says that the cluster is up, with its {@code bootstrap.servers}, and writes its client
     * settings to a file readable by its owner only. A secured cluster's settings hold the
     * admin's password and the truststore's: only the file's path is printed, never a setting
     * (standard output ends up in terminals' scroll-back, CI logs and screen shares).
     *
     * @param clientConfig where to write them; null for the cluster's folder
     */
    static void announce(PrintWriter out, KafkaCluster cluster, Path clientConfig) {
        out.println("Kafka cluster of " + cluster.brokerCount() + " broker(s) is up.");
        out.println("bootstrap.servers=" + cluster.bootstrapServers());
        Path file = clientConfig != null ? clientConfig
                : cluster instanceof ProcessKafkaCluster ? ((ProcessKafkaCluster) cluster).directory().resolve("client.properties")
                : null;
        if (file != null) {
            ProcessKafkaCluster.writeClientProperties(file, cluster.clientProperties());
            out.println("Client settings written to " + file.toAbsolutePath() + " (mode 600)");
        }
        if (cluster.security() != ClusterSecurity.PLAINTEXT) {
            out.println("They log in as the super user " + ClusterSecurity.ADMIN_USER + "; pass the file to --command-config"
                    + " of the scenario commands and of Kafka's tools (grant other users ACLs with kafka-acls.sh).");
        }
    }

    /** Parses --security case-insensitively. */
    static final class SecurityConverter implements CommandLine.ITypeConverter<ClusterSecurity> {
        @Override
        public ClusterSecurity convert(String value) {
            return ClusterSecurity.parse(value);
        }
    }
}
