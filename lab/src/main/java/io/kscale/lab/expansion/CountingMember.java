package io.kscale.lab.expansion;

import io.kscale.assignor.ExpansionBarrier;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One member of the counting group: a consumer on its own thread that keeps a count per key in
 * local state (what a stateful consumer would lose when a key moves to another member), reports
 * every record to the group's {@link KeyOrder}, and commits after every poll, so a partition
 * that moves resumes exactly where this member stopped. With kscale's assignor it polls through
 * {@link ExpansionBarrier}, as the README tells users to.
 *
 * <p>It speaks its peer's group protocol ({@link ExpansionPeer#consumerSettings()}). Nothing else
 * here depends on the protocol: no {@code enforceRebalance}, no userData, and the commits (after
 * each poll, and on revocation when a rebalance refused one) work the same under both; under the
 * consumer protocol a member is told of revocations and assignments at its heartbeats, which the
 * same callbacks see.
 */
final class CountingMember implements AutoCloseable {

    private final String id;
    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final Thread thread;
    private final Map<String, Long> counts = new ConcurrentHashMap<>();
    private final Map<String, Long> lastSequence = new ConcurrentHashMap<>();
    private final Set<TopicPartition> owned = ConcurrentHashMap.newKeySet();
    private final Map<String, Set<Long>> received;
    private final KeyOrder order;
    private final Optional<ExpansionBarrier<String, byte[]>> barrier;
    private final AtomicLong rebalances = new AtomicLong();
    private volatile long lastRebalanceNanos = System.nanoTime();
    private volatile boolean assignedOnce;
    private volatile boolean running = true;
    private volatile Throwable failure;

    CountingMember(String id, String topic, String groupId, ExpansionPeer peer, Map<String, Object> consumerProperties,
                   Map<String, Set<Long>> received, KeyOrder order) {
        this.id = id;
        this.topic = topic;
        this.received = received;
        this.order = order;
        Map<String, Object> props = new HashMap<>(consumerProperties);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId + "-" + id);
        props.putAll(peer.consumerSettings());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // Classic: the leader notices an expansion at its next metadata refresh (under the consumer
        // protocol the coordinator notices it itself).
        props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 500);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
        this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        this.barrier = peer.usesBarrier() ? Optional.of(ExpansionBarrier.wrap(consumer)) : Optional.empty();
        this.thread = new Thread(this::consume, "kscale-expansion-" + id);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void consume() {
        try {
            consumer.subscribe(Set.of(topic), new Listener());
            while (running) {
                ConsumerRecords<String, byte[]> records = barrier.isPresent()
                        ? barrier.get().poll(Duration.ofMillis(100)) : consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, byte[]> record : records) {
                    count(record);
                }
                if (!records.isEmpty()) {
                    commit();
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            consumer.close(Duration.ofSeconds(10));
        }
    }

    /**
     * Commits what this member consumed. A rebalance that started meanwhile refuses the commit; the
     * next poll then revokes first, and {@link Listener#onPartitionsRevoked} commits there.
     */
    private void commit() {
        try {
            consumer.commitSync();
        } catch (RebalanceInProgressException e) {
            // committed on revocation instead
        }
    }

    private void count(ConsumerRecord<String, byte[]> record) {
        String key = record.key();
        long sequence = ByteBuffer.wrap(record.value()).getLong();
        counts.merge(key, 1L, Long::sum);
        lastSequence.merge(key, sequence, Math::max);
        received.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(sequence);
        order.delivered(key, sequence);
    }

    String id() {
        return id;
    }

    /** @return records counted per key by this member */
    Map<String, Long> counts() {
        return Map.copyOf(counts);
    }

    /** @return the highest number seen per key by this member */
    Map<String, Long> lastSequences() {
        return Map.copyOf(lastSequence);
    }

    Set<TopicPartition> owned() {
        return Set.copyOf(owned);
    }

    long rebalances() {
        return rebalances.get();
    }

    /** Assigned at least once, and no rebalance callback for a second. */
    boolean isSettled() {
        checkFailure();
        return assignedOnce && System.nanoTime() - lastRebalanceNanos > 1_000_000_000L;
    }

    private void checkFailure() {
        if (failure != null) {
            throw new IllegalStateException("member " + id + " failed: " + failure, failure);
        }
    }

    /** Asks the member to leave the group after its current poll; {@link #close()} waits for it. */
    void stop() {
        running = false;
    }

    @Override
    public void close() {
        running = false;
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final class Listener implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (!partitions.isEmpty()) {
                consumer.commitSync();
            }
            owned.removeAll(partitions);
            touched();
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            owned.addAll(partitions);
            assignedOnce = true;
            rebalances.incrementAndGet();
            touched();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            owned.removeAll(partitions);
            touched();
        }

        private void touched() {
            lastRebalanceNanos = System.nanoTime();
        }
    }
}
