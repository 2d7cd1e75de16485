package io.kscale.partitioner;

import java.lang.ref.WeakReference;
import java.util.List;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.MetricName;

/**
 * What {@link UniformStickyBytesPartitioner} keeps per topic: the algorithm, the partition views of
 * the last two {@link Cluster}s seen, the topic's metric names, and what the last idle sweep saw.
 *
 * <p>The view is cached per {@code Cluster} instance: the producer passes the same instance until
 * its metadata changes, so an identity check makes the lookup free per record. Two are kept, the
 * newest and one before it, because sender threads do not switch to new metadata at once: a thread
 * that fetched the {@code Cluster} before an update still passes the old one while others pass the
 * new one. With one slot, each such call replaced the other thread's view, and every call of both
 * rebuilt a view (an allocation, a clock read, a housekeeping attempt). Which of two views is
 * newer, Kafka's public API does not say ({@code Cluster} carries no metadata version); partition
 * counts only grow, so a view with fewer partitions than the newest is the older one, and
 * otherwise the view seen last counts as the newest. A third {@code Cluster} evicts the older slot.
 * Instances are held through weak references. A strong one kept a whole metadata snapshot alive per topic after the
 * producer had replaced it (issue 11: 5,000 rotating topics pinned 5,000 snapshots). Once the
 * producer lets go of a snapshot and it is collected, the next record of the topic rebuilds the view,
 * as it would for any new metadata.
 *
 * <p>Idle check without a clock per record: the open stint's sequence number and its bytes offered
 * change with every record (each counts at least its framing), so a sweep that finds both as the
 * previous sweep left them knows that no record came in between. The topic is idle since the first
 * sweep that saw them as they are now.
 */
final class TopicState {

    final String topic;
    final TopicStickiness stickiness;
    /** The newest view seen. */
    private volatile CachedView cached;
    /** The view seen before {@link #cached}, or one older than it that came later; may be null. */
    private volatile CachedView previous;

    // The fields below are guarded by the partitioner's housekeeping lock.

    /** The topic's metrics in the producer's registry; empty while none are registered. */
    List<MetricName> metricNames = List.of();
    private long seenSequence;
    private long seenOffered;
    private long activeAtMs;

    /**
     * @param topic the topic
     * @param stickiness the topic's algorithm, built from {@code view}
     * @param cluster the metadata {@code view} was built from
     * @param view the view of {@code topic} in {@code cluster}
     * @param nowMs the housekeeping clock now
     */
    TopicState(String topic, TopicStickiness stickiness, Cluster cluster, PartitionView view, long nowMs) {
        this.topic = topic;
        this.stickiness = stickiness;
        this.cached = new CachedView(cluster, view);
        markActive(nowMs);
    }

    /**
     * The view of {@code cluster} if it is one of the two {@code Cluster}s cached, else null. The
     * per-record path: no allocation, no lock; the second slot is read only when the first misses.
     */
    PartitionView viewIfCurrent(Cluster cluster) {
        CachedView last = cached;
        if (last.get() == cluster) {
            return last.view;
        }
        CachedView before = previous;
        return before != null && before.get() == cluster ? before.view : null;
    }

    /** The view of {@code cluster}, built and cached unless one of the two cached {@code Cluster}s is it. */
    PartitionView view(Cluster cluster) {
        PartitionView view = viewIfCurrent(cluster);
        if (view == null) {
            view = UniformStickyBytesPartitioner.viewOf(topic, cluster);
            remember(new CachedView(cluster, view));
        }
        return view;
    }

    /**
     * Caches {@code entry} as the newest view, the old newest moving to the second slot; or, if it
     * has fewer partitions than the newest (so it is older, see the class comment), in the second
     * slot. Synchronized so that two threads with new views do not lose one; a rare path.
     */
    private synchronized void remember(CachedView entry) {
        CachedView newest = cached;
        if (newest.get() != null && entry.view.partitionCount() < newest.view.partitionCount()) {
            previous = entry;
        } else {
            previous = newest;
            cached = entry;
        }
    }

    /** Notes that a record of the topic was placed at {@code nowMs}. Caller holds the housekeeping lock. */
    void markActive(long nowMs) {
        Stint stint = stickiness.current();
        seenSequence = stint.sequence;
        seenOffered = stint.offered();
        activeAtMs = nowMs;
    }

    /**
     * Called by each sweep: true if no record of the topic came since the previous sweep and the
     * last sign of a record is at least {@code idleMs} old. That sign is the time of the sweep that
     * saw the stint change, or of {@link #markActive}: never earlier than the record itself, so a
     * topic is never found idle too early. Caller holds the housekeeping lock.
     */
    boolean idleFor(long idleMs, long nowMs) {
        Stint stint = stickiness.current();
        long offered = stint.offered();
        if (stint.sequence != seenSequence || offered != seenOffered) {
            seenSequence = stint.sequence;
            seenOffered = offered;
            activeAtMs = nowMs;
            return false;
        }
        return nowMs - activeAtMs >= idleMs;
    }

    /** A partition view and, weakly, the {@code Cluster} it was built from. */
    private static final class CachedView extends WeakReference<Cluster> {
        final PartitionView view;

        CachedView(Cluster cluster, PartitionView view) {
            super(cluster);
            this.view = view;
        }
    }
}
