package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kscale.it.QuickstartWithTestcontainersIT.StartGatedKafkaContainer;
import io.kscale.it.support.Suites;
import io.kscale.lab.cluster.ContainerRemoval;
import io.kscale.lab.cluster.ServerAssignorPlugin;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * The broker-side assignor, the Testcontainers way, as docs/testing.md quotes it: the official
 * image's contract and nothing of kscale's harness. The kscale assignor jar is copied into
 * {@code /opt/kafka/libs} (on the broker's classpath), {@code KAFKA_GROUP_CONSUMER_ASSIGNORS}
 * becomes {@code group.consumer.assignors}, and consumers pick the assignor with
 * {@code group.protocol=consumer} and {@code group.remote.assignor=kscale-key-preserving}.
 *
 * <p>In your own project the image is {@code apache/kafka:4.4.0} and the jar is
 * {@code kscale-assignor-<version>.jar} from your build's dependencies; here the image is
 * whichever the Docker suite found and the jar is this build's ({@link ServerAssignorPlugin#jar}).
 * The Docker suite's check of the broker-side assignor in containers ({@code ServerSideExpansionIT}
 * runs its expansions on broker processes only).
 */
class ServerAssignorWithTestcontainersIT {

    private static KafkaContainer kafka;

    /** Skips each test outside the Docker suite; starts the one container for all of them. */
    @BeforeEach
    void startKafkaOnce() {
        String image = Suites.assumeDockerSuite("a user's own Testcontainers test of the broker-side assignor");
        if (kafka != null) {
            return;
        }
        Path assignorJar = ServerAssignorPlugin.jar(Path.of("target", "kscale-plugins"));
        String assignors = ServerAssignorPlugin.assignorsSetting();

        kafka = new StartGatedKafkaContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("apache/kafka"))
                .withCopyFileToContainer(MountableFile.forHostPath(assignorJar), "/opt/kafka/libs/kscale-assignor.jar")
                .withEnv("KAFKA_GROUP_CONSUMER_ASSIGNORS", assignors)
                .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
                .withLabel("io.kscale.cluster", "quickstart"); // lets CI check that nothing is left behind
        kafka.start();
        // The assignor holds every topic until its task count store has read its topic: a group
        // formed sooner gets its partitions only at its next membership change.
        await().atMost(Duration.ofSeconds(60)).until(() -> kafka.getLogs().contains(ServerAssignorPlugin.STORE_LOADED_LINE));
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            ContainerRemoval.stop(kafka); // kafka.stop(), and a removal Testcontainers may have skipped
        }
    }

    @Test
    void brokerLoadsTheJarAndListsTheAssignors() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.getBootstrapServers()))) {
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1"); // KafkaContainer's node id
            Config config = admin.describeConfigs(List.of(broker)).all().get(30, TimeUnit.SECONDS).get(broker);
            assertThat(config.get(ServerAssignorPlugin.ASSIGNORS_CONFIG).value())
                    .isEqualTo(ServerAssignorPlugin.assignorsSetting());
        }
        assertThat(kafka.execInContainer("ls", "/opt/kafka/libs").getStdout()).contains("kscale-assignor.jar");
    }

    @Test
    void consumerGroupOnTheConsumerProtocolKeepsEveryKeyOnItsConsumerWhenPartitionsDouble() throws Exception {
        assumeTrue(ServerAssignorPlugin.isAvailable(), () -> ServerAssignorPlugin.SERVER_ASSIGNOR_CLASS
                + " is not in this build's assignor module");

        PluginSmokeChecks.assertKeysStayOnTheirConsumerWhenPartitionsDouble(kafka.getBootstrapServers(), "orders",
                Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer",
                        ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, ServerAssignorPlugin.SERVER_ASSIGNOR_NAME));
    }
}
