package io.kscale.assignor.internals.store;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.internals.KafkaFutureImpl;

/**
 * A mocked cluster for {@link TaskCountTopicReader}: topic names resolved to ids by a proxied
 * admin client, and the task count topic a {@link MockConsumer}'s partition that {@link #record}
 * appends to as a broker's write would.
 */
public final class MockTaskCountTopic {

    public static final String TOPIC = "kscale-task-counts";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);

    private final Map<String, Uuid> topicIds = new ConcurrentHashMap<>();
    private final AtomicInteger describeCalls = new AtomicInteger();
    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private long nextOffset;

    public MockTaskCountTopic() {
        consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
        consumer.updateEndOffsets(Map.of(PARTITION, 0L));
    }

    /** Creates a topic (a new id), or re-creates it under a new id. */
    public Uuid createTopic(String name) {
        Uuid id = Uuid.randomUuid();
        topicIds.put(name, id);
        return id;
    }

    /** Appends a broker's record of the topic's T. */
    public void record(String topic, int taskCount) {
        record(topicIds.get(topic), new TaskCountRecord(taskCount, taskCount, 1, "broker 1").value());
    }

    /** Appends a record with any value, and moves the topic's end offset past it. */
    public synchronized void record(Uuid topicId, byte[] value) {
        long offset = nextOffset++;
        byte[] key = TaskCountRecord.key(topicId);
        consumer.schedulePollTask(() -> consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, offset, key, value)));
        consumer.updateEndOffsets(Map.of(PARTITION, offset + 1));
    }

    /** @return how often the admin client was asked to describe topics */
    public int describeCalls() {
        return describeCalls.get();
    }

    /** @return clients of this cluster; the consumer's and admin's settings are checked by {@code settingsCheck} */
    public StoreClients clients(java.util.function.Consumer<Map<String, Object>> settingsCheck) {
        return new StoreClients() {
            @Override
            public Consumer<byte[], byte[]> consumer(Map<String, Object> settings) {
                settingsCheck.accept(settings);
                return consumer;
            }

            @Override
            public Producer<byte[], byte[]> producer(Map<String, Object> settings) {
                throw new AssertionError("the reader never writes");
            }

            @Override
            public Admin admin(Map<String, Object> settings) {
                settingsCheck.accept(settings);
                return (Admin) Proxy.newProxyInstance(Admin.class.getClassLoader(), new Class<?>[] {Admin.class},
                        (proxy, method, args) -> {
                            switch (method.getName()) {
                                case "describeTopics":
                                    describeCalls.incrementAndGet();
                                    @SuppressWarnings("unchecked")
                                    Iterable<String> names = (Iterable<String>) args[0];
                                    return described(names);
                                case "close":
                                    return null;
                                default:
                                    throw new UnsupportedOperationException(method.getName());
                            }
                        });
            }
        };
    }

    private DescribeTopicsResult described(Iterable<String> names) {
        Map<String, KafkaFuture<TopicDescription>> described = new HashMap<>();
        for (String name : names) {
            KafkaFutureImpl<TopicDescription> description = new KafkaFutureImpl<>();
            Uuid id = topicIds.get(name);
            if (id == null) {
                description.completeExceptionally(new UnknownTopicOrPartitionException(name));
            } else {
                description.complete(new TopicDescription(name, false, List.of(), Set.of(), id));
            }
            described.put(name, description);
        }
        return new DescribeTopicsResult(null, described) { };
    }
}
