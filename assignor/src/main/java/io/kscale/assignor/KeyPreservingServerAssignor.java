package io.kscale.assignor;

import io.kscale.assignor.internals.server.NeverLoadedTaskCountStore;
import io.kscale.assignor.internals.server.ServerAssignmentBuilder;
import io.kscale.assignor.internals.server.ServerAssignorMetrics;
import io.kscale.assignor.internals.server.ServerAssignorState;
import io.kscale.assignor.internals.server.TaskCountStore;
import io.kscale.assignor.internals.server.store.SharedTaskCountStores;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Key-preserving assignment for consumer groups on the KIP-848 protocol
 * ({@code group.protocol=consumer}): the broker-side twin of {@link KeyPreservingAssignor}. Each
 * topic keeps a task count T, partition {@code p} belongs to task {@code p % T}, and all
 * partitions of a task go to one member, so that when a topic grows to a multiple of T every
 * key stays with its member.
 *
 * <p>Deploy: the jar on every broker's classpath, then on every broker
 * {@code group.consumer.assignors=uniform,range,io.kscale.assignor.KeyPreservingServerAssignor}
 * (the first listed is the default), and on the consumers
 * {@code group.remote.assignor=kscale-key-preserving}. Settings: {@link KeyPreservingServerAssignorConfig}.
 *
 * <p>What differs from the client side:
 * <ul>
 *   <li>T is kept per topic id, in a topic on the cluster, and shared by every group
 *       that uses this assignor on that topic: the broker-side API names no group. A group that
 *       starts reading a topic after it was expanded inherits the T first recorded for it.</li>
 *   <li>T never changes once recorded (expansion policy KEEP).</li>
 *   <li>Until the store has answered whether a topic has a T, the topic is held: members keep
 *       the partitions of it they have, and nothing else of it is assigned. T never comes from
 *       today's partition count while it may be stored.</li>
 *   <li>No warmups: the broker-side API carries no per-member data, so no lags.</li>
 * </ul>
 *
 * <p>Lifecycle. The broker creates and configures an instance for every copy of its
 * configuration it builds (at start-up, on dynamic config changes, and on controller-only nodes
 * too), uses one of them for all groups, and in Kafka 4.4 closes none on shutdown. So the store,
 * with its clients and thread, is one per JVM and settings ({@code SharedTaskCountStores}), and
 * {@link #configure} starts it only on a broker ({@code process.roles} names {@code broker}), so
 * that it loads while the broker starts; elsewhere it starts on the first {@link #assign} call. One instance
 * serves every group, concurrently: {@code assign} is thread-safe and holds no lock after that
 * first call.
 */
public final class KeyPreservingServerAssignor implements ConsumerGroupPartitionAssignor, Configurable, AutoCloseable {

    /** The name consumers give in {@code group.remote.assignor}. */
    public static final String NAME = "kscale-key-preserving";

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingServerAssignor.class);
    /** Answers for a store that has not started: nothing is known yet. */
    private static final TaskCountStore NOT_STARTED = new NeverLoadedTaskCountStore();

    private final BiFunction<Map<String, ?>, KeyPreservingServerAssignorConfig, TaskCountStore> storeFactory;
    /** Whether {@link #close()} closes the store: not one shared by the JVM's instances. */
    private final boolean closesStore;
    private final LongSupplier nanoClock;
    private final ServerAssignorState state;
    private volatile KeyPreservingServerAssignorConfig config;
    private volatile Map<String, ?> brokerConfigs = Map.of();
    private volatile TaskCountStore store;
    private volatile boolean closed;
    /** The longest wait between two attempts to start the store. */
    static final long MAX_START_BACKOFF_NANOS = java.time.Duration.ofSeconds(60).toNanos();
    /** When starting the store last failed (of the nano clock), so that the next attempt waits the backoff. */
    private long failedAt;
    /** Attempts to start the store that failed in a row; the backoff doubles with each. */
    private int failures;

    /** Creates the assignor; the broker does, from {@code group.consumer.assignors}. */
    public KeyPreservingServerAssignor() {
        this(ServerAssignorState.shared());
    }

    private KeyPreservingServerAssignor(ServerAssignorState state) {
        this((brokerConfigs, config) -> sharedStore(brokerConfigs, config, state), false, state, System::nanoTime);
    }

    /**
     * The seam for tests and other stores.
     *
     * @param storeFactory makes the store from the broker's settings and the parsed ones, on the
     *                     first {@link #configure} on a broker or the first {@link #assign} call; must
     *                     return at once (it may run on a group
     *                     coordinator thread)
     * @param closesStore  whether {@link #close()} closes that store (false for a store the JVM's
     *                     instances share)
     * @param state        the log and metrics: {@link ServerAssignorState#shared()}, or detached ones in tests
     * @param nanoClock    the clock of the retry backoff, {@link System#nanoTime()} but in tests
     */
    KeyPreservingServerAssignor(BiFunction<Map<String, ?>, KeyPreservingServerAssignorConfig, TaskCountStore> storeFactory,
                                boolean closesStore, ServerAssignorState state, LongSupplier nanoClock) {
        this.storeFactory = Objects.requireNonNull(storeFactory, "storeFactory");
        this.closesStore = closesStore;
        this.state = state;
        this.nanoClock = nanoClock;
    }

    /** The JVM's store for these settings ({@link SharedTaskCountStores}): one thread and one set of clients per broker. */
    private static TaskCountStore sharedStore(Map<String, ?> brokerConfigs, KeyPreservingServerAssignorConfig config,
                                              ServerAssignorState state) {
        return SharedTaskCountStores.forSettings(brokerConfigs, config.storeTopic(), config.replicationFactor(),
                String.join(",", config.bootstrapServers()), config.clientOverrides(), config.classicLayoutTopics(),
                config.retryBackoff(), state.metrics());
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Parses the settings; starts nothing (see the class comment).
     *
     * @param configs the broker's settings
     * @throws org.apache.kafka.common.config.ConfigException naming the key if a value is invalid
     */
    @Override
    public void configure(Map<String, ?> configs) {
        this.config = new KeyPreservingServerAssignorConfig(configs);
        this.brokerConfigs = Collections.unmodifiableMap(new HashMap<>(configs));
        log.debug("Configured {}: {}", NAME, config);
        if (runsOnABroker(configs)) {
            // Start loading now, while the broker starts: the coordinator asks for an assignment
            // only when a group changes, so a topic held because the store was still loading at
            // that moment stays held until the group's next change. The store is shared by the
            // JVM's instances, so the many instances a broker configures start one store.
            store();
        }
    }

    /**
     * Whether these are the settings of a broker ({@code process.roles} names {@code broker}): a
     * controller-only node never assigns, and starting the store there would only open clients.
     */
    private static boolean runsOnABroker(Map<String, ?> configs) {
        Object roles = configs.get("process.roles");
        if (roles == null) {
            return false;
        }
        // The broker passes the string of server.properties; a parsed LIST would be a List.
        Iterable<?> listed = roles instanceof Iterable ? (Iterable<?>) roles : Arrays.asList(String.valueOf(roles).split(","));
        for (Object role : listed) {
            if (String.valueOf(role).trim().equals("broker")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Computes the group's target assignment. Never throws: a failure keeps the current targets.
     */
    @Override
    public GroupAssignment assign(GroupSpec groupSpec, SubscribedTopicDescriber subscribedTopicDescriber) {
        TaskCountStore taskCounts = store();
        return new ServerAssignmentBuilder(groupSpec, subscribedTopicDescriber, taskCounts, state.taskCountLog(),
                state.metrics()).build();
    }

    /** @return the store, made on first use; after {@link #close()}, one that knows nothing */
    private TaskCountStore store() {
        TaskCountStore current = store;
        if (current != null) {
            return current;
        }
        synchronized (this) {
            if (store != null) {
                return store;
            }
            KeyPreservingServerAssignorConfig settings = config;
            if (settings == null) {
                settings = new KeyPreservingServerAssignorConfig(Map.of());
                config = settings;
                log.warn("{} was not configured before its first assignment; using the default settings", NAME);
            }
            if (failures > 0 && nanoClock.getAsLong() - failedAt < startBackoffNanos(settings)) {
                return NOT_STARTED;
            }
            try {
                store = Objects.requireNonNull(storeFactory.apply(brokerConfigs, settings), "the store factory returned null");
                log.info("{} started its task count store{}: {}", NAME,
                        failures == 0 ? "" : " after " + failures + " failed attempts", settings);
                return store;
            } catch (RuntimeException | LinkageError | OutOfMemoryError e) {
                // LinkageError: a client class missing from the broker's classpath; OutOfMemoryError:
                // no thread could be made. Neither may fail the group: it is held as by a store that
                // has not loaded yet.
                onStartFailed(settings, e);
                return NOT_STARTED;
            }
        }
    }

    /**
     * A store that cannot start degrades like one that has not loaded: every topic is held (its
     * T may be stored), members keep their partitions, new partitions stay unassigned, and no
     * group fails. One ERROR for the first failure, the later ones at DEBUG (each counted), so that
     * a broker whose settings are wrong does not log on every assignment; attempts wait a backoff
     * that doubles from the retry backoff up to a minute.
     */
    private void onStartFailed(KeyPreservingServerAssignorConfig settings, Throwable e) {
        failures++;
        failedAt = nanoClock.getAsLong();
        state.metrics().storeStartFailed();
        long nextMs = startBackoffNanos(settings) / 1_000_000;
        if (failures == 1) {
            log.error("{} could not start its task count store; every topic is held (members keep their partitions, "
                    + "new partitions stay unassigned) until it starts. Retrying with a backoff from {} ms up to {} s; "
                    + "later failures are logged at DEBUG and counted in store-start-failures-total", NAME, nextMs,
                    MAX_START_BACKOFF_NANOS / 1_000_000_000L, e);
        } else {
            log.debug("{} could not start its task count store (attempt {}); next attempt in {} ms", NAME, failures,
                    nextMs, e);
        }
    }

    /** @return the wait after the latest failed start: the retry backoff, doubled per further failure, at most a minute */
    private long startBackoffNanos(KeyPreservingServerAssignorConfig settings) {
        long backoff = settings.retryBackoff().toNanos();
        for (int i = 1; i < failures && backoff < MAX_START_BACKOFF_NANOS; i++) {
            backoff *= 2;
        }
        return Math.min(backoff, Math.max(MAX_START_BACKOFF_NANOS, settings.retryBackoff().toNanos()));
    }

    /**
     * Stops using the store; closes it if this assignor owns it. The default store is shared by
     * every instance in the JVM and stays open (Kafka 4.4 closes no assignor anyway). Idempotent.
     */
    @Override
    public void close() {
        TaskCountStore toClose;
        synchronized (this) {
            closed = true;
            toClose = store;
            store = NOT_STARTED;
        }
        if (toClose != null && toClose != NOT_STARTED && closesStore) {
            try {
                toClose.close();
            } catch (RuntimeException e) {
                log.warn("Closing the task count store failed", e);
            }
        }
    }

    /** @return the assignor's metrics */
    ServerAssignorMetrics metrics() {
        return state.metrics();
    }
}
