package io.kscale.partitioner;

import java.lang.ref.WeakReference;
import java.util.List;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.MetricName;

/**
 * What {@link UniformStickyBytesPartitioner} keeps per topic: the algorithm, the partition view of
 * the last {@link Cluster} seen, the topic's metric names, and what the last idle sweep saw.
 *
 * <p>The view is cached per {@code Cluster} instance: the producer passes the same instance until
 * its metadata changes, so an identity check makes the lookup free per record. The instance is held
 * through a weak reference. A strong one kept a whole metadata snapshot alive per topic after the
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
    private volatile CachedView cached;

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
     * The view of {@code cluster} if it is the {@code Cluster} last seen, else null. The per-record
     * path: no allocation, no lock.
     */
    PartitionView viewIfCurrent(Cluster cluster) {
        CachedView last = cached;
        return last.get() == cluster ? last.view : null;
    }

    /** The view of {@code cluster}, built and cached unless it is the {@code Cluster} last seen. */
    PartitionView view(Cluster cluster) {
        PartitionView view = viewIfCurrent(cluster);
        if (view == null) {
            view = UniformStickyBytesPartitioner.viewOf(topic, cluster);
            cached = new CachedView(cluster, view);
        }
        return view;
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
