package io.kscale.lab.expansion;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;

/**
 * One member of the counting group, whatever client it runs: it keeps a count per key in local
 * state (what a stateful consumer would lose when a key moves to another member), reports every
 * record to the group's {@link KeyOrder} and to the record of what any member received, and keeps
 * the partitions it owns as its client's rebalance callbacks report them, in the group's
 * {@link OwnershipTimeline} too. Subclasses run the
 * client: Java's {@code KafkaConsumer} on a thread ({@link KafkaConsumerMember}), or another
 * client in a child process ({@link ProcessMember}).
 */
abstract class CountingMember implements AutoCloseable {

    private final String id;
    private final Map<String, Long> counts = new ConcurrentHashMap<>();
    private final Map<String, Long> lastSequence = new ConcurrentHashMap<>();
    private final Set<TopicPartition> owned = ConcurrentHashMap.newKeySet();
    private final Map<String, Set<Long>> received;
    private final KeyOrder order;
    private final OwnershipTimeline timeline;
    private final AtomicLong rebalances = new AtomicLong();
    private volatile long lastRebalanceNanos = System.nanoTime();
    private volatile boolean assignedOnce;
    private volatile Throwable failure;

    CountingMember(String id, Map<String, Set<Long>> received, KeyOrder order, OwnershipTimeline timeline) {
        this.id = id;
        this.received = received;
        this.order = order;
        this.timeline = timeline;
    }

    /** Counts one record of {@code key} numbered {@code sequence}. */
    final void count(String key, long sequence) {
        counts.merge(key, 1L, Long::sum);
        lastSequence.merge(key, sequence, Math::max);
        received.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(sequence);
        order.delivered(key, sequence);
    }

    /** The client took these partitions. */
    final void assigned(Collection<TopicPartition> partitions) {
        timeline.gained(id, partitions);
        owned.addAll(partitions);
        assignedOnce = true;
        rebalances.incrementAndGet();
        touched();
    }

    /** The client gave these partitions up, or lost them. */
    final void released(Collection<TopicPartition> partitions) {
        timeline.lost(id, partitions);
        owned.removeAll(partitions);
        touched();
    }

    private void touched() {
        lastRebalanceNanos = System.nanoTime();
    }

    /** The client failed: the next {@link #isSettled()} throws with this cause. */
    final void failed(Throwable cause) {
        failure = cause;
    }

    final String id() {
        return id;
    }

    /** @return records counted per key by this member */
    final Map<String, Long> counts() {
        return Map.copyOf(counts);
    }

    /** @return the highest number seen per key by this member */
    final Map<String, Long> lastSequences() {
        return Map.copyOf(lastSequence);
    }

    final Set<TopicPartition> owned() {
        return Set.copyOf(owned);
    }

    final long rebalances() {
        return rebalances.get();
    }

    /** Assigned at least once, and no rebalance callback for a second. */
    final boolean isSettled() {
        if (failure != null) {
            throw new IllegalStateException("member " + id + " failed: " + failure, failure);
        }
        return assignedOnce && System.nanoTime() - lastRebalanceNanos > 1_000_000_000L;
    }

    /** Asks the member to leave the group; {@link #close()} waits for it. */
    abstract void stop();

    /** Leaves the group if still in it, and waits until the client is gone. */
    @Override
    public abstract void close();
}
