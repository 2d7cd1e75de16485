package io.kscale.lab;

import io.kscale.lab.batching.BatchingReport;
import io.kscale.lab.batching.BatchingRun;
import io.kscale.lab.batching.BatchingScenario;
import io.kscale.lab.batching.BatchingSettings;
import io.kscale.lab.batching.SendPacing;
import io.kscale.lab.batching.SendRate;
import io.kscale.lab.cluster.ClusterSpec;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.KafkaClusters;
import io.kscale.lab.cluster.ProcessKafkaCluster;
import io.kscale.lab.partitioner.PartitionerPeer;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kscale-lab batching}: how well kscale's partitioner batches against Kafka's built-in
 * one and {@code RoundRobinPartitioner}, over a matrix of rates, lingers and pacings (issue 19).
 *
 * <p>Example: {@code ./kscale-lab batching --rates 5000 --lingers 0,5 --pacing bursty --rounds 1
 * --duration 15s} runs 2 cells of 3 partitioners for 15 s each (under 2 minutes), prints a
 * Markdown summary and a table of every run, and the paths of the Markdown and CSV reports.
 */
@Command(name = "batching",
        mixinStandardHelpOptions = true,
        description = {
            "Measures how well partitioners batch: records per request, batch-size-avg,",
            "send latency (send() to callback, mean and p99) and throughput.",
            "",
            "Starts 3 brokers; one topic per partitioner of 30 partitions, 10 led by each",
            "broker (one replica each). A producer with acks=1 sends 512-byte unkeyed",
            "records at each rate (records/s, or max: as fast as send() returns), each",
            "linger.ms and each pacing: bursty sends round(rate x 2 ms) records back to",
            "back every 2 ms, as Kafka's ProducerPerformance does (10 at 5000/s); even",
            "sends one every 1/rate s. The max rate is unpaced: one cell per linger.ms.",
            "In each cell, every round runs each partitioner once, the order reversed in",
            "odd rounds, on the same cluster.",
            "",
            "Where kscale and built-in both ran, the summary gives the ratio of their mean",
            "records per request and a rank test of their rounds: ahead or behind only",
            "when the two differ by more than rounds differ among themselves (p < 0.05).",
            "That takes 4 rounds or more: with 2 each, no result shows a difference.",
            "",
            "The default matrix is 14 cells x 3 partitioners x 2 rounds = 84 runs of 20 s:",
            "about 31 minutes with the cluster's start (each run prints its estimate).",
            "",
            "Example: kscale-lab batching --rates 5000 --lingers 0,5 --pacing bursty",
            "         --rounds 1 --duration 15s"
        })
final class BatchingCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--rates", split = ",", paramLabel = "RATE", defaultValue = "1000,5000,20000,max",
            description = "Records per second, or max (default: ${DEFAULT-VALUE}).")
    private List<String> rates;

    @Option(names = "--lingers", split = ",", paramLabel = "MS", defaultValue = "0,5",
            description = "The producer's linger.ms values (default: ${DEFAULT-VALUE}).")
    private List<Integer> lingers;

    @Option(names = "--pacing", split = ",", paramLabel = "PACING", defaultValue = "bursty,even",
            description = "bursty, even, or both; ignored at the max rate (default: ${DEFAULT-VALUE}).")
    private List<String> pacings;

    @Option(names = "--partitioners", split = ",", paramLabel = "NAME", defaultValue = "kscale,built-in,round-robin",
            description = "Which to run, in the first round's order: kscale, built-in, round-robin"
                    + " (default: ${DEFAULT-VALUE}).")
    private List<String> partitioners;

    @Option(names = "--rounds", defaultValue = "2", paramLabel = "N",
            description = "Runs of each partitioner per cell, alternating the order (default: ${DEFAULT-VALUE}).")
    private int rounds;

    @Option(names = "--duration", defaultValue = "20s", paramLabel = "DURATION",
            description = "How long each run produces, e.g. 20s or 1m (default: ${DEFAULT-VALUE}).")
    private String duration;

    @Option(names = "--record-size", defaultValue = "512", paramLabel = "BYTES",
            description = "Value size of each record; records have no key (default: ${DEFAULT-VALUE}).")
    private int recordSize;

    @Option(names = "--sticky-batch-size", defaultValue = "0", paramLabel = "BYTES",
            description = "kscale's partitioner.sticky.batch.size, the bytes of each stint; 0 leaves it at its"
                    + " default, the producer's batch.size (default: ${DEFAULT-VALUE}).")
    private int stickyBatchSize;

    @Option(names = "--backend", defaultValue = "${sys:kscale.cluster:-process}", paramLabel = "process|docker|auto",
            description = "How the lab starts brokers: child JVMs, Testcontainers, or docker when an engine"
                    + " answers (default: ${DEFAULT-VALUE}).")
    private String backend;

    @Option(names = "--work-dir", defaultValue = "target/kscale-clusters", paramLabel = "DIR",
            description = "Where broker logs go (default: ${DEFAULT-VALUE}).")
    private Path workDir;

    @Option(names = "--report-dir", defaultValue = "target/kscale-reports", paramLabel = "DIR",
            description = "Where the Markdown and CSV reports go (default: ${DEFAULT-VALUE}).")
    private Path reportDir;

    @Option(names = "--verbose", description = "Log the clients' INFO lines too; without it, Kafka's clients log"
            + " warnings and errors only.")
    private boolean verbose;

    @Override
    public Integer call() {
        if (!verbose && System.getProperty("org.slf4j.simpleLogger.log.org.apache.kafka") == null) {
            // 84 producers each log their whole configuration at INFO. Set before the first
            // Kafka logger exists: slf4j-simple reads levels then.
            System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "warn");
        }
        PrintWriter out = spec.commandLine().getOut();
        BatchingSettings settings = settings();
        long start = System.nanoTime();
        out.println(String.format(Locale.ROOT, "%d cells x %d partitioners x %d rounds of %d s: about %d minutes.",
                settings.cells().size(), settings.peers().size(), settings.rounds(), settings.duration().toSeconds(),
                (settings.estimatedRunTime().toSeconds() + 59) / 60));
        out.flush();
        ClusterSpec clusterSpec = ClusterSpec.builder().brokers(3).workDir(workDir).build();
        List<BatchingRun> runs;
        String setup;
        try (KafkaCluster cluster = KafkaClusters.start(clusterSpec, backend)) {
            setup = String.format(Locale.ROOT, "Embedded cluster of %d brokers (Kafka 4.4.0, %s, loopback); one topic"
                    + " per partitioner of %d partitions, %d led by each broker; acks=1, %d-byte unkeyed records,"
                    + " %d s per run, %d round(s), peers alternating. Command: kscale-lab %s",
                    cluster.brokerCount(), cluster instanceof ProcessKafkaCluster ? "broker processes" : "Docker",
                    cluster.brokerCount() * BatchingSettings.PARTITIONS_PER_BROKER,
                    BatchingSettings.PARTITIONS_PER_BROKER, settings.recordSize(), settings.duration().toSeconds(),
                    settings.rounds(), String.join(" ", spec.commandLine().getParseResult().originalArgs()));
            out.println(setup);
            out.flush();
            runs = new BatchingScenario(settings).runOn(cluster, run -> {
                out.println(String.format(Locale.ROOT, "[%s] %s, round %d, %-11s %6.2f records/request, %8.0f"
                        + " records/s, p99 %.1f ms", clock(System.nanoTime() - start), run.cell(), run.round() + 1,
                        run.peer().cliName() + ":", run.recordsPerRequest(), run.recordsPerSecond(),
                        run.p99LatencyMillis()));
                out.flush();
            });
        }
        out.println();
        out.print(BatchingReport.markdown(runs));
        out.println();
        String name = "batching-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        List<Path> files = BatchingReport.write(runs, setup, reportDir, name);
        out.println("Markdown: " + files.get(0).toAbsolutePath());
        out.println("CSV: " + files.get(1).toAbsolutePath());
        out.flush();
        return 0;
    }

    BatchingSettings settings() {
        return BatchingSettings.builder()
                .rates(rates.stream().map(SendRate::parse).collect(Collectors.toList()))
                .lingers(lingers)
                .pacings(pacings.stream().map(SendPacing::fromCliName).collect(Collectors.toList()))
                .peers(partitioners.stream().map(PartitionerPeer::fromCliName).collect(Collectors.toList()))
                .rounds(rounds)
                .duration(PartitionerCommand.parseDuration(duration))
                .recordSize(recordSize)
                .stickyBatchSize(stickyBatchSize)
                .build();
    }

    private static String clock(long nanos) {
        long seconds = Duration.ofNanos(nanos).toSeconds();
        return String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
    }
}
