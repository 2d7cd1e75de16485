package io.kscale.assignor;

import org.apache.kafka.common.TopicPartition;

/**
 * What an {@link ExpansionBarrier} knows about one partition of a task that has two or more
 * partitions on its consumer: the last record it delivered. (A held partition's next record is
 * the head of the barrier's buffer for it.) Mutable, owned by one barrier on the poll thread.
 */
final class PartitionClock {

    private final TopicPartition partition;
    private boolean delivered;
    private long deliveredTimestamp;
    private long deliveredOffset = -1;

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

    @Override
    public String toString() {
        return partition + (delivered ? " delivered " + deliveredOffset + "@" + deliveredTimestamp : "");
    }
}
