package io.kscale.lab.scaleout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * One Kafka Streams instance of the scenario's application: its own state directory, one stream
 * thread, the run's restore listeners, a state listener that counts rebalances and remembers a
 * failure, and a counter of processed records.
 */
final class ScaleOutInstance implements AutoCloseable {

    private final String name;
    private final KafkaStreams streams;
    private final Path stateDir;
    private final LongAdder processed = new LongAdder();
    private final AtomicInteger rebalances = new AtomicInteger();
    private volatile KafkaStreams.State state = KafkaStreams.State.CREATED;
    private volatile String failure;
    private volatile boolean killed;

    /**
     * @param name the instance's name in the run, e.g. {@code instance-1}
     * @param inputTopic the topic to count
     * @param streamsProperties the application's settings (application id, assignor, lags, ...)
     * @param stateDir this instance's state directory
     * @param restores the run's restore log
     */
    ScaleOutInstance(String name, String inputTopic, Map<String, Object> streamsProperties, Path stateDir,
                     RestoreLog restores) {
        this.name = name;
        this.stateDir = stateDir;
        Properties props = new Properties();
        props.putAll(streamsProperties);
        props.put("state.dir", stateDir.toAbsolutePath().toString());
        props.put("client.id", streamsProperties.get("application.id") + "-" + name);
        this.streams = new KafkaStreams(CountTopology.build(inputTopic, processed), props);
        streams.setGlobalStateRestoreListener(restores.activeListener(name));
        streams.setStandbyUpdateListener(restores.standbyListener(name));
        streams.setStateListener((newState, oldState) -> {
            state = newState;
            if (newState == KafkaStreams.State.REBALANCING) {
                rebalances.incrementAndGet();
            }
        });
        streams.setUncaughtExceptionHandler(e -> {
            failure = name + " failed: " + e;
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                    .SHUTDOWN_CLIENT;
        });
    }

    void start() {
        streams.start();
    }

    String name() {
        return name;
    }

    KafkaStreams.State state() {
        return state;
    }

    /** @return what made the instance fail, or null */
    String failure() {
        return failure != null ? failure
                : state == KafkaStreams.State.ERROR ? name + " is in state ERROR" : null;
    }

    long processed() {
        return processed.sum();
    }

    int rebalances() {
        return rebalances.get();
    }

    /**
     * Stops the instance the way a crash looks to its group: the client does not leave the group,
     * its heartbeats stop, and the coordinator removes it once {@code session.timeout.ms} has passed
     * (a clean close would leave at once and start the rebalance sooner). Closer to a {@code kill -9}
     * than anything else in one JVM; what differs is local (the threads still write their
     * checkpoints) and this instance never comes back to use it. Does not wait for the threads.
     */
    void kill() {
        killed = true;
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                .withTimeout(Duration.ZERO));
    }

    boolean killed() {
        return killed;
    }

    /** @return active tasks of the instance's stream threads (as the threads last published them); 0 once killed */
    int actives() {
        if (killed) {
            return 0;
        }
        return streams.metadataForLocalThreads().stream().mapToInt(t -> t.activeTasks().size()).sum();
    }

    /** @return standby tasks (warmups here) of the instance's stream threads; 0 once killed */
    int standbys() {
        if (killed) {
            return 0;
        }
        return streams.metadataForLocalThreads().stream().mapToInt(t -> t.standbyTasks().size()).sum();
    }

    /** @return the thread metadata, for logs */
    String tasks() {
        StringBuilder out = new StringBuilder(name).append(": ");
        for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
            out.append("active ");
            thread.activeTasks().forEach(t -> out.append(t.taskId()).append(' '));
            out.append("standby ");
            thread.standbyTasks().forEach(t -> out.append(t.taskId()).append(' '));
        }
        return out.toString().trim();
    }

    /**
     * Reads the counts of the instance's active stores with an interactive query.
     *
     * @return count per key
     * @throws org.apache.kafka.streams.errors.InvalidStateStoreException if a store is not queryable
     *         now (the instance is rebalancing, or a task is restoring): retry
     */
    Map<String, Long> storedCounts() {
        ReadOnlyKeyValueStore<String, byte[]> store = streams.store(
                StoreQueryParameters.fromNameAndType(CountTopology.STORE, QueryableStoreTypes.keyValueStore()));
        Map<String, Long> counts = new HashMap<>();
        try (KeyValueIterator<String, byte[]> all = store.all()) {
            while (all.hasNext()) {
                KeyValue<String, byte[]> entry = all.next();
                counts.put(entry.key, CountTopology.count(entry.value));
            }
        }
        return counts;
    }

    /** Closes the instance and deletes its state directory. */
    @Override
    public void close() {
        streams.close(Duration.ofSeconds(30));
        deleteRecursively(stateDir);
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete " + dir, e);
        }
    }
}
