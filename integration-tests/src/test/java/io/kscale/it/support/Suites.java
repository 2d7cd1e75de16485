package io.kscale.it.support;

import static org.junit.jupiter.api.Assumptions.abort;

import io.kscale.lab.cluster.ClusterBackend;
import io.kscale.lab.cluster.ClusterSecurity;
import io.kscale.lab.cluster.DockerReadiness;
import java.util.Locale;

/**
 * Which suite this JVM runs: {@code mvn verify} runs every {@code *IT} once per backend, on
 * processes and on Docker ({@code -Dkscale.cluster}, set by Failsafe), except the classes of
 * secured clusters, which run in a suite of their own on processes ({@code -Dkscale.suite=secured},
 * where Kafka's clients log at INFO). A class that belongs to one backend only says so with
 * {@link #assumeProcessSuite} or {@link #assumeDockerSuite}, or {@link RealKafkaCluster#processSuiteOnly},
 * and the skip carries the reason into the report.
 */
public final class Suites {

    /** Set to 1 to fail, not skip, the Docker suite where Docker is not ready (CI sets it). */
    public static final String REQUIRE_DOCKER_ENV = "KSCALE_REQUIRE_DOCKER";

    private static DockerReadiness readiness;

    private Suites() {
    }

    /** The value of {@value #SUITE_PROPERTY} in the suite of secured clusters. */
    static final String SECURED_SUITE = "secured";
    static final String SUITE_PROPERTY = "kscale.suite";

    /**
     * Failsafe runs the secured classes only in their suite, and nothing else there; this says
     * why a class is skipped where {@code -Dit.test} brings it into another suite.
     *
     * @return why the class does not run in this suite, or null if it does
     */
    static String notHere(RealKafkaCluster settings) {
        boolean securedSuite = SECURED_SUITE.equals(System.getProperty(SUITE_PROPERTY, ""));
        boolean secured = settings.security() != ClusterSecurity.PLAINTEXT;
        if (secured && !securedSuite) {
            return "secured clusters run in their own suite (failsafe-reports-secured), where the clients log at INFO";
        }
        if (!secured && securedSuite) {
            return "runs in the process and Docker suites, not in the one of secured clusters";
        }
        if (!settings.processSuiteOnly().isEmpty() && isDockerSuite()) {
            return "not on the Docker backend: " + settings.processSuiteOnly();
        }
        return null;
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
