package io.kscale.lab;

import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.partitioner.PartitionerPeer;
import io.kscale.lab.partitioner.PartitionerReport;
import io.kscale.lab.partitioner.PartitionerRun;
import io.kscale.lab.partitioner.PartitionerScenario;
import io.kscale.lab.partitioner.PartitionerSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kscale-lab partitioner}: KIP-794's uneven-broker experiment, kscale against its peers. */
@Command(name = "partitioner",
        mixinStandardHelpOptions = true,
        description = {
            "Measures how evenly partitioners spread unkeyed records when one broker is slow.",
            "",
            "KIP-794's setup: 3 brokers, the first one's produce responses delayed by 20 ms, one",
            "partition led by each broker, linger.ms=0, 512-byte records at 1 MB/s. Runs kscale's",
            "UniformStickyBytesPartitioner, Kafka 4.4's built-in partitioner, RoundRobinPartitioner",
            "and the KIP-480 sticky partitioner (kafka-clients 3.9.1, own JVM) one after the other,",
            "prints bytes and records per partition, and writes an HTML bar chart.",
            "",
            "Example: kscale-lab partitioner --duration 60s --rounds 2"
        })
final class PartitionerCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private TargetClusterOptions target;

    @Option(names = "--partitioners", split = ",", paramLabel = "NAME",
            defaultValue = "kscale,built-in,round-robin,kip-480",
            description = "Which to run, in order: kscale, built-in, round-robin, kip-480 (default: ${DEFAULT-VALUE}).")
    private List<String> partitioners;

    @Option(names = "--duration", defaultValue = "30s", paramLabel = "DURATION",
            description = "How long each partitioner produces, e.g. 30s or 2m (default: ${DEFAULT-VALUE}).")
    private String duration;

    @Option(names = "--rate", defaultValue = "1000000", paramLabel = "BYTES_PER_SEC",
            description = "Producer throttle in bytes per second (default: ${DEFAULT-VALUE}).")
    private long rate;

    @Option(names = "--record-size", defaultValue = "512", paramLabel = "BYTES",
            description = "Value size of each record; records have no key (default: ${DEFAULT-VALUE}).")
    private int recordSize;

    @Option(names = "--partitions", defaultValue = "3", paramLabel = "N",
            description = "Partitions of each topic (default: ${DEFAULT-VALUE}).")
    private int partitions;

    @Option(names = "--linger-ms", defaultValue = "0", paramLabel = "MS",
            description = "The producer's linger.ms (default: ${DEFAULT-VALUE}).")
    private int lingerMs;

    @Option(names = "--sticky-batch-size", defaultValue = "0", paramLabel = "BYTES",
            description = "kscale's partitioner.sticky.batch.size; 0 means batch.size (default: ${DEFAULT-VALUE}).")
    private int stickyBatchSize;

    @Option(names = "--latency-ms", defaultValue = "20", paramLabel = "MS",
            description = "Delay added to the slow broker's responses, 0-500 (default: ${DEFAULT-VALUE}).")
    private int latencyMs;

    @Option(names = "--slow-broker", defaultValue = "0", paramLabel = "ID",
            description = "Which broker is slowed (default: ${DEFAULT-VALUE}).")
    private int slowBroker;

    @Option(names = "--rounds", defaultValue = "1", paramLabel = "N",
            description = "Repeat the comparison, alternating the order of partitioners (default: ${DEFAULT-VALUE}).")
    private int rounds;

    @Option(names = "--report-dir", defaultValue = "target/kscale-reports", paramLabel = "DIR",
            description = "Where the HTML report goes (default: ${DEFAULT-VALUE}).")
    private Path reportDir;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PartitionerSettings settings = PartitionerSettings.builder()
                .peers(partitioners.stream().map(PartitionerPeer::fromCliName).collect(Collectors.toList()))
                .partitions(partitions)
                .recordSize(recordSize)
                .bytesPerSecond(rate)
                .duration(parseDuration(duration))
                .lingerMs(lingerMs)
                .stickyBatchSize(stickyBatchSize)
                .slowBroker(slowBroker)
                .addedLatency(Duration.ofMillis(latencyMs))
                .rounds(rounds)
                .extraProducerProperties(target.commandConfig())
                .build();
        PartitionerScenario scenario = new PartitionerScenario(settings);
        List<PartitionerRun> runs;
        String setup;
        if (target.userCluster()) {
            setup = String.format(Locale.ROOT, "Cluster %s (no latency added). %s", target.bootstrapServer(),
                    describe(settings));
            out.println(setup);
            out.flush();
            runs = scenario.runOn(target.userClusterProperties());
        } else {
            try (KafkaCluster cluster = target.startEmbedded()) {
                setup = String.format(Locale.ROOT, "Embedded cluster of %d broker(s) (Kafka 4.4.0, loopback), broker %d"
                        + " slowed by %d ms. %s", cluster.brokerCount(), slowBroker, latencyMs, describe(settings));
                out.println(setup);
                out.flush();
                runs = scenario.runOn(cluster);
            }
        }
        return TargetClusterOptions.printResults(out, PartitionerReport.table(runs, settings),
                PartitionerReport.writeHtml(runs, settings, setup, reportDir));
    }

    private static String describe(PartitionerSettings s) {
        return String.format(Locale.ROOT, "%d partitions, %d-byte unkeyed records at %d B/s for %d s per partitioner,"
                + " linger.ms=%d, acks=1, %d round(s); slow/mean is partition %d's share.", s.partitions(),
                s.recordSize(), s.bytesPerSecond(), s.duration().toSeconds(), s.lingerMs(), s.rounds(),
                s.slowBroker() % s.partitions());
    }

    static Duration parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            }
            if (t.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
            }
            if (t.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
            }
            return Duration.ofSeconds(Long.parseLong(t));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("duration must look like 500ms, 30s or 2m, got '" + text + "'");
        }
    }
}
