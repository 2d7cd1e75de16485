package io.kscale.partitioner;

import java.util.Arrays;

/**
 * What the sticky algorithm may know about a topic's partitions: how many there are, which of
 * them can take records now, and which broker leads each (so that a round can visit the partitions
 * of one leader one after another, see {@link StickyRound}). Immutable; no Kafka types, so that
 * {@link TopicStickiness} stays a pure algorithm.
 *
 * <p>The adapter builds one view per {@code Cluster} instance the producer hands it (a new
 * instance arrives only with a metadata update), so the per-record path only reads this object.
 */
final class PartitionView {

    private final int partitionCount;
    private final boolean[] available;
    private final int[] availablePartitions;
    private final boolean noneHadLeader;
    /** Leader id per partition, {@link #UNKNOWN_LEADER} where not known. */
    private final int[] leaders;

    /** The leader of a partition whose leader the view does not know; all such share one group. */
    static final int UNKNOWN_LEADER = -1;

    private PartitionView(int partitionCount, boolean[] available, int[] availablePartitions, boolean noneHadLeader,
            int[] leaders) {
        this.partitionCount = partitionCount;
        this.available = available;
        this.availablePartitions = availablePartitions;
        this.noneHadLeader = noneHadLeader;
        this.leaders = leaders;
    }

    /**
     * A view of {@code partitionCount} partitions of which those listed can take records.
     *
     * <p>If none is listed (every leader is gone, or metadata is still arriving), every partition
     * counts as available: records then wait in the producer for a leader instead of failing,
     * which is what Kafka's built-in partitioner does too.
     *
     * @param partitionCount number of partitions of the topic, at least 1
     * @param availablePartitions partitions with a leader; ids outside {@code [0, partitionCount)}
     *     are ignored, duplicates are harmless
     * @return the view
     * @throws IllegalArgumentException if {@code partitionCount < 1}
     */
    static PartitionView of(int partitionCount, int... availablePartitions) {
        return withLeaders(partitionCount, availablePartitions, new int[0]);
    }

    /**
     * A view of {@code partitionCount} partitions of which those listed can take records, each led
     * by the broker at the same index of {@code leaders}; see {@link #of}.
     *
     * @param partitionCount number of partitions of the topic, at least 1
     * @param availablePartitions partitions with a leader, as for {@link #of}
     * @param leaders leader id of {@code availablePartitions[i]} at index i; missing or negative
     *     entries mean unknown
     * @return the view
     * @throws IllegalArgumentException if {@code partitionCount < 1}
     */
    static PartitionView withLeaders(int partitionCount, int[] availablePartitions, int[] leaders) {
        if (partitionCount < 1) {
            throw new IllegalArgumentException("A topic needs at least one partition, got " + partitionCount);
        }
        boolean[] available = new boolean[partitionCount];
        int listed = 0;
        for (int partition : availablePartitions) {
            if (partition >= 0 && partition < partitionCount && !available[partition]) {
                available[partition] = true;
                listed++;
            }
        }
        boolean noneHadLeader = listed == 0;
        if (noneHadLeader) {
            Arrays.fill(available, true);
            listed = partitionCount;
        }
        int[] ids = new int[listed];
        for (int partition = 0, next = 0; partition < partitionCount; partition++) {
            if (available[partition]) {
                ids[next++] = partition;
            }
        }
        int[] leaderOf = new int[partitionCount];
        Arrays.fill(leaderOf, UNKNOWN_LEADER);
        for (int i = 0; i < Math.min(availablePartitions.length, leaders.length); i++) {
            int partition = availablePartitions[i];
            if (partition >= 0 && partition < partitionCount && leaders[i] >= 0) {
                leaderOf[partition] = leaders[i];
            }
        }
        return new PartitionView(partitionCount, available, ids, noneHadLeader, leaderOf);
    }

    /**
     * A view where every one of {@code partitionCount} partitions can take records.
     *
     * @param partitionCount number of partitions, at least 1
     * @return the view
     */
    static PartitionView allAvailable(int partitionCount) {
        int[] all = new int[Math.max(partitionCount, 0)];
        Arrays.setAll(all, partition -> partition);
        return of(partitionCount, all);
    }

    int partitionCount() {
        return partitionCount;
    }

    /** True if {@code partition} exists in this view and can take records; false for any id >= the count. */
    boolean isAvailable(int partition) {
        return partition >= 0 && partition < available.length && available[partition];
    }

    /** The available partitions in ascending order. Shared: callers must not modify it. */
    int[] availablePartitions() {
        return availablePartitions;
    }

    /**
     * The broker that leads {@code partition} in this view, or {@link #UNKNOWN_LEADER} if the view
     * does not know it or the partition is beyond the count.
     */
    int leader(int partition) {
        return partition >= 0 && partition < leaders.length ? leaders[partition] : UNKNOWN_LEADER;
    }

    /** True if no partition had a leader and this view therefore offers all of them. */
    boolean noneHadLeader() {
        return noneHadLeader;
    }

    @Override
    public String toString() {
        return "PartitionView(count=" + partitionCount + ", available=" + Arrays.toString(availablePartitions) + ")";
    }
}
