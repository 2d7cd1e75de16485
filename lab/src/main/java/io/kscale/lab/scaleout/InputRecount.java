package io.kscale.lab.scaleout;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The aggregation recomputed from the input topic itself: a plain consumer (no group) reads every
 * partition from the beginning to its end offset and counts the records per key. What the
 * application's stores must hold, whatever happened to its instances.
 */
final class InputRecount {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private InputRecount() {
    }

    /**
     * @param clientProperties connection settings of the cluster
     * @param topic the input topic
     * @param partitions its partition count
     * @return records per key
     * @throws IllegalStateException if the topic cannot be read to its end within 60 s
     */
    static Map<String, Long> countPerKey(Map<String, Object> clientProperties, String topic, int partitions) {
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000);
        Map<String, Long> counts = new HashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> all = IntStream.range(0, partitions).mapToObj(p -> new TopicPartition(topic, p))
                    .collect(Collectors.toList());
            consumer.assign(all);
            consumer.seekToBeginning(all);
            Map<TopicPartition, Long> ends = consumer.endOffsets(all, TIMEOUT);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (all.stream().anyMatch(tp -> consumer.position(tp, TIMEOUT) < ends.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end within " + TIMEOUT);
                }
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.offset() < ends.get(new TopicPartition(record.topic(), record.partition()))) {
                        counts.merge(record.key(), 1L, Long::sum);
                    }
                }
            }
        }
        return counts;
    }
}
