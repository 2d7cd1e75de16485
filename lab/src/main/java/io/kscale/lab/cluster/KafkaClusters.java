package io.kscale.lab.cluster;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Starts a {@link KafkaCluster} on the backend that {@link ClusterBackend#choose} picks. */
public final class KafkaClusters {

    private static final Logger log = LoggerFactory.getLogger(KafkaClusters.class);
    /** One WARN per JVM when auto falls back from an engine that answers: a test run starts many clusters. */
    private static final AtomicBoolean fallbackWarned = new AtomicBoolean();

    private KafkaClusters() {
    }

    /** Starts a cluster on the backend named by {@code -Dkscale.cluster} (default: auto). */
    public static KafkaCluster start(ClusterSpec spec) {
        return start(spec, System.getProperty(ClusterBackend.PROPERTY));
    }

    /**
     * Starts a cluster on the requested backend. Where its brokers list kscale's broker-side
     * assignor, returns once each broker's task count store has loaded, so that no group of the
     * caller's forms while the assignor still holds its topics.
     *
     * @param requestedBackend process, docker, auto, or null for auto
     * @throws DockerUnavailableException when docker was asked for and is not ready
     */
    public static KafkaCluster start(ClusterSpec spec, String requestedBackend) {
        KafkaCluster cluster = spec.security() != ClusterSecurity.PLAINTEXT
                ? startSecured(spec, requestedBackend)
                : startPlaintext(spec, requestedBackend);
        if (ServerAssignorPlugin.listedIn(spec)) {
            try {
                ServerAssignorPlugin.awaitTaskCountStores(cluster, spec.startupTimeout());
            } catch (RuntimeException e) {
                cluster.close();
                throw e;
            }
        }
        return cluster;
    }

    private static KafkaCluster startPlaintext(ClusterSpec spec, String requestedBackend) {
        ClusterBackend.Choice choice = ClusterBackend.choose(requestedBackend, DockerReadiness::check);
        if (choice.backend() == ClusterBackend.DOCKER) {
            if (!choice.docker().ready()) {
                throw new DockerUnavailableException(choice.docker().reason());
            }
            log.info("Starting a {}-broker Kafka cluster on the {} backend", spec.brokers(), choice);
            return DockerKafkaCluster.start(spec, choice.docker().image());
        }
        DockerReadiness docker = choice.docker();
        if (docker != null && docker.engineAnswers() && fallbackWarned.compareAndSet(false, true)) {
            log.warn("Starting Kafka clusters as processes, not on Docker: {}", docker.reason());
        } else {
            log.info("Starting a {}-broker Kafka cluster on the {} backend", spec.brokers(), choice);
        }
        return ProcessKafkaCluster.start(spec);
    }

    /** Only the process backend starts secured clusters: auto means process, docker is refused. */
    private static KafkaCluster startSecured(ClusterSpec spec, String requestedBackend) {
        String backend = requestedBackend == null ? "auto" : requestedBackend.trim().toLowerCase(java.util.Locale.ROOT);
        if (backend.equals("docker")) {
            throw new IllegalArgumentException("The docker backend cannot start a " + spec.security()
                    + " cluster; use the process backend (-D" + ClusterBackend.PROPERTY + "=process or --backend process)");
        }
        if (!backend.equals("process") && !backend.equals("auto") && !backend.isEmpty()) {
            ClusterBackend.choose(backend, () -> null); // throws the usual message for a value that is none of them
        }
        log.info("Starting a {}-broker {} Kafka cluster on the process backend", spec.brokers(), spec.security());
        return ProcessKafkaCluster.start(spec);
    }
}
