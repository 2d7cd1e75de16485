package io.kscale.admin.internals;

import io.kscale.assignor.internals.store.StoreClients;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/** A store topic of one partition holding the given records, read by a fresh mock consumer per read; no writes. */
final class MockStoreClients implements StoreClients {

    private final String topic;
    private final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    private boolean exists = true;
    private RuntimeException failure;

    MockStoreClients(String topic) {
        this.topic = topic;
    }

    MockStoreClients add(String key, byte[] value) {
        records.add(new ConsumerRecord<>(topic, 0, records.size(), key.getBytes(StandardCharsets.UTF_8), value));
        return this;
    }

    MockStoreClients missing() {
        exists = false;
        return this;
    }

    MockStoreClients failing(RuntimeException failure) {
        this.failure = failure;
        return this;
    }

    @Override
    public Consumer<byte[], byte[]> consumer(Map<String, Object> settings) {
        TopicPartition partition = new TopicPartition(topic, 0);
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest") {
            @Override
            public synchronized List<PartitionInfo> partitionsFor(String name, java.time.Duration timeout) {
                if (failure != null) {
                    throw failure;
                }
                return super.partitionsFor(name, timeout);
            }
        };
        if (exists) {
            consumer.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
        }
        consumer.updateBeginningOffsets(Map.of(partition, 0L));
        consumer.updateEndOffsets(Map.of(partition, (long) records.size()));
        consumer.schedulePollTask(() -> records.forEach(consumer::addRecord));
        return consumer;
    }

    @Override
    public Producer<byte[], byte[]> producer(Map<String, Object> settings) {
        throw new UnsupportedOperationException("the admin's readers never write");
    }

    @Override
    public Admin admin(Map<String, Object> settings) {
        throw new UnsupportedOperationException("the admin's readers need no admin client");
    }
}
