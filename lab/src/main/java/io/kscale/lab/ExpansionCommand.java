package io.kscale.lab;

import io.kscale.lab.cluster.ClusterSpec;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.ServerAssignorPlugin;
import io.kscale.lab.expansion.ExpansionPeer;
import io.kscale.lab.expansion.ExpansionReport;
import io.kscale.lab.expansion.ExpansionRun;
import io.kscale.lab.expansion.ExpansionScenario;
import io.kscale.lab.expansion.ExpansionSettings;
import io.kscale.lab.expansion.FaultedExpansionRun;
import io.kscale.lab.expansion.FaultedExpansionScenario;
import io.kscale.lab.expansion.InterruptedExpansionScenario;
import io.kscale.lab.expansion.Interruption;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.GroupProtocol;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kscale-lab expansion}: per-key state while a topic grows, kscale's assignor against its peers. */
@Command(name = "expansion",
        mixinStandardHelpOptions = true,
        description = {
            "Measures how many keys change consumer when a topic gains partitions.",
            "",
            "A producer writes numbered records for a fixed set of keys while the topic",
            "grows (4 -> 8 -> 16 partitions by default); a consumer group counts records",
            "per key in each member's local state. A key whose records reach a second",
            "member is split, and its final count is wrong. Then a member joins and one",
            "leaves, checking that every partition is owned exactly once and no record",
            "is lost. Runs kscale's KeyPreservingAssignor, CooperativeStickyAssignor and",
            "RangeAssignor one after the other, each on its own topic, prints a table",
            "and writes an HTML bar chart.",
            "",
            "With --faults, runs the first assignor alone through the same growth with",
            "faults: kill -9 of a partition leader's broker (then its restart) during the",
            "first growth, a member frozen past its session and the group leader killed",
            "during the second; each member commits its per-key counts with its offsets,",
            "and the run reports split keys, wrong counts and lost records. With",
            "--group-protocol consumer it runs server-kscale (or the first of --peers):",
            "there is no group leader, so the member last given new partitions is killed.",
            "",
            "With --group-protocol consumer, runs the broker-side assignors instead:",
            "kscale's KeyPreservingServerAssignor, Kafka's uniform and range, with",
            "consumers on group.protocol=consumer and group.remote.assignor; the brokers",
            "the lab starts load kscale's assignor jar and offer all three.",
            "",
            "With --interruption, runs each peer through the growth 4 -> 8, then a group",
            "restart, a restart of every broker, a re-created topic or a migration from",
            "the classic protocol, then a growth that only a kept task count survives.",
            "",
            "Example: kscale-lab expansion --partitions 4,8,16,32 --keys 500",
            "         kscale-lab expansion --group-protocol consumer",
            "         kscale-lab expansion --group-protocol consumer --interruption broker-restart",
            "         kscale-lab expansion --faults --rate 500 --records-per-step 2000",
            "         kscale-lab expansion --faults --repeat 10 --barrier-grace 10000",
            "         kscale-lab expansion --faults --group-protocol consumer --barrier-grace 15000"
        })
final class ExpansionCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private TargetClusterOptions target;

    @Option(names = "--group-protocol", paramLabel = "classic|consumer",
            description = "The consumers' group.protocol, which picks the default --peers: classic (the default)"
                    + " runs kscale, kscale-no-barrier, cooperative-sticky and range in the consumers; consumer"
                    + " (KIP-848) runs server-kscale, server-uniform and server-range in the brokers, which the lab"
                    + " then starts with kscale's assignor jar and group.consumer.assignors listing all three.")
    private String groupProtocol;

    @Option(names = "--peers", split = ",", paramLabel = "NAME",
            description = "Which assignors to run, in order: kscale (with ExpansionBarrier), kscale-no-barrier,"
                    + " cooperative-sticky, range (classic protocol); server-kscale, server-uniform, server-range"
                    + " (consumer protocol, assigned by the broker). Default: every peer of --group-protocol.")
    private List<String> peers;

    @Option(names = "--partitions", split = ",", paramLabel = "N", defaultValue = "4,8,16",
            description = "Partition counts the topic goes through, growing; the first is the topic's size at"
                    + " creation (default: ${DEFAULT-VALUE}).")
    private List<Integer> partitions;

    @Option(names = "--members", defaultValue = "3", paramLabel = "N",
            description = "Consumers in the group before the join/leave step (default: ${DEFAULT-VALUE}).")
    private int members;

    @Option(names = "--keys", defaultValue = "200", paramLabel = "N",
            description = "Distinct record keys the producer cycles through (default: ${DEFAULT-VALUE}).")
    private int keys;

    @Option(names = "--rate", defaultValue = "2000", paramLabel = "RECORDS_PER_SEC",
            description = "Producer throttle in records per second (default: ${DEFAULT-VALUE}).")
    private int rate;

    @Option(names = "--records-per-step", defaultValue = "4000", paramLabel = "N",
            description = "Records sent at each partition count before the next growth, and again after the"
                    + " membership changes (default: ${DEFAULT-VALUE}).")
    private long recordsPerStep;

    @Option(names = "--faults",
            description = "Run the first of --peers alone with faults (see above), on its group protocol; takes three"
                    + " partition counts and runs only on the cluster the lab starts, since it kills brokers.")
    private boolean faults;

    @Option(names = "--repeat", defaultValue = "1", paramLabel = "N",
            description = "With --faults: run the faulted scenario N times on the same cluster, each on a topic of its"
                    + " own, and print every run and a line of totals (default: ${DEFAULT-VALUE}).")
    private int repeat;

    @Option(names = "--barrier-grace", paramLabel = "MS",
            description = "The members' kscale.barrier.grace.ms, where they poll through ExpansionBarrier (--faults);"
                    + " their max hold is at least as long. Default: the barrier's (1000). To keep order through the"
                    + " kill -9 of a leader, cover the failover: the controller fences a dead broker after"
                    + " broker.session.timeout.ms (9 s by default), and the producer's retried records follow.")
    private Long barrierGraceMs;

    @Option(names = "--interruption", paramLabel = "NAME",
            description = "Run each of --peers through the growth 4 -> 8, then this, then 8 -> 12 (a multiple of the"
                    + " first task count, not of 8): group-restart, broker-restart (every broker at once),"
                    + " topic-recreated (at 5 partitions, then 10), or migration (from kscale's classic assignor to"
                    + " each broker-side peer). The lab's own cluster only, since it restarts brokers.")
    private String interruption;

    @Option(names = "--report-dir", defaultValue = "target/kscale-reports", paramLabel = "DIR",
            description = "Where the HTML report goes (default: ${DEFAULT-VALUE}).")
    private Path reportDir;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        ExpansionSettings settings = settings();
        if (faults) {
            return runWithFaults(out, settings);
        }
        if (interruption != null) {
            return runInterrupted(out, settings, Interruption.fromCliName(interruption));
        }
        ExpansionScenario scenario = new ExpansionScenario(settings);
        TargetClusterOptions.Outcome<List<ExpansionRun>> outcome = target.run(out, describe(settings),
                spec -> brokers(spec, settings), scenario::runOn);
        List<ExpansionRun> runs = outcome.result;
        return TargetClusterOptions.printResults(out, ExpansionReport.table(runs),
                ExpansionReport.writeHtml(runs, outcome.setup, reportDir));
    }

    private int runWithFaults(PrintWriter out, ExpansionSettings settings) {
        if (target.userCluster()) {
            throw new IllegalArgumentException("--faults kills and restarts brokers: it runs on the cluster the lab"
                    + " starts, not with --bootstrap-server or a --command-config that names one");
        }
        FaultedExpansionScenario scenario = new FaultedExpansionScenario(settings);
        ExpansionPeer peer = settings.peers().get(0);
        try (KafkaCluster cluster = target.startEmbedded(spec -> faultedBrokers(spec, peer))) {
            out.printf(Locale.ROOT, "Embedded cluster of %d broker(s) (Kafka 4.4.0, loopback). Topic grows through %s"
                            + " partitions while a broker is killed, a member frozen and %s killed; %s,"
                            + " %d members, %d keys at %d records/s, %d records per step.%n", cluster.brokerCount(),
                    ExpansionReport.path(settings.partitionSteps()), peer.isServerSide()
                            ? "the member last given new partitions (group.protocol=consumer: no group leader)"
                            : "the group leader", peer.label(), settings.members(),
                    settings.keys(), settings.recordsPerSecond(), settings.recordsPerStep());
            out.flush();
            int failed = 0;
            long split = 0;
            long missing = 0;
            long outOfOrder = 0;
            long counted = 0;
            for (int i = 1; i <= repeat; i++) {
                FaultedExpansionRun run = scenario.runOn(cluster);
                out.println();
                out.printf(Locale.ROOT, "Run %d of %d: %s%n", i, repeat, run);
                out.flush();
                boolean ok = run.problems().isEmpty() && run.splitKeys() == 0 && run.wrongCounts() == 0
                        && run.missing() == 0 && run.outOfOrder() <= run.barrierOutOfOrder();
                failed += ok ? 0 : 1;
                split += run.splitKeys();
                missing += run.missing();
                outOfOrder += run.outOfOrder();
                counted += run.barrierOutOfOrder();
            }
            out.printf(Locale.ROOT, "%nAll %d run(s), barrier grace %s ms: %d failed; %d keys split, %d records missing,"
                            + " %d records out of order, %d counted by the barriers.%n", repeat,
                    settings.barrierGrace().map(grace -> Long.toString(grace.toMillis())).orElse("1000 (default)"),
                    failed, split, missing, outOfOrder, counted);
            out.flush();
            return failed == 0 ? 0 : 1;
        }
    }

    private int runInterrupted(PrintWriter out, ExpansionSettings settings, Interruption what) {
        if (target.userCluster()) {
            throw new IllegalArgumentException("--interruption restarts groups, brokers or topics: it runs on the"
                    + " cluster the lab starts, not with --bootstrap-server or a --command-config that names one");
        }
        if (what == Interruption.MIGRATION && !settings.peers().stream().allMatch(ExpansionPeer::isServerSide)) {
            throw new IllegalArgumentException("--interruption migration moves a group from kscale's classic assignor"
                    + " to a broker-side one: run it with --group-protocol consumer");
        }
        InterruptedExpansionScenario scenario = new InterruptedExpansionScenario(settings);
        List<String> lines = new ArrayList<>();
        try (KafkaCluster cluster = target.startEmbedded(spec -> brokers(spec, settings))) {
            out.printf(Locale.ROOT, "Embedded cluster of %d broker(s) (Kafka 4.4.0, loopback). Topic grows 4 -> 8, then"
                            + " %s, then grows again; %d members, %d keys at %d records/s, %d records per step.%n",
                    cluster.brokerCount(), what.label(), settings.members(), settings.keys(),
                    settings.recordsPerSecond(), settings.recordsPerStep());
            out.flush();
            for (ExpansionPeer peer : settings.peers()) {
                lines.add(scenario.run(cluster, peer, what).toString());
            }
        }
        out.println();
        lines.forEach(out::println);
        out.flush();
        return 0;
    }

    /** The parsed options as scenario settings; throws {@link IllegalArgumentException} for bad values. */
    ExpansionSettings settings() {
        GroupProtocol protocol = groupProtocol == null ? null : groupProtocol(groupProtocol);
        List<ExpansionPeer> chosen = peers == null ? ExpansionPeer.of(protocol == null ? GroupProtocol.CLASSIC : protocol)
                : peers.stream().map(ExpansionPeer::fromCliName).collect(Collectors.toList());
        for (ExpansionPeer peer : chosen) {
            if (protocol != null && peer.protocol() != protocol) {
                throw new IllegalArgumentException("--peers " + peer.cliName() + " runs on the "
                        + peer.protocol().name().toLowerCase(Locale.ROOT) + " protocol, not --group-protocol "
                        + groupProtocol + "; choose from " + ExpansionPeer.of(protocol).stream()
                        .map(ExpansionPeer::cliName).collect(Collectors.joining(", ")));
            }
            if (peer == ExpansionPeer.SERVER_KSCALE && !ServerAssignorPlugin.isAvailable()) {
                throw new IllegalArgumentException("server-kscale needs " + ServerAssignorPlugin.SERVER_ASSIGNOR_CLASS
                        + ", which this build of the assignor module does not have; run server-uniform,server-range");
            }
        }
        if (repeat < 1) {
            throw new IllegalArgumentException("--repeat must be at least 1, got " + repeat);
        }
        if (repeat > 1 && !faults) {
            throw new IllegalArgumentException("--repeat repeats the faulted scenario: use it with --faults");
        }
        ExpansionSettings settings = new ExpansionSettings(chosen, partitions, members, keys, rate, recordsPerStep);
        if (barrierGraceMs != null) {
            if (barrierGraceMs < 0) {
                throw new IllegalArgumentException("--barrier-grace must be at least 0 ms, got " + barrierGraceMs);
            }
            settings = settings.withBarrierGrace(Duration.ofMillis(barrierGraceMs));
        }
        return settings;
    }

    private static GroupProtocol groupProtocol(String name) {
        for (GroupProtocol protocol : GroupProtocol.values()) {
            if (protocol.name().equalsIgnoreCase(name.trim())) {
                return protocol;
            }
        }
        throw new IllegalArgumentException("--group-protocol must be classic or consumer, got '" + name + "'");
    }

    /**
     * The brokers the lab starts: for broker-side peers, kscale's assignor jar and
     * group.consumer.assignors ({@link ServerAssignorPlugin}), and heartbeats every 500 ms instead of
     * 5 s, since a member of the consumer protocol learns of each new assignment at a heartbeat and
     * the scenario waits for several.
     */
    static ClusterSpec.Builder brokers(ClusterSpec.Builder spec, ExpansionSettings settings) {
        if (!settings.needsServerAssignors()) {
            return spec;
        }
        return ServerAssignorPlugin.addTo(spec, Path.of("target", "kscale-plugins"))
                .brokerProperties(ServerAssignorPlugin.FAST_HEARTBEATS);
    }

    /**
     * The brokers of the faulted scenario: for a broker-side peer, kscale's assignor jar and
     * group.consumer.assignors, and the scenario's consumer-protocol settings (a 6 s session, so a
     * crashed member is noticed as on the classic protocol, and 500 ms heartbeats).
     */
    static ClusterSpec.Builder faultedBrokers(ClusterSpec.Builder spec, ExpansionPeer peer) {
        if (!peer.isServerSide()) {
            return spec;
        }
        return ServerAssignorPlugin.addTo(spec, Path.of("target", "kscale-plugins"))
                .brokerProperties(FaultedExpansionScenario.CONSUMER_PROTOCOL_BROKER_SETTINGS);
    }

    private static String describe(ExpansionSettings s) {
        return String.format(Locale.ROOT, "Topic grows through %s partitions, replication factor min(3, brokers);"
                        + " %d members, %d keys at %d records/s, %d records per step; then a member joins and one"
                        + " leaves, and %d more records are sent.", ExpansionReport.path(s.partitionSteps()),
                s.members(), s.keys(), s.recordsPerSecond(), s.recordsPerStep(), s.recordsPerStep());
    }
}
