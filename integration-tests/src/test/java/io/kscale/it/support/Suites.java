package io.kscale.it.support;

import static org.junit.jupiter.api.Assumptions.abort;

import io.kscale.lab.cluster.ClusterBackend;
import io.kscale.lab.cluster.DockerReadiness;
import java.util.Locale;

/**
 * Which suite this JVM runs: {@code mvn verify} runs every {@code *IT} once per backend, on
 * processes and on Docker ({@code -Dkscale.cluster}, set by Failsafe). A class that belongs to
 * one backend only says so with {@link #assumeProcessSuite} or {@link #assumeDockerSuite}, and
 * the skip carries the reason into the report.
 */
public final class Suites {

    /** Set to 1 to fail, not skip, the Docker suite where Docker is not ready (CI sets it). */
    public static final String REQUIRE_DOCKER_ENV = "KSCALE_REQUIRE_DOCKER";

    private static DockerReadiness readiness;

    private Suites() {
    }

    public static boolean isDockerSuite() {
        return "docker".equals(System.getProperty(ClusterBackend.PROPERTY, "").trim().toLowerCase(Locale.ROOT));
    }

    public static boolean dockerRequired() {
        return "1".equals(System.getenv(REQUIRE_DOCKER_ENV));
    }

    /** Skips the caller outside the process suite, with {@code why} as the reason. */
    public static void assumeProcessSuite(String why) {
        if (isDockerSuite()) {
            abort("not on the Docker backend: " + why);
        }
    }

    /**
     * Skips the caller outside the Docker suite, and in it where Docker is not ready (unless
     * {@value #REQUIRE_DOCKER_ENV}=1, which fails instead); returns the Kafka image to run.
     */
    public static String assumeDockerSuite(String why) {
        if (!isDockerSuite()) {
            abort("runs in the Docker suite only (failsafe-reports-docker): " + why);
        }
        DockerReadiness docker = dockerReadiness();
        if (!docker.ready()) {
            skipOrFail(docker.reason());
        }
        return docker.image();
    }

    /** What Docker offers, asked once per JVM: a suite's classes would otherwise ask before every test. */
    private static synchronized DockerReadiness dockerReadiness() {
        if (readiness == null) {
            readiness = DockerReadiness.check();
        }
        return readiness;
    }

    /** Skips the Docker suite's class with the reason, or fails with it when Docker is required. */
    static void skipOrFail(String reason) {
        String message = "Docker suite skipped: " + reason;
        if (dockerRequired()) {
            throw new IllegalStateException(message + " (" + REQUIRE_DOCKER_ENV + "=1 makes this a failure)");
        }
        abort(message);
    }
}
