package io.kscale.lab;

import io.kscale.lab.cluster.ContainerStartTrial;
import io.kscale.lab.cluster.ContainerStartTrial.Kind;
import io.kscale.lab.cluster.ContainerStartTrial.Outcome;
import io.kscale.lab.cluster.DockerReadiness;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kscale-lab container-starts}: Testcontainers' {@code KafkaContainer} start race
 * (testcontainers-java issue 11682) measured against kscale's gated start, in one run, under load.
 */
@Command(name = "container-starts",
        mixinStandardHelpOptions = true,
        description = {
            "Starts Kafka containers several at once while every core is busy, alternating",
            "Testcontainers' KafkaContainer (plain) and kscale's gated start (gated), and counts the",
            "starts that failed, among them those with exit code 126, \"Text file busy\".",
            "Needs a Docker engine and a Kafka image (see: kscale-lab image).",
            "",
            "Example: kscale-lab container-starts --rounds 10 --parallel 3"
        })
final class ContainerStartsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--rounds", defaultValue = "10", paramLabel = "N",
            description = "Rounds; each starts --parallel containers of every kind (default: ${DEFAULT-VALUE}).")
    private int rounds;

    @Option(names = "--parallel", defaultValue = "3", paramLabel = "N",
            description = "Containers started at once (default: ${DEFAULT-VALUE}).")
    private int parallel;

    @Option(names = "--busy-threads", paramLabel = "N",
            description = "Threads spinning for the whole run to load the machine (default: one per core).")
    private Integer busyThreads;

    @Option(names = "--kinds", split = ",", defaultValue = "plain,gated", paramLabel = "KIND",
            description = "Which starts to run, alternating, comma-separated: ${COMPLETION-CANDIDATES}"
                    + " (default: ${DEFAULT-VALUE}).")
    private List<Kind> kinds;

    @Option(names = "--startup-timeout", defaultValue = "PT3M", paramLabel = "DURATION",
            description = "How long one start may take (ISO-8601, default: ${DEFAULT-VALUE}).")
    private Duration startupTimeout;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        DockerReadiness readiness = DockerReadiness.check();
        if (!readiness.ready()) {
            spec.commandLine().getErr().println("kscale-lab container-starts: " + readiness.reason());
            return 1;
        }
        int threads = busyThreads != null ? busyThreads : Runtime.getRuntime().availableProcessors();
        out.printf("%d rounds of %d containers at once per kind (%s), image %s, %d busy threads%n",
                rounds, parallel, kinds, readiness.image(), threads);
        out.flush();
        ContainerStartTrial trial = new ContainerStartTrial(readiness.image(), startupTimeout);
        List<Outcome> outcomes = new ArrayList<>();
        AtomicBoolean busy = new AtomicBoolean(true);
        List<Thread> spinners = spin(threads, busy);
        try {
            for (int round = 1; round <= rounds; round++) {
                for (Kind kind : kinds) {
                    List<Outcome> these = trial.startTogether(kind, parallel);
                    outcomes.addAll(these);
                    out.printf("round %d %s: %s%n", round, kind, describe(these));
                    out.flush();
                }
            }
        } finally {
            busy.set(false);
            spinners.forEach(ContainerStartsCommand::joinQuietly);
        }
        out.printf("%-6s %7s %7s %16s %12s%n", "kind", "starts", "failed", "text file busy", "median ms");
        for (Kind kind : kinds) {
            List<Outcome> ofKind = outcomes.stream().filter(o -> o.kind == kind).collect(Collectors.toList());
            long failed = ofKind.stream().filter(o -> o.failure != null).count();
            long busyFailures = ofKind.stream().filter(Outcome::textFileBusy).count();
            long[] millis = ofKind.stream().filter(o -> o.failure == null).mapToLong(o -> o.millis).sorted().toArray();
            out.printf("%-6s %7d %7d %16d %12s%n", kind, ofKind.size(), failed, busyFailures,
                    millis.length == 0 ? "-" : Long.toString(millis[millis.length / 2]));
        }
        out.flush();
        return 0;
    }

    private static String describe(List<Outcome> outcomes) {
        StringBuilder text = new StringBuilder();
        for (Outcome outcome : outcomes) {
            text.append(text.length() == 0 ? "" : "; ")
                    .append(outcome.failure == null ? "up in " + outcome.millis + " ms" : "FAILED " + outcome.failure);
        }
        return text.toString();
    }

    private static List<Thread> spin(int threads, AtomicBoolean busy) {
        List<Thread> spinners = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread spinner = new Thread(() -> {
                long x = 0;
                while (busy.get()) {
                    x += System.nanoTime() % 7; // work the JIT cannot remove
                }
                if (x == 42) {
                    Thread.yield();
                }
            }, "busy-" + i);
            spinner.setDaemon(true);
            spinner.start();
            spinners.add(spinner);
        }
        return spinners;
    }

    private static void joinQuietly(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
