package io.kscale.it.stateful;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The restore thread of a {@link CountingMember}: a plain consumer ({@code assign()}, no group)
 * that brings the stores of the tasks it is asked to restore up to their changelog partition and
 * keeps warmups tailing it. It looks the changelog ends up every 200 ms, so a member can report its
 * lags without a network call on its poll thread.
 */
final class ChangelogRestorer implements AutoCloseable {

    private static final long END_LOOKUP_MS = 200;

    private final String changelog;
    private final ConcurrentMap<Integer, TaskStore> stores;
    private final KafkaConsumer<String, Long> consumer;
    private final Set<Integer> wanted = ConcurrentHashMap.newKeySet();
    private final ConcurrentMap<Integer, Long> ends = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    ChangelogRestorer(String name, String changelog, ConcurrentMap<Integer, TaskStore> stores,
            Map<String, Object> clientProperties) {
        this.changelog = changelog;
        this.stores = stores;
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, name + "-restore");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2_000);
        this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new LongDeserializer());
        this.thread = new Thread(this::run, name + "-restore");
        thread.setDaemon(true);
        thread.start();
    }

    /** Restores the task's store (while it exists and is not ready), from its position. */
    void restore(int task) {
        wanted.add(task);
    }

    void stop(int task) {
        wanted.remove(task);
    }

    /** @return changelog end minus the store's position, if the end has been looked up */
    OptionalLong lag(int task, TaskStore store) {
        Long end = ends.get(task);
        return end == null ? OptionalLong.empty() : OptionalLong.of(Math.max(0, end - store.position()));
    }

    Throwable failure() {
        return failure;
    }

    private void run() {
        Map<TopicPartition, TaskStore> assigned = new HashMap<>();
        long nextEndLookup = 0;
        try {
            while (running) {
                Map<TopicPartition, TaskStore> target = new HashMap<>();
                for (int task : wanted) {
                    TaskStore store = stores.get(task);
                    if (store != null && !store.ready()) {
                        target.put(new TopicPartition(changelog, task), store);
                    }
                }
                if (!target.equals(assigned)) {
                    consumer.assign(target.keySet());
                    // A store that is new, or replaced since, restarts from its own position.
                    target.forEach((partition, store) -> {
                        if (assigned.get(partition) != store) {
                            consumer.seek(partition, store.position());
                        }
                    });
                    assigned.clear();
                    assigned.putAll(target);
                }
                if (assigned.isEmpty()) {
                    TimeUnit.MILLISECONDS.sleep(20);
                    continue;
                }
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(50))) {
                    TaskStore store = assigned.get(new TopicPartition(record.topic(), record.partition()));
                    store.restore(record.key(), record.value(), record.offset());
                }
                for (Map.Entry<TopicPartition, TaskStore> entry : assigned.entrySet()) {
                    entry.getValue().restoredTo(consumer.position(entry.getKey()));
                }
                long now = System.currentTimeMillis();
                if (now >= nextEndLookup) {
                    consumer.endOffsets(new HashSet<>(assigned.keySet()))
                            .forEach((partition, end) -> ends.put(partition.partition(), end));
                    nextEndLookup = now + END_LOOKUP_MS;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consumer.close(Duration.ofSeconds(5));
    }
}
