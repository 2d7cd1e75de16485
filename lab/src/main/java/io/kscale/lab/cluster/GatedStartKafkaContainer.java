package io.kscale.lab.cluster;

import com.github.dockerjava.api.command.InspectContainerResponse;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A {@link KafkaContainer} that runs its start script only once the script is completely written.
 *
 * <p><b>The race it closes</b> (testcontainers-java issue 11682). {@code KafkaContainer} starts
 * its container with {@code while [ ! -f S ]; do sleep 0.1; done; S} and then, from
 * {@code containerIsStarting}, copies the script {@code S} into the running container. The engine
 * unpacks that copy in steps: it creates {@code S}, writes it, sets its mode and closes it. The
 * loop polls for the file's <em>existence</em>, so it can see {@code S} between the create and the
 * close and execute it while the engine still holds it open for writing: the kernel refuses with
 * {@code ETXTBSY} ("Text file busy") and the container exits with 126. A half-written script or one
 * not yet executable fail the same way. Under load the window widens, which is why it struck in a
 * full CI run and never in 85 starts on an idle engine.
 *
 * <p><b>Why this closes it rather than making it rarer.</b> The command here waits for a second
 * file, {@value #SCRIPT_COMPLETE_MARKER}, which is copied only after the call that copied the
 * script has returned. The engine answers that call only when it has unpacked the archive, so by
 * the time the marker exists, the script is complete and closed: no write to it is in flight or
 * can follow. The loop tests the marker's existence only, never its content, so the marker's own
 * unpacking cannot race. And the script is run as {@code sh S}, read rather than executed, so its
 * mode bits and the kernel's text-busy check are out of the picture altogether.
 *
 * <p>A restart ({@code docker start} of a stopped container) finds both files in place and starts
 * at once, as before.
 */
public class GatedStartKafkaContainer extends KafkaContainer {

    /** The start script that {@link KafkaContainer} copies in and its own command would execute. */
    public static final String START_SCRIPT = "/tmp/testcontainers_start.sh";

    /** Copied in after {@link #START_SCRIPT}'s copy completed; its existence is the go signal. */
    public static final String SCRIPT_COMPLETE_MARKER = "/tmp/kscale_start_script_complete";

    /** The container's command: wait for the marker, then read the complete script with sh. */
    static final String[] COMMAND = {
        "sh", "-c",
        "while [ ! -f " + SCRIPT_COMPLETE_MARKER + " ]; do sleep 0.1; done; exec sh " + START_SCRIPT
    };

    public GatedStartKafkaContainer(DockerImageName image) {
        super(image);
        withCommand(COMMAND);
    }

    @Override
    protected void containerIsStarting(InspectContainerResponse containerInfo) {
        super.containerIsStarting(containerInfo); // copies START_SCRIPT, returns once it is unpacked
        copyFileToContainer(Transferable.of(new byte[0]), SCRIPT_COMPLETE_MARKER);
    }
}
