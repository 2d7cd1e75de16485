package io.kscale.admin.internals;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.store.Deadline;
import io.kscale.assignor.internals.store.KafkaLayoutStore;
import io.kscale.assignor.internals.store.LayoutTopicReader;
import io.kscale.assignor.internals.store.StoreClients;
import io.kscale.assignor.internals.time.Clock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Reads a classic group's task count T of a topic from the layout store topics that the client-side
 * {@code KeyPreservingAssignor} writes: one compacted topic (by default
 * {@code kscale-assignor-layouts}, or each group's {@code kscale.assignor.layout.store.topic}), keyed
 * by group id, whose newest value is the {@code LayoutCodec} form of the group's layout. The
 * reading is the assignor's own ({@link LayoutTopicReader}), the decoding its codec: the tool reads
 * exactly what a group leader reads after a full restart.
 *
 * <p>Of several topics, the first that holds a layout of the group naming the topic wins (a group
 * writes to one). A layout that belongs to an earlier topic of the same name (its topic id
 * fingerprint differs from today's) is no T of today's topic. A value that does not decode, or a
 * topic the principal may not read, is reported as unreadable with the cause: the tool cannot tell
 * the group's T then, and says so rather than guess.
 */
public final class ClassicLayoutReader {

    private final List<String> layoutTopics;
    private final Map<String, Object> consumerSettings;
    private final StoreClients clients;
    private final Duration timeout;

    /**
     * @param layoutTopics the layout store topics to search, in order
     * @param clientSettings connection and security settings
     * @param clients how to create the consumer (tests: mocks)
     * @param timeout the longest one topic's read may take
     */
    public ClassicLayoutReader(List<String> layoutTopics, Map<String, ?> clientSettings, StoreClients clients,
                               Duration timeout) {
        this.layoutTopics = List.copyOf(layoutTopics);
        this.consumerSettings = KafkaLayoutStore.consumerSettings(clientSettings);
        this.clients = clients;
        this.timeout = timeout;
    }

    /**
     * @param groupId the classic group
     * @param topic the topic whose T is wanted
     * @param topicId the topic's id today, or null if the brokers give none
     * @return its stored T, none, or why it could not be read
     */
    public StoredTaskCount taskCount(String groupId, String topic, Uuid topicId) {
        StringBuilder searched = new StringBuilder();
        for (String layoutTopic : layoutTopics) {
            LayoutTopicReader reader = new LayoutTopicReader(new TopicPartition(layoutTopic, 0),
                    groupId.getBytes(StandardCharsets.UTF_8), () -> clients.consumer(consumerSettings));
            ConsumerRecord<byte[], byte[]> latest;
            try {
                latest = reader.readLatest(Deadline.after(Clock.SYSTEM, timeout));
            } catch (RuntimeException e) {
                return StoredTaskCount.unreadable("cannot read layout topic " + layoutTopic + ": " + e);
            } finally {
                reader.reset(Duration.ofSeconds(1));
            }
            searched.append(searched.length() == 0 ? "" : ", ").append(layoutTopic);
            if (latest == null || latest.value() == null) {
                continue;
            }
            Optional<GroupLayout> layout = LayoutCodec.decode(ByteBuffer.wrap(latest.value()));
            if (layout.isEmpty()) {
                return StoredTaskCount.unreadable("the layout of group " + groupId + " in topic " + layoutTopic
                        + " (offset " + latest.offset() + ", " + latest.value().length + " bytes) does not decode");
            }
            Optional<TopicLayout> stored = layout.get().topic(topic);
            if (stored.isEmpty()) {
                continue;
            }
            OptionalLong fingerprint = stored.get().topicId();
            if (topicId != null && fingerprint.isPresent() && fingerprint.getAsLong() != fingerprint(topicId)) {
                return StoredTaskCount.noneStored("the layout of group " + groupId + " in topic " + layoutTopic
                        + " belongs to an earlier topic named " + topic + " (deleted and created again)");
            }
            return StoredTaskCount.known(stored.get().taskCount(), "layout topic " + layoutTopic + ", epoch "
                    + layout.get().epoch());
        }
        return StoredTaskCount.noneStored("no layout of group " + groupId + " for topic " + topic + " in layout "
                + "topic(s) " + searched + " (a group that sets kscale.assignor.layout.store.topic stores it there: "
                + "add that topic; a group whose store is disabled keeps T in its members only)");
    }

    /** The fingerprint the layouts keep of a topic id (TopicLayout's class comment). */
    static long fingerprint(Uuid topicId) {
        return topicId.getMostSignificantBits() ^ topicId.getLeastSignificantBits();
    }
}
