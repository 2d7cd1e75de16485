package io.kscale.lab.cluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

/**
 * Stops a Testcontainers container and makes sure the engine no longer has it. Testcontainers'
 * {@code stop()} logs a failed inspection, kill or removal at trace level only and returns as if
 * the container were gone (with Ryuk disabled nothing removes it later), so under load a container
 * could outlive the test or cluster that made it. This asks the engine afterwards and removes what
 * is still there, a few times, and logs a warning when it cannot.
 */
public final class ContainerRemoval {

    /** Removals tried before giving up on a container. */
    static final int ATTEMPTS = 5;
    private static final Duration PAUSE = Duration.ofMillis(500);
    private static final Logger log = LoggerFactory.getLogger(ContainerRemoval.class);

    /** The two engine calls removal needs: Docker's in {@link #stop}, a fake in tests. */
    interface Engine {
        /** Whether the engine still has the container. */
        boolean has(String containerId);

        /** Kills and removes the container with its volumes; throws when the engine refuses. */
        void forceRemove(String containerId);
    }

    private ContainerRemoval() {
    }

    /**
     * Stops {@code container} (a container never started is left as it is) and removes it if
     * Testcontainers did not.
     *
     * @return whether the engine no longer has the container
     */
    public static boolean stop(GenericContainer<?> container) {
        String containerId = container.getContainerId();
        container.stop();
        return containerId == null || removeLeftover(new DockerEngineCalls(DockerClientFactory.instance().client()),
                containerId, PAUSE);
    }

    /**
     * Removes the container if the engine still has it, up to {@link #ATTEMPTS} times; true once
     * the engine no longer has it. A removal counts only when the engine says so afterwards.
     */
    static boolean removeLeftover(Engine engine, String containerId, Duration pause) {
        RuntimeException lastFailure = null;
        boolean warned = false;
        for (int round = 0; round <= ATTEMPTS; round++) {
            try {
                if (!engine.has(containerId)) {
                    return true;
                }
                if (round == ATTEMPTS) {
                    break; // the last round only asks
                }
                if (!warned) {
                    warned = true;
                    log.warn("Container {} is still there after Testcontainers stopped it; removing it", shortId(containerId));
                }
                engine.forceRemove(containerId);
                continue;
            } catch (RuntimeException e) {
                lastFailure = e;
            }
            if (round < ATTEMPTS) {
                pause(pause);
            }
        }
        log.warn("Could not remove container {} in {} attempts; it is left behind: {}", shortId(containerId), ATTEMPTS,
                lastFailure == null ? "the engine still has it after each removal" : lastFailure.toString());
        return false;
    }

    private static String shortId(String containerId) {
        return containerId.length() > 12 ? containerId.substring(0, 12) : containerId;
    }

    private static void pause(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class DockerEngineCalls implements Engine {
        private final DockerClient docker;

        DockerEngineCalls(DockerClient docker) {
            this.docker = docker;
        }

        @Override
        public boolean has(String containerId) {
            try {
                docker.inspectContainerCmd(containerId).exec();
                return true;
            } catch (NotFoundException e) {
                return false;
            }
        }

        @Override
        public void forceRemove(String containerId) {
            try {
                docker.removeContainerCmd(containerId).withForce(true).withRemoveVolumes(true).exec();
            } catch (NotFoundException e) {
                // gone meanwhile: what was asked for
            }
        }
    }
}
