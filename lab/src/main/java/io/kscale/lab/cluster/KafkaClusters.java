package io.kscale.lab.cluster;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Starts a {@link KafkaCluster} on the backend that {@link ClusterBackend#choose} picks. */
public final class KafkaClusters {

    private static final Logger log = LoggerFactory.getLogger(KafkaClusters.class);

    private KafkaClusters() {
    }

    /** Starts a cluster on the backend named by {@code -Dkscale.cluster} (default: auto). */
    public static KafkaCluster start(ClusterSpec spec) {
        return start(spec, System.getProperty(ClusterBackend.PROPERTY));
    }

    /**
     * Starts a cluster on the requested backend.
     *
     * @param requestedBackend process, docker, auto, or null for auto
     */
    public static KafkaCluster start(ClusterSpec spec, String requestedBackend) {
        ClusterBackend.Choice choice = ClusterBackend.choose(requestedBackend, DockerProbe::dockerAnswers);
        log.info("Starting a {}-broker Kafka cluster on the {} backend", spec.brokers(), choice);
        switch (choice.backend()) {
            case DOCKER:
                return DockerKafkaCluster.start(spec);
            case PROCESS:
            default:
                return ProcessKafkaCluster.start(spec);
        }
    }
}
