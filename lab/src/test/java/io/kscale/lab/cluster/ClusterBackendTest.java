package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ClusterBackendTest {

    @Test
    void shouldTakeDockerOnAutoWhenAnEngineAnswers() {
        ClusterBackend.Choice choice = ClusterBackend.choose(null, () -> true);

        assertThat(choice.backend()).isEqualTo(ClusterBackend.DOCKER);
        assertThat(choice.reason()).contains("Docker engine answered");
    }

    @Test
    void shouldTakeProcessesOnAutoWhenNoEngineAnswers() {
        assertThat(ClusterBackend.choose("auto", () -> false).backend()).isEqualTo(ClusterBackend.PROCESS);
        assertThat(ClusterBackend.choose("", () -> false).backend()).isEqualTo(ClusterBackend.PROCESS);
    }

    @Test
    void shouldObeyAnExplicitChoiceWithoutProbingDocker() {
        AtomicInteger probes = new AtomicInteger();

        assertThat(ClusterBackend.choose("process", () -> probes.incrementAndGet() > 0).backend())
                .isEqualTo(ClusterBackend.PROCESS);
        assertThat(ClusterBackend.choose(" DOCKER ", () -> probes.incrementAndGet() > 0).backend())
                .isEqualTo(ClusterBackend.DOCKER);
        assertThat(probes).hasValue(0);
    }

    @Test
    void shouldRejectAnUnknownBackendNamingTheProperty() {
        assertThatThrownBy(() -> ClusterBackend.choose("podman", () -> false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kscale.cluster")
                .hasMessageContaining("podman")
                .hasMessageContaining("process, docker or auto");
    }

    @Test
    void shouldAnswerQuicklyThatNoDockerEngineListensOnThisMachine() {
        // This build machine has a docker client but no engine; the probe must say so, not hang.
        long start = System.nanoTime();
        boolean answers = DockerProbe.dockerAnswers();
        long millis = (System.nanoTime() - start) / 1_000_000;

        if (!answers) {
            assertThat(millis).isLessThan(5_000);
        }
    }
}
