package io.kscale.admin.internals;

import io.kscale.assignor.internals.store.TaskCountRecord;
import io.kscale.assignor.internals.store.KafkaLayoutStore;
import io.kscale.assignor.internals.store.StoreClients;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Reads the broker-side assignor's task count topic ({@code kscale-task-counts} by default, the
 * brokers' {@code kscale.server.assignor.store.topic}): one partition, an append-only log of
 * {@link TaskCountRecord}s keyed by topic id, where the <em>first</em> record of an id is that
 * topic's T for every {@code group.protocol=consumer} group on the cluster (the store's rule, see
 * {@code KnownTaskCounts}). The format is the store's own ({@link TaskCountRecord#topicId},
 * {@link TaskCountRecord#decode}); this class only reads the log from its beginning to its end
 * offset and applies that rule.
 *
 * <p>A first record whose value does not decode makes the id unreadable, as it does on the
 * brokers (which then hold that topic's new partitions): the tool reports it, it does not guess.
 *
 * <p>Why not the members' {@code TaskCountTopicReader}: it reads on a thread of its own and
 * answers "not known yet" alike for a topic without a record, a record that does not decode and
 * a store it cannot read (it logs the failure), which is right for a poll loop that must never
 * wait; a one-shot command must wait for the answer and tell those three apart.
 */
public final class TaskCountLogReader {

    private final String topic;
    private final Map<String, Object> consumerSettings;
    private final StoreClients clients;
    private final Duration timeout;

    public TaskCountLogReader(String topic, Map<String, ?> clientSettings, StoreClients clients, Duration timeout) {
        this.topic = topic;
        this.consumerSettings = KafkaLayoutStore.consumerSettings(clientSettings);
        this.clients = clients;
        this.timeout = timeout;
    }

    /**
     * @param topicId the topic whose T is wanted
     * @return its T, none, or why the log could not be read
     */
    public StoredTaskCount taskCount(Uuid topicId) {
        if (topicId == null) {
            return StoredTaskCount.noneStored("the brokers give the topic no id, and the task count topic is keyed by id");
        }
        Map<Uuid, Optional<TaskCountRecord>> first;
        try {
            first = readFirstRecords();
        } catch (RuntimeException e) {
            return StoredTaskCount.unreadable("cannot read task count topic " + topic + ": " + e);
        }
        if (first == null) {
            return StoredTaskCount.noneStored("task count topic " + topic + " does not exist (no broker-side"
                    + " key-preserving assignor has assigned a partition yet)");
        }
        Optional<TaskCountRecord> record = first.get(topicId);
        if (record == null) {
            return StoredTaskCount.noneStored("no record of topic id " + topicId + " in task count topic " + topic);
        }
        if (record.isEmpty()) {
            return StoredTaskCount.unreadable("the first record of topic id " + topicId + " in task count topic "
                    + topic + " does not decode (the brokers hold the topic's new partitions too)");
        }
        return StoredTaskCount.known(record.get().taskCount(), "task count topic " + topic + ", by "
                + record.get().writer());
    }

    /** @return each topic id's first record (empty if it does not decode), or null if the topic does not exist */
    private Map<Uuid, Optional<TaskCountRecord>> readFirstRecords() {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Consumer<byte[], byte[]> consumer = clients.consumer(consumerSettings)) {
            List<PartitionInfo> partitions = consumer.partitionsFor(topic, timeout);
            if (partitions == null || partitions.isEmpty()) {
                return null;
            }
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition), timeout).get(partition);
            Map<Uuid, Optional<TaskCountRecord>> first = new HashMap<>();
            while (consumer.position(partition, timeout) < end) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("read up to offset " + consumer.position(partition) + " of " + end
                            + " within " + timeout.toMillis() + " ms");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofNanos(left))) {
                    TaskCountRecord.topicId(record.key())
                            .ifPresent(id -> first.putIfAbsent(id, TaskCountRecord.decode(record.value())));
                }
            }
            return first;
        }
    }
}
