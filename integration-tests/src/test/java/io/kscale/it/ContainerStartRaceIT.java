package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.it.support.Suites;
import io.kscale.lab.cluster.ContainerRemoval;
import io.kscale.lab.cluster.GatedStartKafkaContainer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.kafka.KafkaContainer;
import org.rnorth.ducttape.unreliables.Unreliables;
import org.testcontainers.utility.DockerImageName;

/**
 * Testcontainers' {@code KafkaContainer} start race (testcontainers-java issue 11682), made
 * deterministic: the engine's copy of the start script is stretched so that, for two seconds, only
 * the first half of the script is in the container, as the engine's unpacking exposes it for a
 * moment under load. Testcontainers' own command runs that half script (the control: the race is
 * real); {@link GatedStartKafkaContainer}, which kscale's Docker backend uses, waits for the
 * complete script and starts the broker.
 */
class ContainerStartRaceIT {

    /** Far beyond the start loop's 0.1 s poll, so the control cannot miss the half script. */
    private static final Duration HALF_WRITTEN_FOR = Duration.ofSeconds(2);

    private DockerImageName image;

    @BeforeEach
    void dockerSuiteOnly() {
        image = DockerImageName.parse(Suites.assumeDockerSuite("it starts Kafka containers"))
                .asCompatibleSubstituteFor("apache/kafka");
    }

    @Test
    void shouldRunAHalfWrittenStartScriptWithTestcontainersOwnCommand() {
        KafkaContainer plain = new SlowScriptCopyKafkaContainer(image);
        try {
            // Ready means exited: a broker that waited for the whole script would run on and time out.
            plain.withLabel("io.kscale.cluster", "start-race").waitingFor(new ExitedWaitStrategy())
                    .withStartupTimeout(Duration.ofMinutes(2));
            plain.start();
            assertThat(plain.isRunning()).as("container running after half its start script").isFalse();
            assertThat(plain.getLogs()).as("broker log").doesNotContain("Transitioning from RECOVERY to RUNNING");
        } finally {
            ContainerRemoval.stop(plain);
        }
    }

    @Test
    void shouldStartTheBrokerOnlyFromTheCompleteStartScript() {
        KafkaContainer gated = new SlowScriptCopyGatedContainer(image);
        try {
            gated.withLabel("io.kscale.cluster", "start-race").withStartupTimeout(Duration.ofMinutes(3));
            gated.start();
            assertThat(gated.getLogs()).contains("Transitioning from RECOVERY to RUNNING");
        } finally {
            ContainerRemoval.stop(gated);
        }
    }

    /** Copies the start script's first half, waits, then the whole script; other files at once. */
    private static void copyStretched(Transferable file, String path, BiConsumer<Transferable, String> copy) {
        if (GatedStartKafkaContainer.START_SCRIPT.equals(path)) {
            byte[] script = file.getBytes();
            copy.accept(Transferable.of(Arrays.copyOf(script, script.length / 2), file.getFileMode()), path);
            try {
                Thread.sleep(HALF_WRITTEN_FOR.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while stretching the script's copy", e);
            }
        }
        copy.accept(file, path);
    }

    /** Waits until the container has exited by itself. */
    private static final class ExitedWaitStrategy extends AbstractWaitStrategy {
        @Override
        protected void waitUntilReady() {
            Unreliables.retryUntilTrue((int) startupTimeout.getSeconds(), TimeUnit.SECONDS,
                    () -> !waitStrategyTarget.isRunning());
        }
    }

    private static final class SlowScriptCopyKafkaContainer extends KafkaContainer {
        SlowScriptCopyKafkaContainer(DockerImageName image) {
            super(image);
        }

        @Override
        public void copyFileToContainer(Transferable file, String path) {
            copyStretched(file, path, super::copyFileToContainer);
        }
    }

    private static final class SlowScriptCopyGatedContainer extends GatedStartKafkaContainer {
        SlowScriptCopyGatedContainer(DockerImageName image) {
            super(image);
        }

        @Override
        public void copyFileToContainer(Transferable file, String path) {
            copyStretched(file, path, super::copyFileToContainer);
        }
    }
}
