package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.it.support.RealKafkaCluster;
import io.kscale.it.support.Topics;
import io.kscale.lab.cluster.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The latency proxy slows one broker's clients and no other's. No absolute wall-clock bound is
 * asserted except the one the proxy guarantees by construction (no response of the slowed
 * broker arrives sooner than the delay); the rest compares partitions measured side by side.
 */
@RealKafkaCluster(brokers = 3)
class LatencyProxyIT {

    private static final Duration DELAY = Duration.ofMillis(80);
    private static final int ROUNDS = 25;

    @Test
    void shouldDelayOnlyTheSlowedBrokersProduceResponses(KafkaCluster cluster) throws Exception {
        String topic = "latency";
        // Partition i has its only replica, hence its leader, on broker i.
        Map<Integer, List<Integer>> assignment = Map.of(0, List.of(0), 1, List.of(1), 2, List.of(2));
        Topics.create(cluster, new NewTopic(topic, assignment));

        Map<String, Object> props = new HashMap<>(ClusterFaultsIT.producerProps(cluster));
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        List<List<Long>> latencies = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int p = 0; p < 3; p++) {
                producer.send(new ProducerRecord<>(topic, p, "warmup", "x")).get();
            }
            cluster.setLatency(0, DELAY);
            for (int round = 0; round < ROUNDS; round++) {
                for (int p = 0; p < 3; p++) {
                    long start = System.nanoTime();
                    producer.send(new ProducerRecord<>(topic, p, "k", "round-" + round)).get();
                    latencies.get(p).add(System.nanoTime() - start);
                }
            }
        } finally {
            cluster.setLatency(0, Duration.ZERO);
        }

        assertThat(Collections.min(latencies.get(0))).as("fastest produce to the slowed broker")
                .isGreaterThanOrEqualTo(DELAY.toNanos());
        long slowedMedian = median(latencies.get(0));
        assertThat(slowedMedian).as("median produce latency of the slowed broker vs the others")
                .isGreaterThan(median(latencies.get(1)))
                .isGreaterThan(median(latencies.get(2)));
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
