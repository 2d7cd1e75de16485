package io.kscale.assignor.internals.barrier;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A poll's records that iterate in the order the barrier's merge let them go, not partition by
 * partition as {@link ConsumerRecords} does. The difference matters when a key goes back from a
 * child to its parent (a producer whose metadata fell back to the old partition count, or two
 * producers with different views): iterated by partition, every record of the parent would come
 * before any of the child, the key's later parent record ahead of its earlier child record.
 * {@link #records(TopicPartition)} is unchanged: each partition's records in offset order.
 *
 * <p>Example: parent 1 holds {@code k#1@100, k#3@130}, child 5 holds {@code k#2@110}. The merge
 * lets them go as {@code k#1, k#2, k#3}; a plain {@code ConsumerRecords} built from the same
 * per-partition lists iterates {@code k#1, k#3, k#2}.
 */
public final class MergedRecords<K, V> extends ConsumerRecords<K, V> {

    private final List<ConsumerRecord<K, V>> inOrder;

    /**
     * @param byPartition each partition's records in offset order
     * @param inOrder the same records, in the order they must be iterated
     * @param nextOffsets as for {@link ConsumerRecords#nextOffsets()}
     */
    public MergedRecords(Map<TopicPartition, List<ConsumerRecord<K, V>>> byPartition, List<ConsumerRecord<K, V>> inOrder,
            Map<TopicPartition, OffsetAndMetadata> nextOffsets) {
        super(byPartition, nextOffsets);
        this.inOrder = Collections.unmodifiableList(inOrder);
    }

    /** @return every record in the merge's order */
    @Override
    public Iterator<ConsumerRecord<K, V>> iterator() {
        return inOrder.iterator();
    }

    /** @return the topic's records in the merge's order */
    @Override
    public Iterable<ConsumerRecord<K, V>> records(String topic) {
        if (topic == null) {
            throw new IllegalArgumentException("Topic must be non-null.");
        }
        List<ConsumerRecord<K, V>> ofTopic = new ArrayList<>();
        for (ConsumerRecord<K, V> record : inOrder) {
            if (record.topic().equals(topic)) {
                ofTopic.add(record);
            }
        }
        return ofTopic;
    }
}
