package io.kscale.lab.expansion;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes numbered records for keys {@code key-0 .. key-(n-1)} in turn, at a steady pace, with
 * Kafka's default partitioning ({@code murmur2(key) % partitions}). A record's value is its
 * number within its key (8 bytes), so a consumer can check per-key order and completeness.
 * Idempotent with acks=all and one request in flight, so per-partition order holds across
 * retries. Metadata is refreshed
 * every 500 ms so that new partitions are used soon after an expansion.
 */
final class KeyedSequenceProducer implements AutoCloseable {

    private final String topic;
    private final int keys;
    private final int recordsPerSecond;
    private final KafkaProducer<String, byte[]> producer;
    private final Map<String, AtomicLong> acked = new ConcurrentHashMap<>();
    private final long[] nextSequence;
    private final AtomicLong sent = new AtomicLong();
    private volatile boolean running;
    private volatile Throwable failure;
    private Thread thread;
    private long issued;

    KeyedSequenceProducer(String topic, int keys, int recordsPerSecond, Map<String, Object> clientProperties) {
        this.topic = topic;
        this.keys = keys;
        this.recordsPerSecond = recordsPerSecond;
        this.nextSequence = new long[keys];
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 500);
        // One request in flight per broker. Right after an expansion the first request to a new
        // partition can fail with NOT_LEADER_OR_FOLLOWER while the next one, already in flight,
        // is appended; every retry of the first then gets OUT_OF_ORDER_SEQUENCE_NUMBER until
        // delivery.timeout.ms drops its records (KAFKA-15591; seen here in a CI run: the producer
        // stuck on two new partitions). 2,000 records/s need no pipelining.
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "kscale-expansion-producer");
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
    }

    void start() {
        running = true;
        thread = new Thread(this::produce, "kscale-expansion-producer");
        thread.setDaemon(true);
        thread.start();
    }

    private void produce() {
        long startNanos = System.nanoTime();
        long startIssued = issued;
        try {
            while (running) {
                long due = (System.nanoTime() - startNanos) * recordsPerSecond / 1_000_000_000L;
                if (issued - startIssued >= due) {
                    TimeUnit.MILLISECONDS.sleep(1);
                    continue;
                }
                int key = (int) (issued % keys);
                String name = "key-" + key;
                long sequence = nextSequence[key]++;
                issued++;
                byte[] value = ByteBuffer.allocate(8).putLong(sequence).array();
                producer.send(new ProducerRecord<>(topic, name, value), (metadata, error) -> {
                    if (error != null) {
                        failure = error;
                    } else {
                        acked.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
                        sent.incrementAndGet();
                    }
                });
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    /** Stops sending and waits until every record sent so far is acknowledged. */
    void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.join();
        }
        producer.flush();
        checkFailure();
    }

    void awaitSent(long records) throws InterruptedException {
        ExpansionScenario.await(() -> sent.get() >= records || failure != null, Duration.ofMinutes(2),
                () -> records + " records acknowledged; have " + sent.get());
        checkFailure();
    }

    /** Waits until the producer's metadata shows the new partition count, so it writes to them. */
    void awaitPartitions(int partitions) throws InterruptedException {
        ExpansionScenario.await(() -> producer.partitionsFor(topic).size() >= partitions, Duration.ofSeconds(30),
                () -> "the producer to see " + partitions + " partitions");
    }

    long sent() {
        return sent.get();
    }

    Map<String, Long> sentPerKey() {
        Map<String, Long> perKey = new HashMap<>();
        acked.forEach((key, count) -> perKey.put(key, count.get()));
        return perKey;
    }

    private void checkFailure() {
        if (failure != null) {
            throw new IllegalStateException("the producer failed: " + failure, failure);
        }
    }

    @Override
    public void close() {
        running = false;
        producer.close(Duration.ofSeconds(10));
    }
}
