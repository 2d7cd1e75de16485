package io.kscale.lab.cluster;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;

/**
 * Asks a cluster whether it is ready: every broker registered, and a topic with a replica on
 * every broker can be created (which needs every broker unfenced). Polls every
 * {@value #POLL_MILLIS} ms until ready or until the timeout, failing fast when a broker process
 * died, with the tail of its log in the message.
 */
final class ClusterProbe {

    /** What the probe needs of a broker, whatever runs it (a process, a container). */
    interface ProbedBroker {
        int id();

        /** The address clients use for this broker, {@code host:port}. */
        String clientAddress();

        boolean isRunning();

        /** The last lines of the broker's log, for error messages. */
        String logTail(int lines);
    }

    private static final long POLL_MILLIS = 200;
    private static final int LOG_TAIL_LINES = 30;
    private final String bootstrapServers;
    private final Map<String, Object> clientProperties;

    ClusterProbe(String bootstrapServers) {
        this(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    /** A probe that connects with these client settings (bootstrap.servers and, say, security). */
    ClusterProbe(Map<String, Object> clientProperties) {
        this.bootstrapServers = String.valueOf(clientProperties.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG));
        this.clientProperties = Map.copyOf(clientProperties);
    }

    void awaitReady(List<? extends ProbedBroker> brokers, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = admin(bootstrapServers)) {
            Exception last = null;
            while (System.nanoTime() < deadline) {
                failIfAnyDied(brokers);
                try {
                    Set<Integer> registered = registeredIds(admin);
                    if (registered.size() == brokers.size() && canCreateFullyReplicatedTopic(admin, brokers.size())) {
                        return;
                    }
                } catch (ExecutionException | org.apache.kafka.common.errors.TimeoutException e) {
                    last = e;
                }
                pause();
            }
            throw new IllegalStateException("Kafka cluster at " + bootstrapServers + " was not ready within "
                    + timeout.toSeconds() + " s; last error: " + last + "\n" + brokers.get(0).logTail(LOG_TAIL_LINES));
        }
    }

    /** Waits until this broker answers on its own address and the cluster lists it. */
    void awaitRegistered(ProbedBroker broker, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin own = admin(broker.clientAddress()); Admin cluster = admin(bootstrapServers)) {
            while (System.nanoTime() < deadline) {
                failIfAnyDied(List.of(broker));
                try {
                    if (registeredIds(own).contains(broker.id()) && registeredIds(cluster).contains(broker.id())) {
                        return;
                    }
                } catch (ExecutionException | org.apache.kafka.common.errors.TimeoutException e) {
                    // not answering yet
                }
                pause();
            }
        }
        throw new IllegalStateException("Broker " + broker.id() + " did not register within " + timeout.toSeconds()
                + " s\n" + broker.logTail(LOG_TAIL_LINES));
    }

    /**
     * Waits until a user with these client settings can log in on this broker: a new SCRAM user
     * reaches each broker with the metadata, a moment after it was created.
     */
    void awaitLogin(Map<String, Object> userProperties, ProbedBroker broker, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Object> props = new HashMap<>(userProperties);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.clientAddress());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            // a failed authentication fails every later call of that client: a new one per try
            try (Admin admin = Admin.create(props)) {
                admin.describeCluster().clusterId().get(10, TimeUnit.SECONDS);
                return;
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                last = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted", e);
            }
            pause();
        }
        throw new IllegalStateException("A new user could not log in on broker " + broker.id() + " within "
                + timeout.toSeconds() + " s; last error: " + last);
    }

    private static Set<Integer> registeredIds(Admin admin) throws ExecutionException {
        try {
            Collection<Node> nodes = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
            return nodes.stream().map(Node::id).collect(Collectors.toSet());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new ExecutionException(e);
        }
    }

    private static boolean canCreateFullyReplicatedTopic(Admin admin, int brokers) throws ExecutionException {
        String topic = "__kscale_ready_" + Uuid.randomUuid();
        try {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) brokers))).all().get(10, TimeUnit.SECONDS);
            admin.deleteTopics(List.of(topic)).all().get(10, TimeUnit.SECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new ExecutionException(e);
        }
    }

    private static void failIfAnyDied(List<? extends ProbedBroker> brokers) {
        for (ProbedBroker broker : brokers) {
            if (!broker.isRunning()) {
                throw new IllegalStateException("Broker " + broker.id() + " exited during startup; its log ends with:\n"
                        + broker.logTail(LOG_TAIL_LINES));
            }
        }
    }

    private Admin admin(String bootstrap) {
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        return Admin.create(props);
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the cluster", e);
        }
    }
}
