package io.kscale.lab.cluster;

import java.util.Locale;
import java.util.function.BooleanSupplier;

/**
 * Which kind of brokers to start. Chosen by the system property {@value #PROPERTY}
 * ({@code process}, {@code docker} or {@code auto}, the default); {@code auto} takes Docker when
 * a Docker engine answers and processes otherwise.
 */
public enum ClusterBackend {
    /** Brokers as child JVM processes: works anywhere Java does. */
    PROCESS,
    /** Brokers in containers through Testcontainers: needs a Docker engine. */
    DOCKER;

    public static final String PROPERTY = "kscale.cluster";

    /** A backend and the reason it was chosen, for the log. */
    public static final class Choice {
        private final ClusterBackend backend;
        private final String reason;

        Choice(ClusterBackend backend, String reason) {
            this.backend = backend;
            this.reason = reason;
        }

        public ClusterBackend backend() {
            return backend;
        }

        public String reason() {
            return reason;
        }

        @Override
        public String toString() {
            return backend.name().toLowerCase(Locale.ROOT) + " (" + reason + ")";
        }
    }

    /**
     * Chooses a backend.
     *
     * @param requested    the value of {@value #PROPERTY}, or null when unset
     * @param dockerAnswers asked only for {@code auto}: whether a Docker engine answers
     * @throws IllegalArgumentException for a value other than process, docker or auto
     */
    public static Choice choose(String requested, BooleanSupplier dockerAnswers) {
        String value = requested == null ? "auto" : requested.trim().toLowerCase(Locale.ROOT);
        switch (value) {
            case "process":
                return new Choice(PROCESS, "-D" + PROPERTY + "=process");
            case "docker":
                return new Choice(DOCKER, "-D" + PROPERTY + "=docker");
            case "auto":
            case "":
                return dockerAnswers.getAsBoolean()
                        ? new Choice(DOCKER, "a Docker engine answered")
                        : new Choice(PROCESS, "no Docker engine answered");
            default:
                throw new IllegalArgumentException(PROPERTY + " must be process, docker or auto, got '"
                        + requested + "'");
        }
    }
}
