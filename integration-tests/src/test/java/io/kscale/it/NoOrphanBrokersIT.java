package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kscale.lab.cluster.ProcessKafkaCluster;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * No broker outlives the JVM that started it. Each test runs the real {@code kscale-lab cluster}
 * command in a child JVM, then ends that JVM in a different way and checks its broker is gone.
 */
class NoOrphanBrokersIT {

    private static final Duration STARTUP = Duration.ofSeconds(120);
    private final List<Process> labs = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        for (Process lab : labs) {
            lab.descendants().forEach(ProcessHandle::destroyForcibly);
            lab.destroyForcibly();
        }
    }

    @Test
    void shouldHaltTheBrokerWhenTheLabIsKilledWithSigkill() throws Exception {
        RunningLab lab = startLab();
        lab.process.destroyForcibly();

        await().atMost(Duration.ofSeconds(30)).until(() -> !lab.broker.isAlive());
    }

    @Test
    void shouldReapAPausedBrokerWhoseLabWasKilled() throws Exception {
        RunningLab lab = startLab();
        // A stopped process cannot notice that its parent is gone: only the reaper can end it.
        run("kill", "-STOP", Long.toString(lab.broker.pid()));
        lab.process.destroyForcibly();
        lab.process.waitFor(30, TimeUnit.SECONDS);
        assertThat(lab.broker.isAlive()).as("paused broker after its lab died").isTrue();

        ProcessKafkaCluster.reapOrphanedBrokers();

        await().atMost(Duration.ofSeconds(30)).until(() -> !lab.broker.isAlive());
    }

    @Test
    void shouldStopCleanlyOnSigterm() throws Exception {
        RunningLab lab = startLab();
        // SIGTERM runs the shutdown hooks, as Ctrl-C's SIGINT does. Not Process.destroy(): it
        // would also close our end of the lab's output, and we want to read "Stopped." there.
        run("kill", "-TERM", Long.toString(lab.process.pid()));

        assertThat(lab.process.waitFor(60, TimeUnit.SECONDS)).as("lab exited").isTrue();
        assertThat(lab.output.get(10, TimeUnit.SECONDS)).contains("Stopped.");
        assertThat(lab.broker.isAlive()).as("broker after the lab stopped").isFalse();
    }

    private RunningLab startLab() throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path workDir = Path.of(System.getProperty("kscale.cluster.workdir", "target/kscale-clusters"));
        Process process = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                "io.kscale.lab.KscaleLab", "cluster", "--brokers", "1", "--backend", "process",
                "--work-dir", workDir.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        labs.add(process);
        BufferedReader stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        CompletableFuture<String> bootstrap = CompletableFuture.supplyAsync(() -> readUntilBootstrap(stdout, seen));
        String line = bootstrap.orTimeout(STARTUP.toSeconds(), TimeUnit.SECONDS).join();
        assertThat(line).startsWith("bootstrap.servers=127.0.0.1:");
        CompletableFuture<String> rest = CompletableFuture.supplyAsync(() -> readAll(stdout, seen));
        // Linux shows at most 4096 characters of a long command line: look for the owner mark,
        // which comes before the classpath.
        ProcessHandle broker = process.descendants()
                .filter(p -> p.info().commandLine().orElse("").contains("-Dkscale.owner.pid="))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no broker process under the lab"));
        return new RunningLab(process, broker, rest);
    }

    private static String readUntilBootstrap(BufferedReader stdout, StringBuilder seen) {
        try {
            String line;
            while ((line = stdout.readLine()) != null) {
                seen.append(line).append('\n');
                if (line.startsWith("bootstrap.servers=")) {
                    return line;
                }
            }
            throw new AssertionError("lab ended before printing its bootstrap address:\n" + seen);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String readAll(BufferedReader stdout, StringBuilder seen) {
        try {
            String line;
            while ((line = stdout.readLine()) != null) {
                seen.append(line).append('\n');
            }
        } catch (IOException e) {
            // the lab was killed
        }
        return seen.toString();
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).inheritIO().start();
        assertThat(process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0)
                .as(String.join(" ", command)).isTrue();
    }

    private static final class RunningLab {
        final Process process;
        final ProcessHandle broker;
        final CompletableFuture<String> output;

        RunningLab(Process process, ProcessHandle broker, CompletableFuture<String> output) {
            this.process = process;
            this.broker = broker;
            this.output = output;
        }
    }
}
