package io.kscale.assignor.internals.leader;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

/**
 * Who owns each partition now, as members reported it in {@code ownedPartitions} (COOPERATIVE).
 * A partition two members claim (one missed a rebalance) belongs to the one with the higher
 * generation, as in Kafka's sticky assignor; at equal generations the first claim stays. Only
 * partitions the leader's metadata has are recorded: members' claims are untrusted (issue 17:
 * before, a claim of partition -1 threw and one of 2^30 sized the arrays to gigabytes).
 *
 * <p>Arrays per topic rather than a map keyed by {@link TopicPartition}: groups with a million
 * partitions look every partition up several times per rebalance, and {@code TopicPartition}'s
 * hash collides heavily for topics with numbered names ({@code t0001}, {@code t0002}, ...).
 */
public final class PartitionOwners {

    private final Cluster metadata;
    private final Map<String, String[]> owners = new HashMap<>();
    private final Map<String, int[]> generations = new HashMap<>();
    private boolean empty = true;

    /** @param metadata the leader's view of the cluster: which partitions exist, and each topic's array size */
    public PartitionOwners(Cluster metadata) {
        this.metadata = metadata;
    }

    /**
     * Records a member's claim on a partition, if the metadata has the partition: a claim of a
     * topic the metadata lacks, or of a partition outside {@code 0 <= p < count}, is ignored. The
     * arrays of a topic are sized once, by the metadata's count, never by a number a member sent.
     *
     * @return whether the claim was of a partition the metadata has (and so was recorded, or lost
     *         to an earlier claim of the same or a later generation)
     */
    public boolean claim(TopicPartition partition, String member, int generation) {
        int p = partition.partition();
        String topic = partition.topic();
        String[] topicOwners = owners.get(topic);
        if (topicOwners == null) {
            Integer count = topic == null ? null : metadata.partitionCountForTopic(topic);
            if (count == null || p < 0 || p >= count) {
                return false;
            }
            topicOwners = new String[count];
            owners.put(topic, topicOwners);
            generations.put(topic, new int[count]);
        } else if (p < 0 || p >= topicOwners.length) {
            return false;
        }
        int[] topicGenerations = generations.get(topic);
        if (topicOwners[p] == null || generation > topicGenerations[p]) {
            topicOwners[p] = member;
            topicGenerations[p] = generation;
        }
        empty = false;
        return true;
    }

    /** @return the member that owns the partition, or null */
    public String owner(String topic, int partition) {
        String[] topicOwners = owners.get(topic);
        return topicOwners == null || partition < 0 || partition >= topicOwners.length ? null : topicOwners[partition];
    }

    /** @return whether no member reported owning anything (EAGER, or a new group) */
    public boolean isEmpty() {
        return empty;
    }
}
