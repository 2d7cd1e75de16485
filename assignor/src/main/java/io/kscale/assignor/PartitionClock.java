package io.kscale.assignor;

import org.apache.kafka.common.TopicPartition;

/**
 * What an {@link ExpansionBarrier} knows about one partition of a task that has two or more
 * partitions on its consumer: the last record it delivered, and the record at the consumer's
 * position when that record was fetched once already (a held record). Mutable, owned by one
 * barrier on the poll thread.
 */
final class PartitionClock {

    private final TopicPartition partition;
    private boolean delivered;
    private long deliveredTimestamp;
    private long deliveredOffset = -1;
    private boolean knowsHead;
    private long headTimestamp;
    private long headOffset = -1;
    private boolean pausedByBarrier;

    PartitionClock(TopicPartition partition) {
        this.partition = partition;
    }

    TopicPartition partition() {
        return partition;
    }

    /** @return whether a record of this partition was delivered since the barrier began tracking it */
    boolean hasDelivered() {
        return delivered;
    }

    long deliveredTimestamp() {
        return deliveredTimestamp;
    }

    long deliveredOffset() {
        return deliveredOffset;
    }

    void delivered(long offset, long timestamp) {
        delivered = true;
        deliveredOffset = offset;
        deliveredTimestamp = timestamp;
    }

    /** The consumer went back to an offset already delivered (a seek or a reassignment): what was delivered says nothing now. */
    void rewound() {
        delivered = false;
        deliveredOffset = -1;
    }

    /** @return whether the timestamp of the record at the consumer's position is known */
    boolean knowsHead() {
        return knowsHead;
    }

    long headTimestamp() {
        return headTimestamp;
    }

    long headOffset() {
        return headOffset;
    }

    /** The barrier sought back to a record it could not deliver yet: the record at the position is now known. */
    void hold(long offset, long timestamp) {
        knowsHead = true;
        headOffset = offset;
        headTimestamp = timestamp;
    }

    /** The partition was fetched again, or the position may have moved: the head is no longer known. */
    void forgetHead() {
        knowsHead = false;
        headOffset = -1;
    }

    boolean pausedByBarrier() {
        return pausedByBarrier;
    }

    void pausedByBarrier(boolean paused) {
        pausedByBarrier = paused;
    }

    @Override
    public String toString() {
        return partition + (knowsHead ? " head " + headOffset + "@" + headTimestamp : "")
                + (delivered ? " delivered " + deliveredOffset + "@" + deliveredTimestamp : "")
                + (pausedByBarrier ? " paused" : "");
    }
}
