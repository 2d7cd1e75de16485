package io.kscale.examples.streams;

import com.github.dockerjava.api.command.InspectContainerResponse;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A {@code KafkaContainer} that runs its start script only once the script is complete: its command
 * waits for a marker copied in after the script's copy has returned, then reads the script with
 * {@code sh} instead of executing a file the engine may still be writing.
 *
 * <p>Why: a plain {@code KafkaContainer} can fail to start under load with exit code 126, "Text
 * file busy" (testcontainers-java issue 11682). Copy this class into your own tests until
 * Testcontainers fixes it.
 */
class StartGatedKafkaContainer extends KafkaContainer {

    StartGatedKafkaContainer(DockerImageName image) {
        super(image);
        withCommand("sh", "-c", "while [ ! -f /tmp/start_script_complete ]; do sleep 0.1; done;"
                + " exec sh /tmp/testcontainers_start.sh");
    }

    /** The image of -Dkafka.image (a local or mirrored one), {@code apache/kafka:4.4.0} by default. */
    static StartGatedKafkaContainer fromSystemProperty() {
        String image = System.getProperty("kafka.image", "apache/kafka:4.4.0");
        return new StartGatedKafkaContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("apache/kafka"));
    }

    @Override
    protected void containerIsStarting(InspectContainerResponse info) {
        super.containerIsStarting(info); // copies /tmp/testcontainers_start.sh
        copyFileToContainer(Transferable.of(new byte[0]), "/tmp/start_script_complete");
    }
}
