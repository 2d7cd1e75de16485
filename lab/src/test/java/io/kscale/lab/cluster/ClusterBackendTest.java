package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ClusterBackendTest {

    private static final FakeEngine READY = new FakeEngine().answering().withImage(DockerKafkaCluster.DEFAULT_IMAGE)
            .withImage(DockerReadiness.RYUK_IMAGE);

    @Test
    void shouldTakeDockerOnAutoWhenDockerIsReady() {
        ClusterBackend.Choice choice = ClusterBackend.choose(null, () -> READY.readiness(null));

        assertThat(choice.backend()).isEqualTo(ClusterBackend.DOCKER);
        assertThat(choice.reason()).contains("ready with " + DockerKafkaCluster.DEFAULT_IMAGE);
        assertThat(choice.docker().image()).isEqualTo(DockerKafkaCluster.DEFAULT_IMAGE);
    }

    @Test
    void shouldTakeProcessesOnAutoWhenNoEngineAnswers() {
        FakeEngine none = new FakeEngine();

        assertThat(ClusterBackend.choose("auto", () -> none.readiness(null)).backend()).isEqualTo(ClusterBackend.PROCESS);
        assertThat(ClusterBackend.choose("", () -> none.readiness(null)).backend()).isEqualTo(ClusterBackend.PROCESS);
    }

    @Test
    void shouldTakeProcessesOnAutoWhenTheEngineAnswersButHasNoImage() {
        // Seen once: auto picked Docker here, and every test class spent minutes retrying pulls.
        FakeEngine noImage = new FakeEngine().answering();

        ClusterBackend.Choice choice = ClusterBackend.choose(null, () -> noImage.readiness(null));

        assertThat(choice.backend()).isEqualTo(ClusterBackend.PROCESS);
        assertThat(choice.reason()).contains(DockerReadiness.BUILD_COMMAND);
    }

    @Test
    void shouldTakeAnExplicitDockerAsAskedAndLeaveTheFailureToTheStart() {
        FakeEngine noImage = new FakeEngine().answering();

        ClusterBackend.Choice choice = ClusterBackend.choose(" DOCKER ", () -> noImage.readiness(null));

        assertThat(choice.backend()).isEqualTo(ClusterBackend.DOCKER);
        assertThat(choice.docker().ready()).isFalse();
    }

    @Test
    void shouldNotAskDockerForAnExplicitProcessBackend() {
        AtomicInteger asked = new AtomicInteger();

        assertThat(ClusterBackend.choose("process", () -> {
            asked.incrementAndGet();
            return READY.readiness(null);
        }).backend()).isEqualTo(ClusterBackend.PROCESS);
        assertThat(asked).hasValue(0);
    }

    @Test
    void shouldRejectAnUnknownBackendNamingTheProperty() {
        assertThatThrownBy(() -> ClusterBackend.choose("podman", () -> READY.readiness(null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("kscale.cluster")
                .hasMessageContaining("podman")
                .hasMessageContaining("process, docker or auto");
    }

    @Test
    void shouldAnswerQuicklyWhetherAnEngineListensOnThisMachine() {
        long start = System.nanoTime();
        DockerEngine.local().answers();
        long millis = (System.nanoTime() - start) / 1_000_000;

        // Engine or not, the answer comes within the 2 s ping timeout (with room for a slow machine).
        assertThat(millis).isLessThan(5_000);
    }
}
