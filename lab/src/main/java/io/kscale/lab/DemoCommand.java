package io.kscale.lab;

import static io.kscale.lab.HtmlPage.escape;

import io.kscale.lab.cluster.ClusterSpec;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.KafkaClusters;
import io.kscale.lab.cluster.ProcessKafkaCluster;
import io.kscale.lab.expansion.ExpansionPeer;
import io.kscale.lab.expansion.ExpansionReport;
import io.kscale.lab.expansion.ExpansionRun;
import io.kscale.lab.expansion.ExpansionScenario;
import io.kscale.lab.expansion.ExpansionSettings;
import io.kscale.lab.partitioner.PartitionerPeer;
import io.kscale.lab.partitioner.PartitionerReport;
import io.kscale.lab.partitioner.PartitionerRun;
import io.kscale.lab.partitioner.PartitionerScenario;
import io.kscale.lab.partitioner.PartitionerSettings;
import io.kscale.lab.scaleout.ScaleOutPeer;
import io.kscale.lab.scaleout.ScaleOutReport;
import io.kscale.lab.scaleout.ScaleOutRun;
import io.kscale.lab.scaleout.ScaleOutScenario;
import io.kscale.lab.scaleout.ScaleOutSettings;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kscale-lab demo}: what kscale is for, in a few minutes. Starts one embedded 3-broker
 * cluster and runs short versions of the three comparisons on it, each kscale plug-in against the
 * Kafka default it replaces, through the same scenario code as {@code partitioner},
 * {@code expansion} and {@code scale-out}:
 * <ol>
 *   <li>the producer: broker 0 answers 20 ms late; kscale's partitioner against Kafka's built-in
 *       one, 15 s each; the number is the slow broker's partition's bytes over the mean;</li>
 *   <li>the consumer: a topic grows 4 -> 8 -> 16 partitions under a counting group of 3;
 *       KeyPreservingAssignor against CooperativeStickyAssignor; the number is keys split across
 *       consumers (their counts restart from zero);</li>
 *   <li>Kafka Streams: 1 -> 3 instances; WarmupTaskAssignor against StickyTaskAssignor, side by
 *       side; the numbers are records restored by newly active tasks (restore downtime) and time
 *       to balance.</li>
 * </ol>
 *
 * <p>Streams' peer is StickyTaskAssignor, not the default HighAvailabilityTaskAssignor: the
 * default avoids restore downtime as kscale does, by warming up first, but moves a warm copy only
 * at a probing rebalance, at least 60 s apart, so it needs over two minutes to balance this
 * scale-out ({@code kscale-lab scale-out} shows that). In a short run the default would show
 * neither downtime nor balance; the sticky assignor balances at once and shows what a move
 * without a warm copy costs.
 *
 * <p>Example: {@code ./kscale-lab demo} prints a line per step with the elapsed time, one table
 * per plug-in, and last the path of the HTML report.
 */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Shows what kscale is for in a few minutes: each plug-in against Kafka's default.",
            "",
            "Starts a 3-broker Kafka cluster on this machine and runs short versions of the",
            "three comparisons on it (the same code as the partitioner, expansion and",
            "scale-out commands):",
            "  1. producer: one broker 20 ms slow; kscale's UniformStickyBytesPartitioner",
            "     vs Kafka's built-in partitioner; the slow broker's share (slow/mean).",
            "  2. consumer: a topic grows 4 -> 8 -> 16 partitions under a group of 3;",
            "     KeyPreservingAssignor vs CooperativeStickyAssignor; keys split.",
            "  3. Kafka Streams: 1 -> 3 instances; WarmupTaskAssignor vs",
            "     StickyTaskAssignor; records restored by newly active tasks, and",
            "     seconds to balance. (Streams' default restores nothing either, but",
            "     balances only at probing rebalances 60 s apart: see scale-out.)",
            "Prints a line per step with the elapsed time, one table per plug-in, and last",
            "the path of the HTML report. About 3 minutes on a 2-core machine.",
            "It runs on broker processes by default: on the Docker backend the built-in",
            "partitioner's skew under the slowed broker came out smaller in our runs.",
            "",
            "Example: ./kscale-lab demo"
        })
final class DemoCommand implements Callable<Integer> {

    /** The slowed broker in the producer part. */
    static final int SLOW_BROKER = 0;
    /** How long each partitioner produces. */
    static final Duration PRODUCE_FOR = Duration.ofSeconds(15);
    private static final Duration QUIET_FOR = Duration.ofSeconds(30);

    @Spec
    private CommandSpec spec;

    @Option(names = "--backend", defaultValue = "${sys:kscale.cluster:-process}", paramLabel = "process|docker|auto",
            description = "How the lab starts brokers: child JVMs, Testcontainers, or docker when an engine"
                    + " answers and an image is there (default: ${DEFAULT-VALUE}, where the slowed broker"
                    + " shows best).")
    String backend;

    @Option(names = "--work-dir", defaultValue = "target/kscale-demo", paramLabel = "DIR",
            description = "Where broker logs and the Streams instances' state go (default: ${DEFAULT-VALUE}).")
    Path workDir;

    @Option(names = "--report-dir", defaultValue = "target/kscale-reports", paramLabel = "DIR",
            description = "Where the HTML report goes (default: ${DEFAULT-VALUE}).")
    Path reportDir;

    @Option(names = "--verbose",
            description = "Log to standard error as the other commands do: what the scenarios do, and the"
                    + " clients' warnings. Without it, only errors are logged.")
    boolean verbose;

    @Override
    public Integer call() {
        if (!verbose) {
            // The steps are the progress: only errors in the log. Set before the first logger
            // exists: slf4j-simple reads its levels then. A level given with -D still wins.
            quietLog("org.slf4j.simpleLogger.defaultLogLevel", "error");
            quietLog("org.slf4j.simpleLogger.log.io.kscale", "error");
        }
        PrintWriter out = spec.commandLine().getOut();
        long start = System.nanoTime();
        Progress progress = new Progress(out, start);
        try {
            Results results = run(progress);
            String tables = tables(results);
            out.println();
            out.print(tables);
            Path report = HtmlPage.write(reportDir, "demo", "kscale against Kafka's defaults", results.setup,
                    html(results));
            out.println();
            out.println("Done in " + Progress.clock(System.nanoTime() - start) + ".");
            out.println("Report: " + report.toAbsolutePath());
            out.flush();
            return 0;
        } finally {
            progress.close();
        }
    }

    private static void quietLog(String property, String level) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, level);
        }
    }

    private Results run(Progress progress) {
        ClusterSpec clusterSpec = ClusterSpec.builder().brokers(3).workDir(workDir).build();
        progress.step("Starting a 3-broker Kafka cluster (backend " + backend + ")");
        try (KafkaCluster cluster = KafkaClusters.start(clusterSpec, backend)) {
            String where = cluster instanceof ProcessKafkaCluster ? "broker processes" : "Docker containers";
            progress.step("Cluster up (" + where + "): bootstrap.servers=" + cluster.bootstrapServers());
            Results results = new Results();
            results.setup = String.format(Locale.ROOT, "Embedded cluster of %d brokers (Kafka 4.4.0, %s, loopback)."
                    + " %s %s %s", cluster.brokerCount(), where, describe(partitionerSettings(List.of())),
                    describe(expansionSettings()), describe(scaleOutSettings()));

            progress.step("1/3 producer: broker " + SLOW_BROKER + " answers "
                    + PartitionerSettings.DEFAULT_ADDED_LATENCY.toMillis() + " ms late; each partitioner produces "
                    + PRODUCE_FOR.toSeconds() + " s");
            for (PartitionerPeer peer : List.of(PartitionerPeer.KSCALE, PartitionerPeer.BUILT_IN)) {
                progress.step("    " + peer.label() + " ...");
                results.partitioner.addAll(new PartitionerScenario(partitionerSettings(List.of(peer))).runOn(cluster));
            }
            progress.step("1/3 done: slow/mean, max/mean " + results.partitioner.stream()
                    .map(r -> String.format(Locale.ROOT, "%.3f, %.3f (%s)", slowOverMean(r), r.maxOverMean(),
                            r.peer().cliName()))
                    .collect(Collectors.joining(", ")));

            ExpansionSettings expansion = expansionSettings();
            progress.step("2/3 consumer: topic grows " + ExpansionReport.path(expansion.partitionSteps())
                    + " partitions under a counting group of " + expansion.members());
            for (ExpansionPeer peer : expansion.peers()) {
                progress.step("    " + peer.label() + " ...");
                ExpansionSettings one = new ExpansionSettings(List.of(peer), expansion.partitionSteps(),
                        expansion.members(), expansion.keys(), expansion.recordsPerSecond(),
                        expansion.recordsPerStep());
                results.expansion.addAll(new ExpansionScenario(one).runOn(cluster.clientProperties()));
            }
            progress.step("2/3 done: keys split " + results.expansion.stream()
                    .map(r -> r.keys().splitKeys() + " of " + r.keys().keys() + " (" + r.peer().cliName() + ")")
                    .collect(Collectors.joining(", ")));

            ScaleOutSettings scaleOut = scaleOutSettings();
            progress.step("3/3 Kafka Streams: 1 -> " + scaleOut.instances() + " instances, "
                    + scaleOut.peers().stream().map(ScaleOutPeer::label).collect(Collectors.joining(" and "))
                    + " side by side");
            progress.step("    preload " + scaleOut.preloadRecords() + " records, one instance processes them, "
                    + (scaleOut.instances() - 1) + " join, wait for balance (up to "
                    + scaleOut.balanceTimeout().toSeconds() + " s) ...");
            results.scaleOut.addAll(new ScaleOutScenario(scaleOut).runOn(cluster.clientProperties()));
            progress.step("3/3 done: records restored by newly active tasks " + results.scaleOut.stream()
                    .map(r -> r.recordsRestoredByActives() + " (" + r.peer().cliName() + ")")
                    .collect(Collectors.joining(", ")));
            progress.step("Stopping the cluster");
            return results;
        }
    }

    /** The producer part: KIP-794's setup, shortened to one round of 15 s per partitioner. */
    PartitionerSettings partitionerSettings(List<PartitionerPeer> peers) {
        return PartitionerSettings.builder()
                .peers(peers.isEmpty() ? List.of(PartitionerPeer.KSCALE, PartitionerPeer.BUILT_IN) : peers)
                .duration(PRODUCE_FOR)
                .slowBroker(SLOW_BROKER)
                .rounds(1)
                .workDir(workDir)
                .build();
    }

    /** The consumer part: the expansion scenario's defaults, for kscale and CooperativeStickyAssignor. */
    static ExpansionSettings expansionSettings() {
        ExpansionSettings d = ExpansionSettings.defaults();
        return new ExpansionSettings(List.of(ExpansionPeer.KSCALE, ExpansionPeer.COOPERATIVE_STICKY),
                d.partitionSteps(), d.members(), d.keys(), d.recordsPerSecond(), d.recordsPerStep());
    }

    /**
     * The Streams part: a smaller application than {@code scale-out}'s (10,000 keys, a 40,000-record
     * preload), kscale and StickyTaskAssignor side by side, balance awaited for 75 s.
     */
    ScaleOutSettings scaleOutSettings() {
        return ScaleOutSettings.builder()
                .peers(List.of(ScaleOutPeer.KSCALE, ScaleOutPeer.STICKY))
                .keys(10_000)
                .preloadRecords(40_000)
                .balanceTimeout(Duration.ofSeconds(75))
                .workDir(workDir.resolve("scale-out"))
                .build();
    }

    private static String describe(PartitionerSettings s) {
        return String.format(Locale.ROOT, "Producer: broker %d slowed by %d ms, %d partitions (one led by each"
                        + " broker), %d-byte unkeyed records at %d B/s for %d s per partitioner, linger.ms=%d.",
                s.slowBroker(), s.addedLatency().toMillis(), s.partitions(), s.recordSize(), s.bytesPerSecond(),
                s.duration().toSeconds(), s.lingerMs());
    }

    private static String describe(ExpansionSettings s) {
        return String.format(Locale.ROOT, "Consumer: topic grows through %s partitions; %d members, %d keys at %d"
                        + " records/s, %d records per step.", ExpansionReport.path(s.partitionSteps()), s.members(),
                s.keys(), s.recordsPerSecond(), s.recordsPerStep());
    }

    private static String describe(ScaleOutSettings s) {
        return String.format(Locale.ROOT, "Kafka Streams: %d partitions, %d keys, %d preloaded records on one"
                        + " instance, then %d records/s while %d instances join; acceptable.recovery.lag %d,"
                        + " max.warmup.replicas %d, probing.rebalance.interval.ms %d; balance awaited for %d s.",
                s.partitions(), s.keys(), s.preloadRecords(), s.recordsPerSecond(), s.instances() - 1,
                s.acceptableRecoveryLag(), s.maxWarmupReplicas(), s.probingInterval().toMillis(),
                s.balanceTimeout().toSeconds());
    }

    static double slowOverMean(PartitionerRun run) {
        return run.shareOverMean(SLOW_BROKER % run.bytesPerPartition().length);
    }

    /** The three small tables, one per plug-in. */
    static String tables(Results r) {
        StringBuilder out = new StringBuilder();
        out.append("Producer, broker " + SLOW_BROKER + " 20 ms slow (bytes of the slow broker's partition, and of the"
                + " largest, over the mean; 1.000 is even)\n");
        out.append(String.format(Locale.ROOT, "  %-38s %-22s %9s %9s%n", "partitioner", "MB per partition",
                "slow/mean", "max/mean"));
        for (PartitionerRun run : r.partitioner) {
            out.append(String.format(Locale.ROOT, "  %-38s %-22s %9.3f %9.3f%n", run.peer().label(),
                    Arrays.stream(run.bytesPerPartition()).mapToObj(b -> String.format(Locale.ROOT, "%.2f", b / 1e6))
                            .collect(Collectors.joining(" / ")), slowOverMean(run), run.maxOverMean()));
        }
        out.append("\nConsumer, topic grows ").append(r.expansion.isEmpty() ? ""
                : ExpansionReport.path(r.expansion.get(0).partitionSteps())).append(" partitions (a split key's count"
                + " restarts from zero on its new consumer)\n");
        out.append(String.format(Locale.ROOT, "  %-38s %16s %12s %13s%n", "assignor", "keys split", "wrong counts",
                "records lost"));
        for (ExpansionRun run : r.expansion) {
            out.append(String.format(Locale.ROOT, "  %-38s %16s %12d %13d%n", run.peer().label(),
                    run.keys().splitKeys() + " of " + run.keys().keys(), run.keys().wrongCounts(), run.missing()));
        }
        out.append("\nKafka Streams, 1 -> 3 instances (restored: changelog records newly active tasks replayed"
                + " before processing)\n");
        out.append(String.format(Locale.ROOT, "  %-38s %10s %12s %14s %13s%n", "assignor", "restored", "restoring s",
                "balanced after", "wrong counts"));
        for (ScaleOutRun run : r.scaleOut) {
            out.append(String.format(Locale.ROOT, "  %-38s %10d %12.1f %14s %13d%n", run.peer().label(),
                    run.recordsRestoredByActives(), run.activeRestoreSeconds(),
                    run.balancedAfter().isPresent()
                            ? String.format(Locale.ROOT, "%.1f s", run.balancedAfter().getAsDouble())
                            : String.format(Locale.ROOT, "> %.0f s", run.balanceTimeoutSeconds()),
                    run.counts().wrongCounts()));
        }
        for (ScaleOutRun run : r.scaleOut) {
            run.problems().forEach(p -> out.append("  ").append(run.peer().label()).append(" problem: ").append(p)
                    .append('\n'));
        }
        return out.toString();
    }

    /** The page: the small tables, then each part's chart and full table as its own command shows them. */
    private String html(Results r) {
        StringBuilder body = new StringBuilder("<pre>").append(escape(tables(r))).append("</pre>\n");
        body.append("<h2>Producer: bytes per partition, one broker slow</h2>\n")
                .append(PartitionerReport.chart(r.partitioner)).append("\n<pre>")
                .append(escape(PartitionerReport.table(r.partitioner, partitionerSettings(List.of()))))
                .append("</pre>\n");
        body.append("<h2>Consumer: split keys and wrong counts while the topic grows</h2>\n")
                .append(ExpansionReport.chart(r.expansion)).append("\n<pre>")
                .append(escape(ExpansionReport.table(r.expansion))).append("</pre>\n");
        body.append("<h2>Kafka Streams: scale-out 1 &rarr; 3 instances</h2>\n<pre>")
                .append(escape(ScaleOutReport.table(r.scaleOut))).append("</pre>\n");
        for (ScaleOutRun run : r.scaleOut) {
            body.append("<h3>").append(escape(run.peer().label())).append("</h3>\n")
                    .append(ScaleOutReport.timeline(run)).append('\n');
        }
        body.append("<p>Longer runs with more peers: kscale-lab partitioner, kscale-lab expansion, kscale-lab"
                + " scale-out.</p>\n");
        return body.toString();
    }

    /** What the three parts returned. */
    static final class Results {
        String setup = "";
        final List<PartitionerRun> partitioner = new ArrayList<>();
        final List<ExpansionRun> expansion = new ArrayList<>();
        final List<ScaleOutRun> scaleOut = new ArrayList<>();
    }

    /**
     * Prints {@code [m:ss] step} lines, and while a step runs quietly, a "still running" line every
     * 30 s so that a long part does not look stuck.
     */
    static final class Progress implements AutoCloseable {
        private final PrintWriter out;
        private final long start;
        private final LongSupplier clock;
        private final ScheduledExecutorService ticker;
        private long lastLine;

        Progress(PrintWriter out, long start) {
            this(out, start, System::nanoTime, true);
        }

        Progress(PrintWriter out, long start, LongSupplier clock, boolean tick) {
            this.out = out;
            this.start = start;
            this.clock = clock;
            this.lastLine = start;
            this.ticker = tick ? Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "kscale-demo-progress");
                thread.setDaemon(true);
                return thread;
            }) : null;
            if (ticker != null) {
                ticker.scheduleAtFixedRate(this::tick, 5, 5, TimeUnit.SECONDS);
            }
        }

        synchronized void step(String what) {
            print(what);
        }

        private synchronized void tick() {
            if (clock.getAsLong() - lastLine >= QUIET_FOR.toNanos()) {
                print("    ... still running");
            }
        }

        private void print(String line) {
            long now = clock.getAsLong();
            lastLine = now;
            out.println("[" + clock(now - start) + "] " + line);
            out.flush();
        }

        /** @return nanoseconds as {@code m:ss} */
        static String clock(long nanos) {
            long seconds = TimeUnit.NANOSECONDS.toSeconds(nanos);
            return String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
        }

        @Override
        public void close() {
            if (ticker != null) {
                ticker.shutdownNow();
            }
        }
    }
}
