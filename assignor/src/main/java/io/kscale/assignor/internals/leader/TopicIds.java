package io.kscale.assignor.internals.leader;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Uuid;

/**
 * Topic ids from Kafka's metadata as the layout keeps them: a 64-bit fingerprint, {@code msb ^ lsb}
 * of the {@link Uuid} (see {@code TopicLayout} for why 64 bits are enough). Kafka's ids are random,
 * so the fingerprint is too; 0 means "no id", as {@link Uuid#ZERO_UUID} does in the metadata of
 * brokers or clients that carry none.
 */
public final class TopicIds {

    private TopicIds() {
    }

    /** @return the fingerprint of an id; 0 for none */
    public static long fingerprint(Uuid id) {
        return id == null ? 0 : id.getMostSignificantBits() ^ id.getLeastSignificantBits();
    }

    /** @return the fingerprint of each topic's id in the metadata, for the topics that have one */
    public static Map<String, Long> of(Cluster metadata, Collection<String> topics) {
        Map<String, Long> ids = new HashMap<>();
        for (String topic : topics) {
            long fingerprint = fingerprint(metadata.topicId(topic));
            if (fingerprint != 0) {
                ids.put(topic, fingerprint);
            }
        }
        return ids;
    }
}
