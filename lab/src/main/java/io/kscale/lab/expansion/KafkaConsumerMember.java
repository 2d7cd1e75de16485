package io.kscale.lab.expansion;

import io.kscale.assignor.ExpansionBarrier;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.CommitFailedException;
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
 * A member of the counting group on Java's {@code KafkaConsumer}, on its own thread: it counts
 * what it polls ({@link CountingMember}) and commits after every poll, so a partition that moves
 * resumes exactly where this member stopped. With kscale's assignor it polls through
 * {@link ExpansionBarrier}, as the README tells users to.
 *
 * <p>It speaks its peer's group protocol ({@link ExpansionPeer#consumerSettings()}). Nothing else
 * here depends on the protocol: no {@code enforceRebalance}, no userData, and the commits (after
 * each poll, and on revocation when a rebalance refused one) work the same under both; under the
 * consumer protocol a member is told of revocations and assignments at its heartbeats, which the
 * same callbacks see.
 */
final class KafkaConsumerMember extends CountingMember {

    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final Thread thread;
    private final Optional<ExpansionBarrier<String, byte[]>> barrier;
    private volatile boolean running = true;

    KafkaConsumerMember(String id, String topic, String groupId, ExpansionPeer peer,
                        Map<String, Object> consumerProperties, Map<String, Set<Long>> received, KeyOrder order,
                        OwnershipTimeline timeline) {
        super(id, received, order, timeline);
        this.topic = topic;
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
        // The consumer's own settings: on group.protocol=consumer the barrier reads T with them.
        this.barrier = peer.usesBarrier() ? Optional.of(ExpansionBarrier.wrap(consumer, props)) : Optional.empty();
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
                    count(record.key(), ByteBuffer.wrap(record.value()).getLong());
                }
                if (!records.isEmpty()) {
                    commit();
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            failed(e);
        } finally {
            consumer.close(Duration.ofSeconds(10));
        }
    }

    /**
     * Commits what this member consumed. A rebalance that started meanwhile refuses the commit; the
     * next poll then revokes first, and {@link Listener#onPartitionsRevoked} commits there. Under
     * the consumer protocol, a broker without KIP-1251's assignment epochs (seen on Kafka 4.0.2 to
     * 4.2.2) also refuses a commit that carries the member epoch its coordinator has just replaced
     * ({@code CommitFailedException}, "stale member epoch"); the commit after the next poll, or on
     * revocation, carries the new epoch.
     */
    private void commit() {
        try {
            consumer.commitSync();
        } catch (RebalanceInProgressException | CommitFailedException e) {
            // committed after the next poll or on revocation instead
        }
    }

    /** Asks the member to leave the group after its current poll; {@link #close()} waits for it. */
    @Override
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
            released(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            assigned(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            released(partitions);
        }
    }
}
