package io.kscale.lab.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

    /**
     * Settings a client needs to reach this cluster: {@code bootstrap.servers} and nothing else on
     * a {@link ClusterSecurity#PLAINTEXT} cluster; on a {@link ClusterSecurity#SASL_SSL} one, also
     * {@code security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config} and
     * {@code ssl.truststore.*} of the cluster's admin, a super user.
     */
    default Map<String, Object> clientProperties() {
        return Map.of("bootstrap.servers", bootstrapServers());
    }

    /** How clients reach this cluster. */
    default ClusterSecurity security() {
        return ClusterSecurity.PLAINTEXT;
    }

    /**
     * Creates a SCRAM user with a new random password, with no ACLs (so, on this cluster's
     * authorizer, allowed nothing until granted), and returns once the user can log in on every
     * broker.
     *
     * @param user the user name, which the brokers see as principal {@code User:<user>}
     * @return the user's client settings, as {@link #clientProperties()} has them for the admin
     * @throws IllegalStateException if the cluster is not {@link ClusterSecurity#SASL_SSL}
     */
    default Map<String, Object> createUser(String user) {
        throw new IllegalStateException("A " + security() + " cluster has no users; start it with "
                + "ClusterSpec.builder().security(ClusterSecurity.SASL_SSL)");
    }

    /**
     * Every password this cluster generated (keystore, truststore, admin and users), for tests
     * that check that none leaks into a log; empty on a {@link ClusterSecurity#PLAINTEXT} cluster.
     */
    default Set<String> secrets() {
        return Set.of();
    }

    /**
     * The broker log files of this cluster, for tests that search them; empty where the backend
     * keeps none on disk.
     */
    default List<Path> logFiles() {
        return List.of();
    }

    /**
     * The brokers' log output so far, every broker's, for scenarios that wait on a line the
     * brokers log (as an operator watching them would); by default read from {@link #logFiles()},
     * so empty where the backend keeps none.
     */
    default String brokerLogText() {
        StringBuilder text = new StringBuilder();
        for (Path file : logFiles()) {
            try {
                text.append(Files.readString(file, StandardCharsets.UTF_8)).append('\n');
            } catch (IOException | UncheckedIOException e) {
                // A log being rotated or not there yet: what it says is read next time.
            }
        }
        return text.toString();
    }

    /**
     * One broker's log output so far, earlier runs of it included (a restarted broker's log goes
     * on where it stopped), for checks on what a given broker logged.
     *
     * @throws UnsupportedOperationException where the backend does not keep each broker's log apart
     */
    default String brokerLogText(int brokerId) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no log per broker");
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

    /** Kills a broker abruptly ({@code kill -9}); its data directory stays for {@link #restart(int)}. */
    void kill(int brokerId);

    /**
     * Starts a killed broker again on the same data directory and ports, killing it first if it
     * is still running, and waits until the cluster sees it registered again.
     */
    void restart(int brokerId);

    /**
     * Restarts a broker with changed settings, as one step of an operator's rolling restart:
     * stops it cleanly (SIGTERM, so that it hands its leaderships over first), starts it on the
     * same data directory and ports with the cluster's settings and then
     * {@code brokerPropertyOverrides} on top, and waits until the cluster sees it registered
     * again. The overrides replace those of an earlier call and stay for later
     * {@link #restart(int)} calls; an empty map brings back the cluster's settings. The broker's
     * classpath does not change.
     *
     * @throws UnsupportedOperationException where the backend cannot change a broker's settings:
     *                                       Docker, whose containers take theirs when created
     */
    default void restart(int brokerId, Map<String, String> brokerPropertyOverrides) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot restart a broker with other "
                + "settings; the process backend can");
    }

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
