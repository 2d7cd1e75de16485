package io.kscale.lab.cluster;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A real Apache Kafka cluster that the lab and the integration tests run against, with the
 * faults they need: a broker can be paused, killed, restarted and slowed down.
 *
 * <p>Brokers are named by their node id, {@code 0} to {@code brokerCount() - 1}. Every method
 * that takes a broker id throws {@link IllegalArgumentException} for an id outside that range.
 * {@link #close()} stops every broker and is safe to call twice.
 *
 * <p>Two backends implement it: {@link ProcessKafkaCluster} (brokers as child JVM processes,
 * the default) and {@link DockerKafkaCluster} (Testcontainers); {@link KafkaClusters#start}
 * chooses one.
 */
public interface KafkaCluster extends AutoCloseable {

    /** The {@code bootstrap.servers} value for clients, e.g. {@code 127.0.0.1:41234,127.0.0.1:41236}. */
    String bootstrapServers();

    /** Settings a client needs to reach this cluster: {@code bootstrap.servers} and nothing else. */
    default Map<String, Object> clientProperties() {
        return Map.of("bootstrap.servers", bootstrapServers());
    }

    int brokerCount();

    /** The node ids, {@code 0 .. brokerCount() - 1}. */
    default List<Integer> brokerIds() {
        return IntStream.range(0, brokerCount()).boxed().collect(Collectors.toList());
    }

    /** Freezes a broker (SIGSTOP): it keeps its sockets open but answers nothing. */
    void pause(int brokerId);

    /** Resumes a paused broker (SIGCONT). */
    void resume(int brokerId);

    /**
     * Whether the broker is frozen by {@link #pause}, as the operating system or the Docker
     * engine reports it now (the process state, or the container's paused flag), not as this
     * object remembers it.
     */
    boolean isFrozen(int brokerId);

    /** Kills a broker abruptly ({@code kill -9}); its data directory stays for {@link #restart}. */
    void kill(int brokerId);

    /**
     * Starts a killed broker again on the same data directory and ports, killing it first if it
     * is still running, and waits until the cluster sees it registered again.
     */
    void restart(int brokerId);

    /**
     * Delays every response of this broker to clients by {@code delay} from now on (0 to 500
     * ms), so each request to it takes at least that much longer. Traffic between brokers is
     * not delayed.
     */
    void setLatency(int brokerId, Duration delay);

    /** Stops every broker and releases every port; logs are kept. */
    @Override
    void close();
}
