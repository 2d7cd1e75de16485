package io.kscale.it.stateful;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** The counts a member should hold, recomputed from the whole input topic. */
final class InputCounts {

    private InputCounts() {
    }

    static Map<String, Long> read(StatefulTopics topics, Map<String, Object> clientProperties) {
        List<TopicPartition> partitions = IntStream.range(0, topics.tasks())
                .mapToObj(p -> new TopicPartition(topics.input(), p)).collect(Collectors.toList());
        Map<String, Long> counts = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(new HashMap<>(clientProperties),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    counts.merge(record.key(), 1L, Long::sum);
                }
            }
        }
        return counts;
    }
}
