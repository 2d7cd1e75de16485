package io.kscale.lab.partitioner;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One throttled producer run: unkeyed records of a fixed size sent at a fixed byte rate for a
 * fixed time, counting what each partition received and how long each send took to be acked.
 *
 * <p>It uses only JDK classes and the producer API that kafka-clients 3.9 and 4.x share, so the
 * same class runs in this JVM (Kafka 4.4 peers) and in a child JVM on kafka-clients 3.9.1 for
 * the KIP-480 sticky partitioner, which 4.0 removed ({@link #main}). Results travel between the
 * two as {@code key=value} lines.
 */
public final class ThrottledProducerRun {

    /** The producer metrics a run reports (group producer-metrics). */
    static final List<String> METRICS = List.of(
            "batch-size-avg", "record-size-avg", "records-per-request-avg", "request-latency-avg",
            "record-queue-time-avg");

    private ThrottledProducerRun() {
    }

    /**
     * Sends {@code recordSize}-byte values with no key to {@code topic} at {@code bytesPerSecond}
     * for {@code duration}, then flushes and returns what was acked.
     */
    public static Result run(Map<String, Object> producerProps, String topic, int partitions, int recordSize,
            long bytesPerSecond, Duration duration, long seed) {
        Map<String, Object> props = new HashMap<>(producerProps);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        long intervalNanos = Math.max(1, TimeUnit.SECONDS.toNanos(1) * recordSize / bytesPerSecond);
        int expected = (int) Math.min(Integer.MAX_VALUE - 16, duration.toNanos() / intervalNanos + 16);
        long[] latencies = new long[expected];
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long[] records = new long[partitions];
        long[] bytes = new long[partitions];
        byte[] value = new byte[recordSize];
        new Random(seed).nextBytes(value);

        long start;
        long sent = 0;
        Map<String, Double> metrics;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            start = System.nanoTime();
            long end = start + duration.toNanos();
            long next = start;
            while (next < end && sent < expected) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                    continue;
                }
                final int index = (int) sent;
                final long sentAt = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, value), (metadata, error) -> {
                    if (error != null) {
                        failed.incrementAndGet();
                        return;
                    }
                    latencies[index] = System.nanoTime() - sentAt;
                    synchronized (records) {
                        records[metadata.partition()]++;
                        bytes[metadata.partition()] += metadata.serializedValueSize();
                    }
                    acked.incrementAndGet();
                });
                sent++;
                next += intervalNanos;
            }
            producer.flush();
            metrics = producerMetrics(producer.metrics());
        }
        long elapsed = System.nanoTime() - start;
        long[] ackedLatencies = Arrays.stream(latencies, 0, (int) sent).filter(l -> l > 0).sorted().toArray();
        synchronized (records) {
            return new Result(records.clone(), bytes.clone(), acked.get(), failed.get(), elapsed,
                    percentile(ackedLatencies, 0.50), percentile(ackedLatencies, 0.99), metrics);
        }
    }

    private static Map<String, Double> producerMetrics(Map<MetricName, ? extends Metric> all) {
        Map<String, Double> values = new LinkedHashMap<>();
        for (Map.Entry<MetricName, ? extends Metric> e : all.entrySet()) {
            MetricName name = e.getKey();
            if ("producer-metrics".equals(name.group()) && METRICS.contains(name.name())) {
                Object value = e.getValue().metricValue();
                if (value instanceof Number) {
                    values.put(name.name(), ((Number) value).doubleValue());
                }
            }
        }
        return values;
    }

    private static long percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
    }

    /**
     * Child-JVM entry point: {@code <producer.properties> <topic> <partitions> <recordSize>
     * <bytesPerSecond> <durationMillis> <seed>}; prints the result as {@code key=value} lines.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 7) {
            throw new IllegalArgumentException("usage: ThrottledProducerRun <producer.properties> <topic> <partitions>"
                    + " <recordSize> <bytesPerSecond> <durationMillis> <seed>");
        }
        Properties properties = new Properties();
        try (InputStream in = new FileInputStream(args[0])) {
            properties.load(in);
        }
        Map<String, Object> props = new HashMap<>();
        properties.stringPropertyNames().forEach(k -> props.put(k, properties.getProperty(k)));
        Result result = run(props, args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                Long.parseLong(args[4]), Duration.ofMillis(Long.parseLong(args[5])), Long.parseLong(args[6]));
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8.name());
        result.toLines().forEach(out::println);
    }

    /** What one run acked, per partition, and how fast. */
    public static final class Result {
        final long[] records;
        final long[] bytes;
        final long acked;
        final long failed;
        final long elapsedNanos;
        final long p50LatencyNanos;
        final long p99LatencyNanos;
        final Map<String, Double> metrics;

        Result(long[] records, long[] bytes, long acked, long failed, long elapsedNanos, long p50LatencyNanos,
                long p99LatencyNanos, Map<String, Double> metrics) {
            this.records = records;
            this.bytes = bytes;
            this.acked = acked;
            this.failed = failed;
            this.elapsedNanos = elapsedNanos;
            this.p50LatencyNanos = p50LatencyNanos;
            this.p99LatencyNanos = p99LatencyNanos;
            this.metrics = metrics;
        }

        List<String> toLines() {
            List<String> lines = new ArrayList<>();
            lines.add("records=" + join(records));
            lines.add("bytes=" + join(bytes));
            lines.add("acked=" + acked);
            lines.add("failed=" + failed);
            lines.add("elapsedNanos=" + elapsedNanos);
            lines.add("p50LatencyNanos=" + p50LatencyNanos);
            lines.add("p99LatencyNanos=" + p99LatencyNanos);
            metrics.forEach((k, v) -> lines.add("metric." + k + "=" + v));
            return lines;
        }

        /** Parses {@link #toLines()} output; other lines (logging) are skipped. */
        static Result fromLines(List<String> lines) {
            Map<String, String> values = new LinkedHashMap<>();
            for (String line : lines) {
                int eq = line.indexOf('=');
                if (eq > 0 && line.indexOf(' ') < 0) {
                    values.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            Map<String, Double> metrics = new LinkedHashMap<>();
            values.forEach((k, v) -> {
                if (k.startsWith("metric.")) {
                    metrics.put(k.substring("metric.".length()), Double.parseDouble(v));
                }
            });
            return new Result(split(required(values, "records")), split(required(values, "bytes")),
                    Long.parseLong(required(values, "acked")), Long.parseLong(required(values, "failed")),
                    Long.parseLong(required(values, "elapsedNanos")), Long.parseLong(required(values, "p50LatencyNanos")),
                    Long.parseLong(required(values, "p99LatencyNanos")), metrics);
        }

        private static String required(Map<String, String> values, String key) {
            String value = values.get(key);
            if (value == null) {
                throw new IllegalArgumentException("producer run output lacks '" + key + "'");
            }
            return value;
        }

        private static String join(long[] values) {
            StringBuilder text = new StringBuilder();
            for (long v : values) {
                text.append(text.length() == 0 ? "" : ",").append(v);
            }
            return text.toString();
        }

        private static long[] split(String text) {
            return Arrays.stream(text.split(",")).mapToLong(Long::parseLong).toArray();
        }
    }
}
