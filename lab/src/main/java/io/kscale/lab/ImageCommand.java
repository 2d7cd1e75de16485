package io.kscale.lab;

import io.kscale.lab.cluster.DockerKafkaCluster;
import io.kscale.lab.cluster.DockerReadiness;
import io.kscale.lab.image.ImageRecipe;
import io.kscale.lab.image.LocalImageBuilder;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kscale-lab image}: builds kscale's offline Kafka image, for machines that cannot pull
 * {@value DockerKafkaCluster#DEFAULT_IMAGE}. Prints one line per step and the image's name last.
 */
@Command(name = "image",
        mixinStandardHelpOptions = true,
        description = {
            "Builds a Kafka image that needs no registry, for the docker backend and Testcontainers.",
            "",
            "A Debian base with a headless JRE (debootstrap, then docker import; needs root), the",
            "broker jars Maven resolved, and an entrypoint keeping the apache/kafka image's contract,",
            "so Testcontainers' KafkaContainer drives it unchanged. The tag carries a hash of the",
            "inputs: a second run finds the image and builds nothing. The last line printed is the",
            "image's name; the docker backend finds it by itself.",
            "",
            "Example: kscale-lab image"
        })
final class ImageCommand implements Callable<Integer> {

    /** With this set to 1, {@code --if-needed} fails where it would only explain. */
    static final String REQUIRE_DOCKER_ENV = "KSCALE_REQUIRE_DOCKER";

    @Spec
    private CommandSpec spec;

    @Option(names = "--work-dir", defaultValue = "target/kscale-image", paramLabel = "DIR",
            description = "Where the root file system, build context and log go while building"
                    + " (default: ${DEFAULT-VALUE}); the log stays.")
    private Path workDir;

    @Option(names = "--mirror", paramLabel = "URL",
            description = "The Debian mirror for debootstrap (default: the one this machine's apt uses).")
    private String mirror;

    @Option(names = "--force", description = "Rebuild the base and the Kafka image even when present.")
    private boolean force;

    @Option(names = "--if-needed",
            description = {"Build only when the docker backend has no Kafka image (" + DockerKafkaCluster.DEFAULT_IMAGE
                    + " neither present nor pullable, no local build). Where no engine answers or the build",
                "cannot run, say why and exit 0, so the Docker test suite is skipped with that reason;",
                "with " + REQUIRE_DOCKER_ENV + "=1, exit 1 instead. Used by mvn verify."})
    private boolean ifNeeded;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (ifNeeded) {
            DockerReadiness readiness = DockerReadiness.checkKafkaImage();
            if (readiness.ready()) {
                out.println("Docker is ready with " + readiness.image() + ": nothing to build");
                out.println(readiness.image());
                out.flush();
                return 0;
            }
            if (!readiness.engineAnswers()) {
                return explain(err, readiness.reason());
            }
        }
        try {
            String image = new LocalImageBuilder(ImageRecipe.current(), workDir, out).build(mirror, force);
            out.println(image);
            out.flush();
            return 0;
        } catch (RuntimeException e) {
            if (ifNeeded) {
                return explain(err, "the offline Kafka image could not be built: " + e.getMessage());
            }
            err.println("kscale-lab image: " + e.getMessage());
            err.flush();
            return 1;
        }
    }

    private static int explain(PrintWriter err, String reason) {
        boolean required = "1".equals(System.getenv(REQUIRE_DOCKER_ENV));
        err.println("kscale-lab image: " + reason + (required ? "" : "; the Docker test suite will be skipped"));
        err.flush();
        return required ? 1 : 0;
    }
}
