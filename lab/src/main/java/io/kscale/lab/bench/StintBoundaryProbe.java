package io.kscale.lab.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A measurement harness for issue 19: how partitioners cut the sender's batches. Sends unkeyed
 * records of a fixed size to a topic of 30 partitions (10 led by each of 3 brokers) at a fixed
 * record rate, paced the way Kafka's {@code ProducerPerformance} paces (records back to back while
 * behind schedule, a sleep once 2 ms of lead have built up), and prints per run: records per request
 * (producer metric and per broker), batch-size-avg, ack latency, and where partition changes fall
 * relative to the bursts of that pacing.
 *
 * <p>Run against a cluster of {@code kscale-lab cluster --brokers 3}:
 * <pre>{@code
 * java -cp lab/target/kscale-lab.jar io.kscale.lab.bench.StintBoundaryProbe \
 *     BOOTSTRAP LINGER_MS RATE SECONDS ROUNDS kscale,built-in,round-robin
 * }</pre>
 * Each partitioner writes to a topic of its own, created fresh per run; partitioners alternate.
 */
public final class StintBoundaryProbe {

    private static final int PARTITIONS = 30;
    private static final int RECORD_SIZE = 512;
    /** ProducerPerformance's throttle sleeps only once it is this far ahead of schedule. */
    private static final int FULL_SPEED_RECORDS = 4_000_000;
    private static final long MIN_SLEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private StintBoundaryProbe() {
    }

    /**
     * Runs the probe; see the class comment for the arguments.
     *
     * @param args bootstrap, linger.ms, records per second, seconds per run, rounds, partitioners
     * @throws Exception if the cluster fails
     */
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        int lingerMs = Integer.parseInt(args[1]);
        int rate = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int rounds = Integer.parseInt(args[4]);
        String[] partitioners = args[5].split(",");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            List<Integer> brokers = new ArrayList<>();
            for (Node node : admin.describeCluster().nodes().get()) {
                brokers.add(node.id());
            }
            brokers.sort(null);
            for (int round = 1; round <= rounds; round++) {
                for (String partitioner : partitioners) {
                    String topic = "probe-" + partitioner + "-l" + lingerMs + "-r" + rate + "-" + round + "-"
                            + System.nanoTime() % 100000;
                    Map<Integer, List<Integer>> replicas = new HashMap<>();
                    for (int p = 0; p < PARTITIONS; p++) {
                        replicas.put(p, List.of(brokers.get(p % brokers.size())));
                    }
                    admin.createTopics(List.of(new NewTopic(topic, replicas))).all().get();
                    Thread.sleep(1000);
                    run(bootstrap, topic, partitioner, lingerMs, rate, seconds, round, brokers);
                    admin.deleteTopics(Set.of(topic)).all().get();
                }
            }
        }
    }

    private static void run(String bootstrap, String topic, String partitioner, int lingerMs, int rate, int seconds,
            int round, List<Integer> brokers) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        switch (partitioner) {
            case "kscale":
                props.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, "io.kscale.partitioner.UniformStickyBytesPartitioner");
                break;
            case "round-robin":
                props.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, "org.apache.kafka.clients.producer.RoundRobinPartitioner");
                break;
            case "built-in":
                break;
            default:
                throw new IllegalArgumentException("partitioner: kscale, built-in or round-robin, not " + partitioner);
        }
        // Rate 0: full speed, no pacing; the arrays then hold the first FULL_SPEED_RECORDS records.
        int expected = rate == 0 ? FULL_SPEED_RECORDS : rate * seconds + 16;
        int[] partitionOf = new int[expected];
        byte[] burstStart = new byte[expected];
        long[] latency = new long[expected];
        AtomicLong failed = new AtomicLong();
        byte[] value = new byte[RECORD_SIZE];
        long intervalNanos = rate == 0 ? 0 : TimeUnit.SECONDS.toNanos(1) / rate;
        int sent = 0;
        long start;
        long end;
        Map<MetricName, ? extends Metric> metrics;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            producer.partitionsFor(topic);
            start = System.nanoTime();
            long deadline = start + TimeUnit.SECONDS.toNanos(seconds);
            long deficit = 0;
            boolean afterSleep = true;
            while (sent < expected - 16) {
                long now = System.nanoTime();
                if (now >= deadline) {
                    break;
                }
                int seq = sent++;
                burstStart[seq] = (byte) (afterSleep ? 1 : 0);
                afterSleep = false;
                long sentAt = now;
                producer.send(new ProducerRecord<>(topic, value), (metadata, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                        partitionOf[seq] = -1;
                    } else {
                        partitionOf[seq] = metadata.partition();
                        latency[seq] = System.nanoTime() - sentAt;
                    }
                });
                // Ahead of schedule: build up a sleep, take it once it reaches 2 ms (bursts).
                long elapsed = System.nanoTime() - start;
                if ((long) sent * intervalNanos > elapsed) {
                    deficit += intervalNanos;
                    if (deficit >= MIN_SLEEP_NANOS) {
                        sleepNanos(deficit);
                        deficit = 0;
                        afterSleep = true;
                    }
                }
            }
            producer.flush();
            end = System.nanoTime();
            metrics = new HashMap<>(producer.metrics());
        }
        print(partitioner, lingerMs, rate, round, sent, failed.get(), partitionOf, burstStart, latency, metrics,
                brokers, (end - start) / 1e9);
    }

    private static void print(String partitioner, int lingerMs, int rate, int round, int sent, long failed,
            int[] partitionOf, byte[] burstStart, long[] latency, Map<MetricName, ? extends Metric> metrics,
            List<Integer> brokers, double seconds) {
        int switches = 0;
        int switchesAtBurstStart = 0;
        int switchesAcrossBrokers = 0;
        int bursts = 0;
        long[] recordsPerBroker = new long[brokers.size()];
        for (int i = 0; i < sent; i++) {
            if (burstStart[i] == 1) {
                bursts++;
            }
            if (partitionOf[i] >= 0) {
                recordsPerBroker[partitionOf[i] % brokers.size()]++;
            }
            if (i > 0 && partitionOf[i] != partitionOf[i - 1] && partitionOf[i] >= 0 && partitionOf[i - 1] >= 0) {
                switches++;
                if (burstStart[i] == 1) {
                    switchesAtBurstStart++;
                }
                if (partitionOf[i] % brokers.size() != partitionOf[i - 1] % brokers.size()) {
                    switchesAcrossBrokers++;
                }
            }
        }
        long[] sorted = java.util.Arrays.copyOf(latency, sent);
        java.util.Arrays.sort(sorted);
        double avgLatencyMs = java.util.Arrays.stream(sorted).average().orElse(0) / 1e6;
        double p99LatencyMs = sent == 0 ? 0 : sorted[(int) Math.min(sent - 1, Math.ceil(sent * 0.99) - 1)] / 1e6;
        StringBuilder perBroker = new StringBuilder();
        for (int b = 0; b < brokers.size(); b++) {
            double requests = metric(metrics, "producer-node-metrics", "request-total",
                    "node-id", "node-" + brokers.get(b)).orElse(Double.NaN);
            perBroker.append(String.format(Locale.ROOT, " b%d=%.2f", brokers.get(b), recordsPerBroker[b] / requests));
        }
        System.out.printf(Locale.ROOT,
                "RESULT %-11s linger=%d rate=%d round=%d sent=%d failed=%d rec/s=%.0f records-per-request-avg=%.2f"
                        + " batch-size-avg=%.0f latency-avg=%.2fms p99=%.2fms switches=%d at-burst-start=%d"
                        + " across-brokers=%d bursts=%d records-per-request-per-broker(approx):%s%n",
                partitioner, lingerMs, rate, round, sent, failed, sent / seconds,
                metric(metrics, "producer-metrics", "records-per-request-avg", null, null).orElse(Double.NaN),
                metric(metrics, "producer-metrics", "batch-size-avg", null, null).orElse(Double.NaN),
                avgLatencyMs, p99LatencyMs, switches, switchesAtBurstStart, switchesAcrossBrokers, bursts, perBroker);
    }

    private static Optional<Double> metric(Map<MetricName, ? extends Metric> metrics, String group, String name,
            String tag, String tagValue) {
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            MetricName metricName = e.getKey();
            if (metricName.group().equals(group) && metricName.name().equals(name)
                    && (tag == null || tagValue.equals(metricName.tags().get(tag)))) {
                Object value = e.getValue().metricValue();
                if (value instanceof Number) {
                    return Optional.of(((Number) value).doubleValue());
                }
            }
        }
        return Optional.empty();
    }

    private static void sleepNanos(long nanos) {
        try {
            Thread.sleep(Duration.ofNanos(nanos).toMillis(), (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
