package io.kscale.lab.cluster;

/**
 * The docker backend was asked for ({@code -Dkscale.cluster=docker}) but cannot start a cluster
 * here: no engine answers, or no Kafka image is present or can be pulled. Thrown at once, before
 * anything is pulled or started; the message says why and how to fix it.
 */
public final class DockerUnavailableException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    DockerUnavailableException(String reason) {
        super("The docker backend cannot start a cluster: " + reason);
    }
}
