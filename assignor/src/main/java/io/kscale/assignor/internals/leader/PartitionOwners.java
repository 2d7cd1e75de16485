package io.kscale.assignor.internals.leader;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;

/**
 * Who owns each partition now, as members reported it in {@code ownedPartitions} (COOPERATIVE).
 * A partition two members claim (one missed a rebalance) belongs to the one with the higher
 * generation, as in Kafka's sticky assignor; at equal generations the first claim stays.
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

    /** @param metadata the leader's view of the cluster, to size each topic's arrays once */
    public PartitionOwners(Cluster metadata) {
        this.metadata = metadata;
    }

    public void claim(TopicPartition partition, String member, int generation) {
        int p = partition.partition();
        String[] topicOwners = owners.get(partition.topic());
        if (topicOwners == null || topicOwners.length <= p) {
            topicOwners = grow(partition.topic(), p + 1);
        }
        int[] topicGenerations = generations.get(partition.topic());
        if (topicOwners[p] == null || generation > topicGenerations[p]) {
            topicOwners[p] = member;
            topicGenerations[p] = generation;
        }
        empty = false;
    }

    /** @return the member that owns the partition, or null */
    public String owner(String topic, int partition) {
        String[] topicOwners = owners.get(topic);
        return topicOwners == null || partition >= topicOwners.length ? null : topicOwners[partition];
    }

    /** @return whether no member reported owning anything (EAGER, or a new group) */
    public boolean isEmpty() {
        return empty;
    }

    private String[] grow(String topic, int size) {
        String[] oldOwners = owners.getOrDefault(topic, new String[0]);
        int[] oldGenerations = generations.getOrDefault(topic, new int[0]);
        Integer known = metadata.partitionCountForTopic(topic);
        int capacity = Math.max(size, Math.max(oldOwners.length * 2, known == null ? 0 : known));
        String[] newOwners = Arrays.copyOf(oldOwners, capacity);
        owners.put(topic, newOwners);
        generations.put(topic, Arrays.copyOf(oldGenerations, capacity));
        return newOwners;
    }
}
