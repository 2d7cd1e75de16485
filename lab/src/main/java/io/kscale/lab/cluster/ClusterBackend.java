package io.kscale.lab.cluster;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * Which kind of brokers to start. Chosen by the system property {@value #PROPERTY}
 * ({@code process}, {@code docker} or {@code auto}, the default); {@code auto} takes Docker when
 * it is ready ({@link DockerReadiness}) and processes otherwise.
 */
public enum ClusterBackend {
    /** Brokers as child JVM processes: works anywhere Java does. */
    PROCESS,
    /** Brokers in containers through Testcontainers: needs a Docker engine. */
    DOCKER;

    public static final String PROPERTY = "kscale.cluster";

    /** A backend, the reason it was chosen, and for Docker the image to run. */
    public static final class Choice {
        private final ClusterBackend backend;
        private final String reason;
        private final DockerReadiness docker;

        Choice(ClusterBackend backend, String reason, DockerReadiness docker) {
            this.backend = backend;
            this.reason = reason;
            this.docker = docker;
        }

        public ClusterBackend backend() {
            return backend;
        }

        public String reason() {
            return reason;
        }

        /** What Docker was found to offer; null when it was not asked (an explicit process). */
        public DockerReadiness docker() {
            return docker;
        }

        @Override
        public String toString() {
            return backend.name().toLowerCase(Locale.ROOT) + " (" + reason + ")";
        }
    }

    /**
     * Chooses a backend. {@code auto} takes Docker only when it is ready (an engine answers, and a
     * Kafka image is present or can be pulled), so a run never waits on a pull that cannot
     * succeed; otherwise processes, and the reason says why (with the command that builds the
     * offline image when that is what is missing). An explicit {@code docker} is taken as asked:
     * {@link KafkaClusters} then fails at once when Docker is not ready.
     *
     * @param requested the value of {@value #PROPERTY}, or null when unset
     * @param docker    asked for {@code auto} and {@code docker}: what Docker offers here
     * @throws IllegalArgumentException for a value other than process, docker or auto
     */
    public static Choice choose(String requested, Supplier<DockerReadiness> docker) {
        String value = requested == null ? "auto" : requested.trim().toLowerCase(Locale.ROOT);
        switch (value) {
            case "process":
                return new Choice(PROCESS, "-D" + PROPERTY + "=process", null);
            case "docker":
                return new Choice(DOCKER, "-D" + PROPERTY + "=docker", docker.get());
            case "auto":
            case "":
                DockerReadiness readiness = docker.get();
                return readiness.ready()
                        ? new Choice(DOCKER, "Docker is ready with " + readiness.image(), readiness)
                        : new Choice(PROCESS, "Docker is not ready: " + readiness.reason(), readiness);
            default:
                throw new IllegalArgumentException(PROPERTY + " must be process, docker or auto, got '"
                        + requested + "'");
        }
    }
}
