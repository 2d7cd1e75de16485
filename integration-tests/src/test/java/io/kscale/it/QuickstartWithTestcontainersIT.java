package io.kscale.it;

import io.kscale.it.support.Suites;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
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
        kafka = new KafkaContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("apache/kafka"))
                .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
                .withLabel("io.kscale.cluster", "quickstart"); // lets CI check that nothing is left behind
        kafka.start();
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.stop();
        }
    }

    @Override
    protected String bootstrapServers() {
        return kafka.getBootstrapServers();
    }
}
