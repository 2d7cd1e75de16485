package io.kscale.lab.batching;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One producer run of the batching scenario: unkeyed records of a fixed, seeded content sent on a
 * {@link SendSchedule} for a fixed time, then flushed. It measures each send from the
 * {@code send()} call to its callback, counts acked records per broker (from the partition's
 * leader) and reads the producer's own batching metrics and produce requests per broker.
 */
final class PacedProducerRun {

    private PacedProducerRun() {
    }

    /**
     * @param producerProps the peer's producer settings (serializers are set here)
     * @param leaders the leader's broker id of each partition of {@code topic}
     * @param brokers how many brokers there are (ids 0 to brokers - 1)
     */
    static Result run(Map<String, Object> producerProps, String topic, int[] leaders, int brokers,
            SendSchedule schedule, Duration duration, int recordSize, long seed) {
        Map<String, Object> props = new HashMap<>(producerProps);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        // The producer's averages are windowed (2 windows of 30 s by default): one window longer
        // than the run makes them cover all of it.
        props.put(ProducerConfig.METRICS_SAMPLE_WINDOW_MS_CONFIG, duration.plusMinutes(1).toMillis());
        byte[] value = new byte[recordSize];
        new Random(seed).nextBytes(value);
        // Written by the producer's I/O thread only, which runs every callback; read after close().
        Acks acks = new Acks(leaders, brokers);
        Pacer pacer;
        long sent = 0;
        long elapsed;
        Map<String, Double> metrics;
        long[] requests;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            pacer = new Pacer(schedule, Ticker.SYSTEM);
            long stopAt = duration.toNanos();
            while (pacer.elapsedNanos() < stopAt) {
                pacer.awaitTurn(sent);
                long sentAt = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, value), (metadata, error) -> acks.record(
                        error == null ? metadata.partition() : -1, System.nanoTime() - sentAt));
                sent++;
            }
            producer.flush();
            elapsed = pacer.elapsedNanos();
            metrics = producerMetrics(producer.metrics());
            requests = requestsPerBroker(producer.metrics(), brokers);
        }
        return acks.result(elapsed, metrics, requests);
    }

    private static Map<String, Double> producerMetrics(Map<MetricName, ? extends Metric> all) {
        Map<String, Double> values = new HashMap<>();
        all.forEach((name, metric) -> {
            if ("producer-metrics".equals(name.group()) && metric.metricValue() instanceof Number) {
                values.put(name.name(), ((Number) metric.metricValue()).doubleValue());
            }
        });
        return values;
    }

    /** Requests sent to each broker (metric request-total of group producer-node-metrics, tag node-id=node-N). */
    private static long[] requestsPerBroker(Map<MetricName, ? extends Metric> all, int brokers) {
        long[] requests = new long[brokers];
        all.forEach((name, metric) -> {
            String node = name.tags().get("node-id");
            if ("producer-node-metrics".equals(name.group()) && "request-total".equals(name.name())
                    && node != null && node.matches("node-[0-9]+")) {
                int id = Integer.parseInt(node.substring("node-".length()));
                if (id < brokers && metric.metricValue() instanceof Number) {
                    requests[id] = ((Number) metric.metricValue()).longValue();
                }
            }
        });
        return requests;
    }

    /** What the callbacks saw: per-broker counts and every acked send's latency. */
    private static final class Acks {
        private final int[] leaders;
        private final long[] recordsPerBroker;
        private long[] latencies = new long[1 << 16];
        private int acked;
        private long failed;

        Acks(int[] leaders, int brokers) {
            this.leaders = leaders;
            this.recordsPerBroker = new long[brokers];
        }

        void record(int partition, long latencyNanos) {
            if (partition < 0) {
                failed++;
                return;
            }
            if (partition < leaders.length) {
                recordsPerBroker[leaders[partition]]++;
            }
            if (acked == latencies.length) {
                latencies = Arrays.copyOf(latencies, latencies.length * 2);
            }
            latencies[acked++] = latencyNanos;
        }

        Result result(long elapsedNanos, Map<String, Double> metrics, long[] requestsPerBroker) {
            long[] sorted = Arrays.copyOf(latencies, acked);
            Arrays.sort(sorted);
            double avg = Arrays.stream(sorted).average().orElse(0);
            long p99 = sorted.length == 0 ? 0 : sorted[(int) Math.ceil(0.99 * sorted.length) - 1];
            return new Result(acked, failed, elapsedNanos, (long) avg, p99,
                    metrics.getOrDefault("records-per-request-avg", Double.NaN),
                    metrics.getOrDefault("batch-size-avg", Double.NaN), recordsPerBroker.clone(), requestsPerBroker);
        }
    }

    /** What one run acked, how fast, and how it batched. */
    static final class Result {
        final long acked;
        final long failed;
        final long elapsedNanos;
        final long avgLatencyNanos;
        final long p99LatencyNanos;
        final double recordsPerRequest;
        final double batchSizeAvg;
        final long[] recordsPerBroker;
        final long[] requestsPerBroker;

        Result(long acked, long failed, long elapsedNanos, long avgLatencyNanos, long p99LatencyNanos,
                double recordsPerRequest, double batchSizeAvg, long[] recordsPerBroker, long[] requestsPerBroker) {
            this.acked = acked;
            this.failed = failed;
            this.elapsedNanos = elapsedNanos;
            this.avgLatencyNanos = avgLatencyNanos;
            this.p99LatencyNanos = p99LatencyNanos;
            this.recordsPerRequest = recordsPerRequest;
            this.batchSizeAvg = batchSizeAvg;
            this.recordsPerBroker = recordsPerBroker;
            this.requestsPerBroker = requestsPerBroker;
        }
    }
}
