package io.kscale.lab;

import io.kscale.lab.placement.HighAvailabilitySimAssignor;
import io.kscale.lab.placement.KscaleSimAssignor;
import io.kscale.lab.placement.PhaseResult;
import io.kscale.lab.placement.PlacementReport;
import io.kscale.lab.placement.PlacementScenario;
import io.kscale.lab.placement.PlacementScenarios;
import io.kscale.lab.placement.SimAssignor;
import io.kscale.lab.placement.SimSettings;
import io.kscale.lab.placement.Simulation;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kscale-lab placement}: a seeded simulation of rebalance rounds, kscale's placement engine
 * against Kafka Streams' HighAvailabilityTaskAssignor. Needs no cluster.
 *
 * <p>Example: {@code ./kscale-lab placement --seed 7 --scenarios scale-out-3-6,random --max-warmup-replicas 4}
 */
@Command(name = "placement",
        mixinStandardHelpOptions = true,
        description = {
            "Simulates rebalances of a stateful Kafka Streams application (no cluster needed).",
            "",
            "Each scenario (seeded) has tasks with different state sizes, instances with",
            "their own thread count and restore rate, and membership changes: instances",
            "join, crash (losing their state) or leave. Each assignor plays the scenario in",
            "its own simulated world: at every rebalance it sees each instance's lag per",
            "task, copies restore at the instance's rate over simulated time, and the next",
            "rebalance comes when the assignor asks (kscale: its follow-up delay, from the",
            "restore rates its leader learns from the lags it sees; Kafka's",
            "HighAvailabilityTaskAssignor: the probing interval). Prints per phase: the",
            "rebalance from which the assignment is balanced for good and when, rebalances,",
            "active tasks moved, warmups, records restored, and task-seconds during which",
            "an active task was restoring (downtime), with the part that was avoidable",
            "(a caught-up instance existed). Also writes a CSV.",
            "",
            "Example: kscale-lab placement --seed 7 --scenarios scale-out-3-6,random"
        })
final class PlacementCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--seed", defaultValue = "42", paramLabel = "N",
            description = "Seed of the scenarios' random draws (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--seeds", defaultValue = "1", paramLabel = "N",
            description = "Runs the scenarios for N seeds, --seed and the next ones; with more than one, prints the"
                    + " totals per kind of phase instead of one row per phase (default: ${DEFAULT-VALUE}).")
    private int seeds;

    @Option(names = "--scenarios", split = ",", paramLabel = "NAME",
            defaultValue = "scale-out-1-3,scale-out-3-6,scale-out-3-6-standby,random,random-standby",
            description = "Scenarios to run, in order (default: ${DEFAULT-VALUE}).")
    private List<String> scenarios;

    @Option(names = "--assignors", split = ",", paramLabel = "NAME",
            defaultValue = "kscale,kscale-rate-given,high-availability",
            description = "Assignors to compare: kscale (PlacementEngine as WarmupTaskAssignor ships it: no restore"
                    + " rate configured, the leader learns each instance's from the lags it sees), kscale-rate-given"
                    + " (told the slowest instance's restore rate: the bound the learner chases), kscale-probing"
                    + " (neither: follows up after the probing interval), high-availability (Kafka Streams' default)"
                    + " (default: ${DEFAULT-VALUE}).")
    private List<String> assignors;

    @Option(names = "--acceptable-recovery-lag", defaultValue = "10000", paramLabel = "RECORDS",
            description = "Streams' acceptable.recovery.lag, for every assignor (default: ${DEFAULT-VALUE}).")
    private long acceptableRecoveryLag;

    @Option(names = "--max-warmup-replicas", defaultValue = "2", paramLabel = "N",
            description = "Streams' max.warmup.replicas, the warmup budget of every assignor (default: ${DEFAULT-VALUE}).")
    private int maxWarmupReplicas;

    @Option(names = "--probing-interval", defaultValue = "600", paramLabel = "SECONDS",
            description = "Streams' probing.rebalance.interval.ms in seconds; kscale's longest follow-up delay"
                    + " (default: ${DEFAULT-VALUE}).")
    private long probingIntervalSeconds;

    @Option(names = "--report-dir", defaultValue = "target/kscale-reports", paramLabel = "DIR",
            description = "Where the CSV report goes (default: ${DEFAULT-VALUE}).")
    private Path reportDir;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        SimSettings settings = settings();
        if (seeds < 1) {
            throw new IllegalArgumentException("--seeds is " + seeds + "; it must be at least 1");
        }
        List<SimAssignor> peers = assignors();
        out.println(String.format(Locale.ROOT, "Seed %s; acceptable recovery lag %d records, %d warmups, probing"
                        + " interval %d s; standbys per scenario. Simulated, no cluster.",
                seeds == 1 ? Long.toString(seed) : seed + " to " + (seed + seeds - 1), settings.acceptableRecoveryLag(),
                settings.maxWarmups(), settings.probingInterval().toSeconds()));
        List<PhaseResult> results = new ArrayList<>();
        for (long s = seed; s < seed + seeds; s++) {
            for (PlacementScenario scenario : PlacementScenarios.of(scenarios, s, settings)) {
                results.addAll(play(scenario, peers));
            }
        }
        out.println();
        out.print(seeds == 1 ? PlacementReport.table(results) : PlacementReport.summary(results));
        out.println();
        out.print(PlacementReport.legend());
        String name = "placement-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + ".csv";
        Path csv = PlacementReport.writeCsv(results, reportDir, name);
        out.println();
        out.println("CSV: " + csv.toAbsolutePath());
        out.flush();
        return 0;
    }

    /** @return the scenario's phases for every assignor, each phase's rows next to each other */
    private static List<PhaseResult> play(PlacementScenario scenario, List<SimAssignor> peers) {
        List<List<PhaseResult>> byAssignor = new ArrayList<>();
        for (SimAssignor assignor : peers) {
            byAssignor.add(Simulation.run(scenario, assignor));
        }
        List<PhaseResult> results = new ArrayList<>();
        for (int phase = 0; phase < scenario.changes().size(); phase++) {
            for (List<PhaseResult> phases : byAssignor) {
                results.add(phases.get(phase));
            }
        }
        return results;
    }

    /** The parsed settings; throws {@link IllegalArgumentException} for bad values. */
    SimSettings settings() {
        if (probingIntervalSeconds < 1) {
            throw new IllegalArgumentException("--probing-interval is " + probingIntervalSeconds + "; it must be at least 1");
        }
        return new SimSettings(acceptableRecoveryLag, maxWarmupReplicas, 0, Duration.ofSeconds(probingIntervalSeconds));
    }

    /** The parsed assignors; throws {@link IllegalArgumentException} for an unknown name. */
    List<SimAssignor> assignors() {
        List<SimAssignor> peers = new ArrayList<>();
        for (String name : assignors) {
            peers.add(switch (name) {
                case "kscale" -> new KscaleSimAssignor(KscaleSimAssignor.Rate.LEARNED);
                case "kscale-rate-given" -> new KscaleSimAssignor(KscaleSimAssignor.Rate.GIVEN);
                case "kscale-probing" -> new KscaleSimAssignor(KscaleSimAssignor.Rate.UNKNOWN);
                case "high-availability" -> new HighAvailabilitySimAssignor();
                default -> throw new IllegalArgumentException("unknown assignor '" + name
                        + "'; known: kscale, kscale-rate-given, kscale-probing, high-availability");
            });
        }
        return peers;
    }
}
