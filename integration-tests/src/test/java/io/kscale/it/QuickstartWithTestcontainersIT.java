package io.kscale.it;

import com.github.dockerjava.api.command.InspectContainerResponse;
import io.kscale.it.support.Suites;
import io.kscale.lab.cluster.ContainerRemoval;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Testing your own application with kscale, the Testcontainers way: one {@link KafkaContainer},
 * no kscale test harness, and the one setting per client that switches each plug-in on (the
 * checks are {@link PluginSmokeChecks}). README quotes it as the example to copy.
 *
 * <p>In your own project the container is {@code new KafkaContainer("apache/kafka:4.4.0")}; here
 * the image is whichever the Docker suite found ({@code apache/kafka:4.4.0} or kscale's offline
 * build of it, which Testcontainers drives the same way).
 *
 * <p>The container is a {@link StartGatedKafkaContainer}: a plain {@code KafkaContainer} can fail to
 * start under load, exit code 126 "Text file busy" (testcontainers-java issue 11682). README
 * quotes that class too; kscale's own harness closes the race the same way
 * ({@code io.kscale.lab.cluster.GatedStartKafkaContainer}, whose Javadoc explains why it holds).
 */
class QuickstartWithTestcontainersIT extends PluginSmokeChecks {

    private static KafkaContainer kafka;

    /** Skips each test outside the Docker suite; starts the one container for all of them. */
    @BeforeEach
    void startKafkaOnce() {
        String image = Suites.assumeDockerSuite("a user's own Testcontainers test");
        if (kafka != null) {
            return;
        }
        kafka = new StartGatedKafkaContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("apache/kafka"))
                .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
                .withLabel("io.kscale.cluster", "quickstart"); // lets CI check that nothing is left behind
        kafka.start();
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            ContainerRemoval.stop(kafka); // kafka.stop(), and a removal Testcontainers may have skipped
        }
    }

    @Override
    protected String bootstrapServers() {
        return kafka.getBootstrapServers();
    }

    /**
     * A {@code KafkaContainer} that runs its start script only once the script is complete: its
     * command waits for a marker copied in after the script's copy has returned, then reads the
     * script with {@code sh} instead of executing a file the engine may still be writing.
     */
    static class StartGatedKafkaContainer extends KafkaContainer {
        StartGatedKafkaContainer(DockerImageName image) {
            super(image);
            withCommand("sh", "-c", "while [ ! -f /tmp/start_script_complete ]; do sleep 0.1; done;"
                    + " exec sh /tmp/testcontainers_start.sh");
        }

        @Override
        protected void containerIsStarting(InspectContainerResponse info) {
            super.containerIsStarting(info); // copies /tmp/testcontainers_start.sh
            copyFileToContainer(Transferable.of(new byte[0]), "/tmp/start_script_complete");
        }
    }
}
