package io.kscale.lab.scaleout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes the scenario's records: record {@code n} has key {@code key-(n % keys)} and a value of
 * {@code valueBytes} bytes, the number {@code n} then fixed filler. First a preload as fast as the
 * cluster takes it, then a steady pace on its own thread. Counts acknowledged records per key, the
 * expected counts of the application.
 */
final class PayloadProducer implements AutoCloseable {

    private final KafkaProducer<String, byte[]> producer;
    private final String topic;
    private final int keys;
    private final byte[] filler;
    private final AtomicLongArray acked;
    private final AtomicLong ackedTotal = new AtomicLong();
    private long issued;
    private volatile boolean running;
    private volatile Throwable failure;
    private Thread thread;

    PayloadProducer(String topic, int keys, int valueBytes, String clientId, Map<String, Object> clientProperties) {
        this.topic = topic;
        this.keys = keys;
        this.acked = new AtomicLongArray(keys);
        this.filler = new byte[valueBytes - 8];
        new Random(42).nextBytes(filler);
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 128 * 1024);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        // One request in flight per broker: a first request to a new topic can fail with
        // NOT_LEADER_OR_FOLLOWER while the next one is appended, and every retry of the first then
        // gets OUT_OF_ORDER_SEQUENCE_NUMBER until delivery.timeout.ms (KAFKA-15591; seen here on a
        // preload right after the topic was created, as in the expansion scenario).
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        this.producer = new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
    }

    /** Sends {@code records} records as fast as they are taken and waits for every acknowledgement. */
    void preload(long records) {
        for (long i = 0; i < records; i++) {
            send();
        }
        producer.flush();
        checkFailure();
    }

    /** Starts sending at {@code recordsPerSecond} on a thread of its own, until {@link #stop()}. */
    void startSteady(int recordsPerSecond) {
        running = true;
        thread = new Thread(() -> steady(recordsPerSecond), "kscale-scale-out-producer-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    private void steady(int recordsPerSecond) {
        long startNanos = System.nanoTime();
        long startIssued = issued;
        try {
            while (running) {
                long due = (System.nanoTime() - startNanos) * recordsPerSecond / 1_000_000_000L;
                if (issued - startIssued >= due) {
                    TimeUnit.MILLISECONDS.sleep(1);
                    continue;
                }
                send();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure = e;
        }
    }

    private void send() {
        long number = issued++;
        int key = (int) (number % keys);
        byte[] value = ByteBuffer.allocate(filler.length + 8).putLong(number).put(filler).array();
        producer.send(new ProducerRecord<>(topic, "key-" + key, value), (metadata, error) -> {
            if (error != null) {
                failure = error;
            } else {
                acked.incrementAndGet(key);
                ackedTotal.incrementAndGet();
            }
        });
    }

    /** Stops the steady sending and waits until every record sent is acknowledged. */
    void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.join();
        }
        producer.flush();
        checkFailure();
    }

    long acked() {
        return ackedTotal.get();
    }

    /** @return records acknowledged per key, by key name */
    Map<String, Long> ackedPerKey() {
        Map<String, Long> perKey = new HashMap<>();
        for (int key = 0; key < keys; key++) {
            long count = acked.get(key);
            if (count > 0) {
                perKey.put("key-" + key, count);
            }
        }
        return perKey;
    }

    private void checkFailure() {
        if (failure != null) {
            throw new IllegalStateException("the producer to " + topic + " failed: " + failure, failure);
        }
    }

    @Override
    public void close() {
        running = false;
        producer.close(Duration.ofSeconds(10));
    }
}
