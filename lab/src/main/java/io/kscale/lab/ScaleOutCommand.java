package io.kscale.lab;

import io.kscale.lab.scaleout.ScaleOutPeer;
import io.kscale.lab.scaleout.ScaleOutReport;
import io.kscale.lab.scaleout.ScaleOutRun;
import io.kscale.lab.scaleout.ScaleOutScenario;
import io.kscale.lab.scaleout.ScaleOutSettings;
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

/** {@code kscale-lab scale-out}: Kafka Streams instances joining a stateful application, kscale's task assignor against Kafka's. */
@Command(name = "scale-out",
        mixinStandardHelpOptions = true,
        description = {
            "Measures restore downtime and time to balance when Kafka Streams instances join.",
            "",
            "A stateful application (count and latest value per key, persistent store",
            "with a changelog) processes a preload on one instance; then, while a",
            "producer writes at a steady pace, more instances join. Records the seconds",
            "during which any active task was restoring its store (downtime), the seconds",
            "until every instance holds its share of the tasks for good, the processing",
            "rate through the transition, and checks every key's final count. Runs kscale's",
            "WarmupTaskAssignor, Kafka's default HighAvailabilityTaskAssignor and its",
            "KIP-924 StickyTaskAssignor, each with its own topic and application id, side",
            "by side unless --one-at-a-time; prints a table and writes an HTML timeline.",
            "",
            "Example: kscale-lab scale-out --preload 300000 --keys 50000 --balance-timeout 300"
        })
final class ScaleOutCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private TargetClusterOptions target;

    @Option(names = "--peers", split = ",", paramLabel = "NAME", defaultValue = "kscale,high-availability,sticky",
            description = "Which task assignors to run: kscale (WarmupTaskAssignor), high-availability (Kafka's"
                    + " default), sticky (Kafka's KIP-924 StickyTaskAssignor) (default: ${DEFAULT-VALUE}).")
    private List<String> peers;

    @Option(names = "--partitions", defaultValue = "6", paramLabel = "N",
            description = "Partitions of the input topic, so tasks of the application (default: ${DEFAULT-VALUE}).")
    private int partitions;

    @Option(names = "--instances", defaultValue = "3", paramLabel = "N",
            description = "Instances after the scale-out; one runs alone before it (default: ${DEFAULT-VALUE}).")
    private int instances;

    @Option(names = "--keys", defaultValue = "20000", paramLabel = "N",
            description = "Distinct record keys (default: ${DEFAULT-VALUE}).")
    private int keys;

    @Option(names = "--preload", defaultValue = "100000", paramLabel = "RECORDS",
            description = "Records written before the first instance starts; the changelog holds one record per"
                    + " input record (default: ${DEFAULT-VALUE}).")
    private long preload;

    @Option(names = "--value-bytes", defaultValue = "200", paramLabel = "BYTES",
            description = "Size of each record's value, which the store keeps per key (default: ${DEFAULT-VALUE}).")
    private int valueBytes;

    @Option(names = "--rate", defaultValue = "500", paramLabel = "RECORDS_PER_SEC",
            description = "Producer pace while instances join (default: ${DEFAULT-VALUE}).")
    private int rate;

    @Option(names = "--acceptable-recovery-lag", defaultValue = "1000", paramLabel = "RECORDS",
            description = "Streams' acceptable.recovery.lag (default: ${DEFAULT-VALUE}).")
    private long acceptableRecoveryLag;

    @Option(names = "--max-warmup-replicas", defaultValue = "2", paramLabel = "N",
            description = "Streams' max.warmup.replicas (default: ${DEFAULT-VALUE}).")
    private int maxWarmupReplicas;

    @Option(names = "--probing-interval", defaultValue = "60", paramLabel = "SECONDS",
            description = "Streams' probing.rebalance.interval.ms in seconds, at least 60 (default: ${DEFAULT-VALUE}).")
    private long probingIntervalSeconds;

    @Option(names = "--restore-rate", defaultValue = "0", paramLabel = "RECORDS_PER_SEC",
            description = "kscale.warmup.restore.records.per.second for WarmupTaskAssignor (the others ignore it): one"
                    + " restore rate for every instance, to predict when a warmup has caught up, overriding what the"
                    + " group leader learns; 0 = unset: the leader learns each instance's rate from the lags it sees,"
                    + " as WarmupTaskAssignor does by default (default: ${DEFAULT-VALUE}).")
    private long restoreRate;

    @Option(names = "--kill-during-warmup",
            description = "Kill the first joining instance seen warming up a copy (closed without leaving the group,"
                    + " as a crash would), then measure how the survivors converge.")
    private boolean killDuringWarmup;

    @Option(names = "--session-timeout", defaultValue = "45", paramLabel = "SECONDS",
            description = "The instances' session.timeout.ms in seconds: how soon a killed instance leaves the group"
                    + " (default: ${DEFAULT-VALUE}).")
    private long sessionTimeoutSeconds;

    @Option(names = "--balance-timeout", defaultValue = "150", paramLabel = "SECONDS",
            description = "How long after the scale-out to wait for a balanced assignment; a run that is not balanced"
                    + " by then is reported as such (default: ${DEFAULT-VALUE}).")
    private long balanceTimeoutSeconds;

    @Option(names = "--stable-for", defaultValue = "5", paramLabel = "SECONDS",
            description = "How long an assignment must stay balanced to count (default: ${DEFAULT-VALUE}).")
    private long stableForSeconds;

    @Option(names = "--one-at-a-time",
            description = "Run the assignors one after the other instead of side by side (takes about as many times"
                    + " longer as there are assignors).")
    private boolean oneAtATime;

    @Option(names = "--state-dir", defaultValue = "target/kscale-scale-out", paramLabel = "DIR",
            description = "Where the instances keep their state; deleted after each run (default: ${DEFAULT-VALUE}).")
    private Path stateDir;

    @Option(names = "--report-dir", defaultValue = "target/kscale-reports", paramLabel = "DIR",
            description = "Where the HTML report goes (default: ${DEFAULT-VALUE}).")
    private Path reportDir;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        ScaleOutSettings settings = settings();
        ScaleOutScenario scenario = new ScaleOutScenario(settings);
        TargetClusterOptions.Outcome<List<ScaleOutRun>> outcome = target.run(out, describe(settings), scenario::runOn);
        List<ScaleOutRun> runs = outcome.result;
        return TargetClusterOptions.printResults(out, ScaleOutReport.table(runs),
                ScaleOutReport.writeHtml(runs, outcome.setup, reportDir));
    }

    /** The parsed options as scenario settings; throws {@link IllegalArgumentException} for bad values. */
    ScaleOutSettings settings() {
        return ScaleOutSettings.builder()
                .peers(peers.stream().map(ScaleOutPeer::fromCliName).collect(Collectors.toList()))
                .partitions(partitions)
                .instances(instances)
                .keys(keys)
                .preloadRecords(preload)
                .valueBytes(valueBytes)
                .recordsPerSecond(rate)
                .acceptableRecoveryLag(acceptableRecoveryLag)
                .maxWarmupReplicas(maxWarmupReplicas)
                .probingInterval(Duration.ofSeconds(probingIntervalSeconds))
                .balanceTimeout(Duration.ofSeconds(balanceTimeoutSeconds))
                .stableFor(Duration.ofSeconds(stableForSeconds))
                .parallel(!oneAtATime)
                .workDir(stateDir)
                .restoreRecordsPerSecond(restoreRate)
                .killWarmingInstance(killDuringWarmup)
                .sessionTimeout(Duration.ofSeconds(sessionTimeoutSeconds))
                .build();
    }

    private static String describe(ScaleOutSettings s) {
        return String.format(Locale.ROOT, "%d partitions, %d keys, %d preloaded records of %d bytes, processed by one"
                        + " instance (exactly-once, one thread); then %d records/s while %d instances join."
                        + " acceptable.recovery.lag %d, max.warmup.replicas %d, probing.rebalance.interval.ms %d,"
                        + " no standbys, group.protocol classic, session.timeout.ms %d; kscale.warmup.restore.records"
                        + ".per.second %s for kscale; %sbalance awaited for %d s and held for %d s; assignors run %s.",
                s.partitions(), s.keys(), s.preloadRecords(), s.valueBytes(), s.recordsPerSecond(),
                s.instances() - 1, s.acceptableRecoveryLag(), s.maxWarmupReplicas(), s.probingInterval().toMillis(),
                s.sessionTimeout().toMillis(),
                s.restoreRecordsPerSecond() > 0 ? String.valueOf(s.restoreRecordsPerSecond()) : "unset (learned)",
                s.killWarmingInstance() ? "the first joining instance seen warming up is killed; " : "",
                s.balanceTimeout().toSeconds(), s.stableFor().toSeconds(),
                s.parallel() ? "side by side" : "one after the other");
    }
}
