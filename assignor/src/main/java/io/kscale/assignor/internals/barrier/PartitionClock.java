package io.kscale.assignor.internals.barrier;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * What an expansion barrier knows about one partition of a task that has two or more
 * partitions on its consumer: the last record it delivered, the latest timestamp it ever
 * delivered and how far it has ever delivered (both kept across a rewind, for counting records
 * returned out of order), and since when the partition has been behind without returning
 * anything. (A held partition's next record is the head of the barrier's buffer for it.)
 * Mutable, owned by one barrier on the poll thread.
 */
public final class PartitionClock {

    private static final long NOT_BEHIND = Long.MIN_VALUE;

    private final TopicPartition partition;
    private boolean delivered;
    private long deliveredTimestamp;
    private long deliveredOffset = -1;
    /** The latest timestamp delivered since tracking began, a rewind notwithstanding: what the application has seen. */
    private long latestDeliveredTimestamp = Long.MIN_VALUE;
    /** One past the highest offset ever delivered: records below it come again after a rewind. */
    private long firstNewOffset;
    private long behindSince = NOT_BEHIND;
    /**
     * Each sibling's {@link #latestDeliveredTimestamp()} when this partition joined their merge:
     * what the sibling delivered before then was not merged with this partition, so this
     * partition's older records are not out of order against it.
     */
    private final Map<TopicPartition, Long> siblingsAtJoin = new HashMap<>();

    public PartitionClock(TopicPartition partition) {
        this.partition = partition;
    }

    /**
     * Notes that this partition joins a merge with {@code sibling} now (assigned here, or newly
     * sharing a task with it). Records the sibling delivered until now were never ordered
     * against this partition's: a partition added by an expansion and assigned after its parent
     * had gone on, say, holds records older than the parent's last, yet no key came out of order.
     */
    public void joined(PartitionClock sibling) {
        siblingsAtJoin.putIfAbsent(sibling.partition, sibling.latestDeliveredTimestamp);
    }

    /**
     * @return whether {@code sibling} delivered a record stamped later than {@code timestamp}
     *     (or stamped the same, from a higher partition) since this partition joined its merge
     */
    public boolean isOvertakenBy(PartitionClock sibling, long timestamp) {
        long latest = sibling.latestDeliveredTimestamp;
        Long atJoin = siblingsAtJoin.get(sibling.partition);
        if (atJoin != null && latest <= atJoin) {
            return false;
        }
        return latest > timestamp || latest == timestamp && sibling.partition.partition() > partition.partition();
    }

    public TopicPartition partition() {
        return partition;
    }

    /** @return whether a record of this partition was delivered since the barrier began tracking it */
    public boolean hasDelivered() {
        return delivered;
    }

    /** @return the timestamp of the last record delivered, or when it was fetched if that was earlier */
    public long deliveredTimestamp() {
        return deliveredTimestamp;
    }

    public long deliveredOffset() {
        return deliveredOffset;
    }

    /**
     * @param timestamp the record's timestamp, or when the barrier fetched it if earlier: a record
     *                  stamped in the future says nothing about what the partition sends next
     */
    public void delivered(long offset, long timestamp) {
        delivered = true;
        deliveredOffset = offset;
        deliveredTimestamp = timestamp;
        latestDeliveredTimestamp = Math.max(latestDeliveredTimestamp, timestamp);
        firstNewOffset = Math.max(firstNewOffset, offset + 1);
    }

    /**
     * @return the latest timestamp (as given to {@link #delivered}) of any record delivered since
     *         the barrier began tracking the partition, rewinds notwithstanding; {@link Long#MIN_VALUE} if none
     */
    public long latestDeliveredTimestamp() {
        return latestDeliveredTimestamp;
    }

    /** @return whether a record at this offset is delivered for the first time since tracking began, not again after a rewind */
    public boolean isFirstDelivery(long offset) {
        return offset >= firstNewOffset;
    }

    /**
     * The consumer went back to an offset already delivered (a seek or a reassignment): what was
     * delivered says nothing about what the partition brings next. What the application has seen
     * ({@link #latestDeliveredTimestamp()}, {@link #isFirstDelivery}) stays.
     */
    public void rewound() {
        delivered = false;
        deliveredOffset = -1;
    }

    /**
     * Notes what a merge saw of the partition: the silence of a partition that is behind (records
     * left to read, or lag unknown) is timed from the first merge that saw it behind with nothing at
     * hand, and ends when it brings records or is caught up.
     *
     * @param hasRecords whether the partition brought fetched or buffered records to this merge
     */
    public void observe(boolean hasRecords, OptionalLong lag, long nowMs) {
        if (hasRecords || lag.isPresent() && lag.getAsLong() == 0) {
            behindSince = NOT_BEHIND;
        } else if (behindSince == NOT_BEHIND) {
            behindSince = nowMs;
        }
    }

    /** @return whether the partition is behind and has returned nothing since {@link #behindSince()} */
    public boolean isBehind() {
        return behindSince != NOT_BEHIND;
    }

    /** @return when the partition's current silence while behind began; only if {@link #isBehind()} */
    public long behindSince() {
        return behindSince;
    }

    @Override
    public String toString() {
        return partition + (delivered ? " delivered " + deliveredOffset + "@" + deliveredTimestamp : "")
                + (isBehind() ? " behind since " + behindSince : "");
    }
}
