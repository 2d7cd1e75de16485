package io.kscale.lab.cluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.Container;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the containers and networks of {@link DockerKafkaCluster}s whose JVM is gone: kscale's
 * own stand-in for Testcontainers' Ryuk, which needs an image of its own (none can be pulled on an
 * air-gapped machine) and is disabled there.
 *
 * <p>Every container and network of a cluster carries three labels: {@value #CLUSTER_LABEL}
 * (the cluster's name), {@value #OWNER_PID_LABEL} and {@value #OWNER_START_LABEL} (the process id
 * and start instant of the JVM that made it). Before starting a cluster, the lab removes every
 * labelled container and network whose owner no longer runs: no process with that id, or one
 * that started at another instant (the id was reused). A local engine only: on a remote engine,
 * the owner's process id means nothing here, so nothing is removed.
 */
final class ContainerReaper {

    static final String CLUSTER_LABEL = "io.kscale.cluster";
    static final String OWNER_PID_LABEL = "io.kscale.owner.pid";
    static final String OWNER_START_LABEL = "io.kscale.owner.start";
    private static final Logger log = LoggerFactory.getLogger(ContainerReaper.class);

    private ContainerReaper() {
    }

    /** The labels that mark a container or network as this JVM's, in cluster {@code clusterName}. */
    static Map<String, String> labels(String clusterName) {
        ProcessHandle self = ProcessHandle.current();
        Map<String, String> labels = new HashMap<>();
        labels.put(CLUSTER_LABEL, clusterName);
        labels.put(OWNER_PID_LABEL, Long.toString(self.pid()));
        labels.put(OWNER_START_LABEL, startOf(self).map(Instant::toString).orElse(""));
        return labels;
    }

    /** Removes what dead JVMs left; returns the number of containers removed. */
    static int reapOrphans(DockerClient docker, boolean localEngine) {
        if (!localEngine) {
            return 0;
        }
        int removed = 0;
        List<Container> containers = docker.listContainersCmd().withShowAll(true)
                .withLabelFilter(List.of(CLUSTER_LABEL)).exec();
        for (Container container : containers) {
            if (ownerIsGone(container.getLabels())) {
                log.warn("Removing container {} of Kafka cluster {}, left behind by process {} that is gone",
                        container.getId().substring(0, 12), container.getLabels().get(CLUSTER_LABEL),
                        container.getLabels().get(OWNER_PID_LABEL));
                try {
                    docker.removeContainerCmd(container.getId()).withForce(true).withRemoveVolumes(true).exec();
                    removed++;
                } catch (RuntimeException e) {
                    log.warn("Could not remove container {}: {}", container.getId(), e.toString());
                }
            }
        }
        docker.listNetworksCmd().withFilter("label", List.of(CLUSTER_LABEL)).exec().stream()
                .filter(network -> ownerIsGone(network.getLabels()))
                .forEach(network -> {
                    try {
                        docker.removeNetworkCmd(network.getId()).exec();
                    } catch (RuntimeException e) {
                        log.warn("Could not remove network {}: {}", network.getName(), e.toString());
                    }
                });
        return removed;
    }

    /**
     * Whether the owner named by the labels no longer runs. Labels without a readable owner (made
     * by an older lab, or edited by hand) are left alone: removing someone's live cluster is worse
     * than leaving a dead one.
     */
    static boolean ownerIsGone(Map<String, String> labels) {
        long pid;
        try {
            pid = Long.parseLong(labels.getOrDefault(OWNER_PID_LABEL, ""));
        } catch (NumberFormatException e) {
            return false;
        }
        Optional<ProcessHandle> owner = ProcessHandle.of(pid);
        if (owner.isEmpty()) {
            return true;
        }
        String recordedStart = labels.getOrDefault(OWNER_START_LABEL, "");
        Optional<Instant> start = startOf(owner.get());
        return !recordedStart.isEmpty() && start.isPresent() && !start.get().toString().equals(recordedStart);
    }

    private static Optional<Instant> startOf(ProcessHandle process) {
        return process.info().startInstant();
    }
}
