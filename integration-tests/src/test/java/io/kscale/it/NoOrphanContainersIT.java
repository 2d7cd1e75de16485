package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import io.kscale.it.support.LabProcess;
import io.kscale.it.support.Suites;
import io.kscale.lab.cluster.ClusterSpec;
import io.kscale.lab.cluster.DockerKafkaCluster;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.KafkaClusters;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;

/**
 * No container outlives the JVM that started it, with Testcontainers' Ryuk disabled (as it must be
 * where its image cannot be pulled): a lab killed with {@code kill -9} runs no shutdown hook, and
 * the next cluster start removes its containers and network.
 */
class NoOrphanContainersIT {

    private String image;
    private LabProcess lab;

    @BeforeEach
    void dockerSuiteOnly() {
        image = Suites.assumeDockerSuite("it checks what a killed lab leaves in Docker");
    }

    @AfterEach
    void killLeftovers() {
        if (lab != null) {
            lab.destroy();
        }
    }

    @Test
    void shouldRemoveTheContainersOfAKilledLabAtTheNextClusterStart() throws Exception {
        lab = LabProcess.startCluster("docker", List.of("-D" + DockerKafkaCluster.IMAGE_PROPERTY + "=" + image));
        long labPid = lab.process().pid();
        List<String> left = containersOf(labPid);
        assertThat(left).as("containers of the running lab").hasSize(1);

        lab.process().destroyForcibly();
        assertThat(lab.process().waitFor(30, TimeUnit.SECONDS)).as("lab ended").isTrue();
        assertThat(containersOf(labPid)).as("containers after kill -9: no hook ran, Ryuk is off").isEqualTo(left);

        ClusterSpec spec = ClusterSpec.builder().brokers(1)
                .workDir(Path.of(System.getProperty("kscale.cluster.workdir", "target/kscale-clusters"))).build();
        try (KafkaCluster next = KafkaClusters.start(spec, "docker")) {
            assertThat(containersOf(labPid)).as("containers of the killed lab after the next start").isEmpty();
            assertThat(docker().listNetworksCmd().withFilter("label", List.of("io.kscale.owner.pid=" + labPid)).exec())
                    .as("networks of the killed lab").isEmpty();
            assertThat(next.brokerCount()).isEqualTo(1);
        }
    }

    private static List<String> containersOf(long ownerPid) {
        return docker().listContainersCmd().withShowAll(true)
                .withLabelFilter(List.of("io.kscale.owner.pid=" + ownerPid)).exec().stream()
                .map(Container::getId).sorted().collect(Collectors.toList());
    }

    private static DockerClient docker() {
        return DockerClientFactory.instance().client();
    }
}
