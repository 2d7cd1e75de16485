package io.kscale.it.stateful;

import io.kscale.assignor.FollowUpRebalance;
import io.kscale.assignor.KeyPreservingAssignorConfig;
import io.kscale.assignor.TaskRef;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A stateful consumer app, one group member: counts records per key, one in-memory store per task
 * (task t = input partition t = changelog partition t), writes every new count to a compacted
 * changelog topic and rebuilds a store from it with a {@link ChangelogRestorer}. A task assigned
 * as active is paused until its store has restored the changelog to the end the prior owner left
 * (the prior owner flushes and commits when its partition is revoked, so nothing is counted twice
 * or lost). With {@code stateful} it registers its {@link io.kscale.assignor.TaskStateListener} hooks: it reports
 * each store's lag, warms up the tasks it is told to, and the poll loop calls
 * {@link FollowUpRebalance#triggerIfDue}; without, a moved task restores only once assigned
 * (what any assignor without warmups gives).
 */
final class CountingMember implements AutoCloseable {

    private static final long COMMIT_INTERVAL_MS = 500;

    private final String name;
    private final String changelog;
    private final int tasks;
    private final HandOffLog log;
    private final ConcurrentMap<Integer, TaskStore> stores = new ConcurrentHashMap<>();
    /** Active tasks, whether ready or still restoring; read by the test. */
    private final Set<Integer> active = ConcurrentHashMap.newKeySet();
    private final KafkaConsumer<String, String> consumer;
    private final KafkaProducer<String, Long> producer;
    private final ChangelogRestorer restorer;
    private final Map<TopicPartition, Long> positions = new HashMap<>();
    private final Set<TopicPartition> paused = new HashSet<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    /**
     * @param consumerSettings group id and assignor; the member adds the rest
     * @param stateful whether to register the task state hooks (KeyPreservingAssignor only)
     */
    CountingMember(String name, StatefulTopics topics, Map<String, Object> consumerSettings, boolean stateful,
            HandOffLog log, Map<String, Object> clientProperties) {
        this.name = name;
        this.changelog = topics.changelog();
        this.tasks = topics.tasks();
        this.log = log;
        this.restorer = new ChangelogRestorer(name, changelog, stores, clientProperties);
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.putAll(consumerSettings);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
        if (stateful) {
            props.put(KeyPreservingAssignorConfig.TASK_STATE_LISTENER_CONFIG, new Hooks(topics.input()));
        }
        this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
        Map<String, Object> producerProps = new HashMap<>(clientProperties);
        producerProps.put(ProducerConfig.CLIENT_ID_CONFIG, name + "-changelog");
        producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        // One request in flight, as KeyedLoad: a retried first batch on a new topic must not be
        // overtaken by the next (KAFKA-14359).
        producerProps.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        this.producer = new KafkaProducer<>(producerProps, new StringSerializer(), new LongSerializer());
        consumer.subscribe(List.of(topics.input()), new Handover());
        this.thread = new Thread(this::run, name);
        thread.start();
    }

    String name() {
        return name;
    }

    /** @return the active tasks whose store is ready */
    Set<Integer> readyTasks() {
        return active.stream().filter(task -> {
            TaskStore store = stores.get(task);
            return store != null && store.ready();
        }).collect(Collectors.toSet());
    }

    /** @return the counts of the ready active tasks, by key */
    Map<String, Long> counts() {
        Map<String, Long> counts = new HashMap<>();
        for (int task : readyTasks()) {
            counts.putAll(stores.get(task).snapshot());
        }
        return counts;
    }

    Throwable failure() {
        return failure != null ? failure : restorer.failure();
    }

    private void run() {
        long nextCommit = System.currentTimeMillis() + COMMIT_INTERVAL_MS;
        try {
            while (running) {
                FollowUpRebalance.triggerIfDue(consumer);
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    process(record);
                }
                resumeRestored();
                if (System.currentTimeMillis() >= nextCommit) {
                    try {
                        commit(positions.keySet());
                    } catch (RebalanceInProgressException e) {
                        // COOPERATIVE keeps processing during a rebalance; commit after it (a
                        // revoked partition is committed in onPartitionsRevoked).
                    }
                    nextCommit = System.currentTimeMillis() + COMMIT_INTERVAL_MS;
                }
            }
            commit(positions.keySet());
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    private void process(ConsumerRecord<String, String> record) {
        TaskStore store = stores.get(record.partition());
        if (store == null || !active.contains(record.partition()) || !store.ready()) {
            log.processedWhileRestoring.incrementAndGet();
            throw new IllegalStateException(name + " got a record of task " + record.partition() + " it cannot process");
        }
        long count = store.increment(record.key());
        producer.send(new ProducerRecord<>(changelog, record.partition(), record.key(), count));
        positions.put(new TopicPartition(record.topic(), record.partition()), record.offset() + 1);
    }

    private void resumeRestored() {
        for (TopicPartition partition : Set.copyOf(paused)) {
            if (stores.get(partition.partition()).ready()) {
                consumer.resume(List.of(partition));
                paused.remove(partition);
                log.add(HandOffLog.Kind.READY, name, partition.partition(), 0);
            }
        }
    }

    /** The changelog holds every count before the input offset that produced it is committed. */
    private void commit(Collection<TopicPartition> partitions) {
        producer.flush();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition partition : partitions) {
            Long position = positions.get(partition);
            if (position != null) {
                offsets.put(partition, new OffsetAndMetadata(position));
            }
        }
        if (!offsets.isEmpty()) {
            consumer.commitSync(offsets);
        }
    }

    /** Restores on assignment; flushes, commits and forgets on revocation. */
    private final class Handover implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions.stream()
                    .map(p -> new TopicPartition(changelog, p.partition())).collect(Collectors.toList()));
            for (TopicPartition partition : partitions) {
                int task = partition.partition();
                TaskStore store = stores.computeIfAbsent(task, t -> new TaskStore());
                long toRestore = store.activate(ends.get(new TopicPartition(changelog, task)));
                active.add(task);
                log.add(HandOffLog.Kind.ASSIGNED, name, task, toRestore);
                if (store.ready()) {
                    log.add(HandOffLog.Kind.READY, name, task, 0);
                } else {
                    consumer.pause(List.of(partition));
                    paused.add(partition);
                    restorer.restore(task);
                }
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            commit(partitions);
            forget(partitions, HandOffLog.Kind.REVOKED);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            forget(partitions, HandOffLog.Kind.REVOKED);
        }

        private void forget(Collection<TopicPartition> partitions, HandOffLog.Kind kind) {
            for (TopicPartition partition : partitions) {
                int task = partition.partition();
                active.remove(task);
                restorer.stop(task);
                stores.remove(task);
                positions.remove(partition);
                paused.remove(partition);
                log.add(kind, name, task, 0);
            }
        }
    }

    /** The task state hooks: lags of every store here, warmups restored by the restore thread. */
    private final class Hooks implements io.kscale.assignor.TaskStateListener {
        private final String input;

        Hooks(String input) {
            this.input = input;
        }

        @Override
        public Map<TaskRef, Long> lags() {
            Map<TaskRef, Long> lags = new HashMap<>();
            stores.forEach((task, store) -> {
                OptionalLong lag = active.contains(task) && store.ready() ? OptionalLong.of(0) : restorer.lag(task, store);
                lag.ifPresent(value -> lags.put(TaskRef.of(List.of(input), tasks, task), value));
            });
            return lags;
        }

        @Override
        public void onWarmup(Set<TaskRef> warmups) {
            for (TaskRef task : warmups) {
                stores.computeIfAbsent(task.task(), t -> new TaskStore());
                restorer.restore(task.task());
            }
        }

        @Override
        public void onDrop(Set<TaskRef> dropped) {
            for (TaskRef task : dropped) {
                if (!active.contains(task.task())) {
                    restorer.stop(task.task());
                    stores.remove(task.task());
                }
            }
        }
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        consumer.close(Duration.ofSeconds(10));
        producer.close(Duration.ofSeconds(10));
        restorer.close();
    }
}
