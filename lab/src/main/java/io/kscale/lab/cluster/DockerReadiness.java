package io.kscale.lab.cluster;

import io.kscale.lab.image.ImageRecipe;
import java.util.function.Supplier;

/**
 * Whether the docker backend can start a cluster here, now, without waiting on a pull that
 * cannot succeed; and with which Kafka image, or why not.
 *
 * <p>The Kafka image is the first of:
 * <ol>
 *   <li>the one named by {@code -D}{@value DockerKafkaCluster#IMAGE_PROPERTY}, when present or
 *       when its registry answers;</li>
 *   <li>{@value DockerKafkaCluster#DEFAULT_IMAGE}, when present;</li>
 *   <li>kscale's offline image ({@link ImageRecipe#imageTag()}), when {@code kscale-lab image}
 *       built it;</li>
 *   <li>{@value DockerKafkaCluster#DEFAULT_IMAGE} again, when its registry answers (a pull).</li>
 * </ol>
 * Testcontainers also starts its reaper container, Ryuk, unless
 * {@code TESTCONTAINERS_RYUK_DISABLED=true}; where its image can neither be found nor pulled,
 * Docker is not ready either, and the reason says to disable it (kscale's own reaper,
 * {@link ContainerReaper}, removes the containers of a dead JVM).
 */
public final class DockerReadiness {

    /** The command that builds the offline image, for messages. */
    public static final String BUILD_COMMAND = "./kscale-lab image";
    /** The Ryuk image of Testcontainers 2.0.x ({@code org.testcontainers.utility.RyukContainer}). */
    static final String RYUK_IMAGE = "testcontainers/ryuk:0.14.0";
    static final String RYUK_DISABLED_ENV = "TESTCONTAINERS_RYUK_DISABLED";

    private final boolean engineAnswers;
    private final String image;
    private final String reason;

    private DockerReadiness(boolean engineAnswers, String image, String reason) {
        this.engineAnswers = engineAnswers;
        this.image = image;
        this.reason = reason;
    }

    /** Asks the local engine, with the image property and Ryuk setting of this JVM. */
    public static DockerReadiness check() {
        return check(DockerEngine.local(), System.getProperty(DockerKafkaCluster.IMAGE_PROPERTY),
                () -> ImageRecipe.current().imageTag(), Boolean.parseBoolean(System.getenv(RYUK_DISABLED_ENV)));
    }

    /**
     * Asks the local engine about the Kafka image only, leaving Ryuk aside: what
     * {@code kscale-lab image --if-needed} decides by (the test JVM that runs later sets the Ryuk
     * variable itself).
     */
    public static DockerReadiness checkKafkaImage() {
        return check(DockerEngine.local(), System.getProperty(DockerKafkaCluster.IMAGE_PROPERTY),
                () -> ImageRecipe.current().imageTag(), true);
    }

    static DockerReadiness check(DockerEngine engine, String requestedImage, Supplier<String> offlineImage,
            boolean ryukDisabled) {
        if (!engine.answers()) {
            return new DockerReadiness(false, null, "no Docker engine answered at "
                    + (engine.isLocal() ? "the local socket (DOCKER_HOST or /var/run/docker.sock)" : "DOCKER_HOST"));
        }
        String image = kafkaImage(engine, requestedImage, offlineImage);
        if (image == null) {
            String offline = offlineImage.get();
            return notReady(requestedImage != null && !requestedImage.isBlank()
                    ? "the Kafka image " + requestedImage + " (-D" + DockerKafkaCluster.IMAGE_PROPERTY
                            + ") is not present and its registry does not answer"
                    : "no Kafka image: " + DockerKafkaCluster.DEFAULT_IMAGE + " is not present and its registry does"
                            + " not answer, and kscale's offline image " + offline + " is not built; build it with "
                            + BUILD_COMMAND);
        }
        if (!ryukDisabled && !engine.hasImage(RYUK_IMAGE) && !engine.registryHas(RYUK_IMAGE)) {
            return notReady("Testcontainers' reaper image " + RYUK_IMAGE + " is not present and its registry does not"
                    + " answer; set " + RYUK_DISABLED_ENV + "=true (kscale removes the containers of a dead JVM"
                    + " itself at the next cluster start)");
        }
        return new DockerReadiness(true, image, null);
    }

    private static String kafkaImage(DockerEngine engine, String requestedImage, Supplier<String> offlineImage) {
        if (requestedImage != null && !requestedImage.isBlank()) {
            String requested = requestedImage.trim();
            return engine.hasImage(requested) || engine.registryHas(requested) ? requested : null;
        }
        if (engine.hasImage(DockerKafkaCluster.DEFAULT_IMAGE)) {
            return DockerKafkaCluster.DEFAULT_IMAGE;
        }
        String offline = offlineImage.get();
        if (engine.hasImage(offline)) {
            return offline;
        }
        return engine.registryHas(DockerKafkaCluster.DEFAULT_IMAGE) ? DockerKafkaCluster.DEFAULT_IMAGE : null;
    }

    /** Not ready although an engine answers. */
    private static DockerReadiness notReady(String reason) {
        return new DockerReadiness(true, null, reason);
    }

    /** Whether a Docker engine answered (it may still lack an image). */
    public boolean engineAnswers() {
        return engineAnswers;
    }

    public boolean ready() {
        return image != null;
    }

    /** The Kafka image to run; only when {@link #ready()}. */
    public String image() {
        if (image == null) {
            throw new IllegalStateException("Docker is not ready: " + reason);
        }
        return image;
    }

    /** Why Docker cannot be used; only when not {@link #ready()}. */
    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return ready() ? "ready with " + image : "not ready: " + reason;
    }
}
