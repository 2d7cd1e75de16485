package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kscale.it.support.LabProcess;
import io.kscale.it.support.Suites;
import io.kscale.lab.cluster.ProcessKafkaCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * No broker outlives the JVM that started it. Each test runs the real {@code kscale-lab cluster}
 * command in a child JVM, then ends that JVM in a different way and checks its broker is gone.
 */
class NoOrphanBrokersIT {

    private final List<LabProcess> labs = new ArrayList<>();

    @BeforeEach
    void processSuiteOnly() {
        Suites.assumeProcessSuite("it checks broker processes; NoOrphanContainersIT is its Docker counterpart");
    }

    @AfterEach
    void killLeftovers() {
        labs.forEach(LabProcess::destroy);
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
        LabProcess lab = LabProcess.startCluster("process", List.of());
        labs.add(lab);
        // Linux shows at most 4096 characters of a long command line: look for the owner mark,
        // which comes before the classpath.
        ProcessHandle broker = lab.process().descendants()
                .filter(p -> p.info().commandLine().orElse("").contains("-Dkscale.owner.pid="))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no broker process under the lab"));
        return new RunningLab(lab.process(), broker, lab.output());
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
