package io.kscale.it.stateful;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes records with random keys (seeded) to the input topic, Kafka's default partitioning: a
 * preload as fast as the broker takes it, then a steady rate on a thread of its own.
 */
final class KeyedLoad implements AutoCloseable {

    private final String topic;
    private final int keys;
    private final Random random;
    private final KafkaProducer<String, String> producer;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private volatile boolean running;
    private Thread thread;

    KeyedLoad(String topic, int keys, long seed, Map<String, Object> clientProperties) {
        this.topic = topic;
        this.keys = keys;
        this.random = new Random(seed);
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, topic + "-load");
        // One request in flight: on a topic created a moment ago the first batch of a partition
        // can fail with NOT_LEADER_OR_FOLLOWER while the next one is accepted, and the retried
        // first batch then fails with OUT_OF_ORDER_SEQUENCE_NUMBER until delivery.timeout.ms
        // (KAFKA-14359; CI run of 2026-12-02: 985 records expired after 120 s).
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** Writes {@code records} records and waits for their acknowledgement. */
    void preload(int records) {
        for (int i = 0; i < records; i++) {
            send();
        }
        producer.flush();
    }

    /** Writes {@code perSecond} records a second until {@link #stop}. */
    void startSteady(int perSecond) {
        running = true;
        thread = new Thread(() -> {
            long start = System.nanoTime();
            long sent = 0;
            try {
                while (running) {
                    long due = (System.nanoTime() - start) * perSecond / 1_000_000_000L;
                    for (; sent < due; sent++) {
                        send();
                    }
                    TimeUnit.MILLISECONDS.sleep(10);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, topic + "-load");
        thread.start();
    }

    /** Stops the steady writes and waits until every record sent is acknowledged. */
    void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.join();
        }
        producer.flush();
        if (failure.get() != null) {
            throw new IllegalStateException("a record could not be written", failure.get());
        }
    }

    long acked() {
        return acked.get();
    }

    private void send() {
        String key = "key-" + random.nextInt(keys);
        producer.send(new ProducerRecord<>(topic, key, "x"), (metadata, e) -> {
            if (e == null) {
                acked.incrementAndGet();
            } else {
                failure.compareAndSet(null, e);
            }
        });
    }

    @Override
    public void close() {
        running = false;
        producer.close(Duration.ofSeconds(10));
    }
}
