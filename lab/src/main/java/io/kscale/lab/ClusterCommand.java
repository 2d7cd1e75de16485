package io.kscale.lab;

import io.kscale.lab.cluster.ClusterSpec;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.KafkaClusters;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
            "Example: kscale-lab cluster --brokers 3 --broker-property log.segment.bytes=1048576"
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

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        ClusterSpec clusterSpec = ClusterSpec.builder()
                .brokers(brokers)
                .brokerProperties(brokerProperties)
                .workDir(workDir)
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        KafkaCluster cluster = KafkaClusters.start(clusterSpec, backend);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cluster.close();
            out.println("Stopped.");
            out.flush();
            stopped.countDown();
        }, "kscale-lab-stop"));
        out.println("Kafka cluster of " + brokers + " broker(s) is up.");
        out.println("bootstrap.servers=" + cluster.bootstrapServers());
        out.println("Press Ctrl-C to stop.");
        out.flush();
        stopped.await();
        return 0;
    }
}
