package io.kscale.assignor.internals.store;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the layout topic for {@link KafkaLayoutStore}, incrementally: it keeps its consumer, the
 * consumer's position and the group's newest record between loads, so each load reads only the
 * records appended since the last one. Before issue 11 every load created a consumer and read
 * the whole topic from offset 0 (every group's records since the last compaction, and compaction
 * skips the active segment, up to a day of them).
 *
 * <p>Example: the topic holds {@code [0] g1, [1] g2, [2] g1}. The first load for {@code g1}
 * reads offsets 0-2 and keeps record 2. Then {@code [3] g2, [4] g1} are appended: the next load
 * reads offsets 3-4 only and keeps record 4. Were the topic deleted and created again, the reader
 * starts over from the beginning: it keeps the topic's id from the load that started reading and
 * compares it at every load (issue 17; before, only an end offset below the position told, and a
 * re-created topic already written past that position went unnoticed, its records read as if
 * appended to the old one), and still checks the end offset where no id can be had.
 *
 * <p>The consumer is unsubscribed ({@code assign()}, no group, no committed offsets) and has no
 * thread of its own: between loads it holds an idle connection at most, which the broker closes
 * after {@code connections.max.idle.ms}. A read that times out keeps what it read (the position
 * and the newest record stay consistent); any other failure closes the consumer, and the next
 * load starts over.
 *
 * <p>Threads: one at a time (its methods are synchronized): the leader's {@code assign()}, and
 * the thread that closes the consumer.
 */
public final class LayoutTopicReader {

    private static final Logger log = LoggerFactory.getLogger(KafkaLayoutStore.class);

    private final TopicPartition partition;
    private final List<TopicPartition> partitions;
    private final byte[] key;
    private final Supplier<Consumer<byte[], byte[]>> consumers;
    private final TopicIds topicIds;

    private Consumer<byte[], byte[]> consumer;
    /** The id of the topic the position belongs to; null if none could be had. */
    private Uuid topicId;
    /** The group's newest record among those read, or null. */
    private ConsumerRecord<byte[], byte[]> latest;
    private long recordsRead;

    /**
     * @param partition the topic's only partition
     * @param key the group's record key
     * @param consumers creates the consumer, at the first read and after a failure
     */
    public LayoutTopicReader(TopicPartition partition, byte[] key, Supplier<Consumer<byte[], byte[]>> consumers) {
        this(partition, key, consumers, (topic, deadline) -> null);
    }

    /** As above, with where the topic's id comes from (the consumer API has none). */
    public LayoutTopicReader(TopicPartition partition, byte[] key, Supplier<Consumer<byte[], byte[]>> consumers,
                             TopicIds topicIds) {
        this.partition = partition;
        this.partitions = List.of(partition);
        this.key = key.clone();
        this.consumers = consumers;
        this.topicIds = topicIds;
    }

    /**
     * Reads up to the partition's end offset as of now.
     *
     * @param deadline when to give up
     * @return the group's newest record, null if it has none or the topic does not exist
     * @throws TimeoutException if the deadline passed first
     * @throws RuntimeException what the consumer threw; call {@link #reset} then
     */
    public synchronized ConsumerRecord<byte[], byte[]> readLatest(Deadline deadline) {
        if (consumer == null) {
            consumer = consumers.get();
        }
        List<PartitionInfo> infos = consumer.partitionsFor(partition.topic(), deadline.remaining());
        if (infos == null || infos.isEmpty()) {
            if (!consumer.assignment().isEmpty()) {
                consumer.unsubscribe(); // the topic was deleted: should it come back, read it from the start
            }
            latest = null;
            return null;
        }
        Uuid id = topicIds.topicId(partition.topic(), deadline);
        if (consumer.assignment().isEmpty()) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            latest = null;
            topicId = id;
        } else if (id != null && topicId != null && !id.equals(topicId)) {
            log.warn("The layout topic {} was deleted and created again (topic id {}, was {}): the layouts stored in "
                    + "the old one are gone; reading the new one from the beginning. Groups whose members all restart "
                    + "before their leader stores the layout again take partition counts as task counts.",
                    partition.topic(), id, topicId);
            restart();
        }
        if (id != null) {
            topicId = id;
        }
        long end = consumer.endOffsets(partitions, deadline.remaining()).get(partition);
        long position = consumer.position(partition, deadline.remaining());
        if (end < position) {
            log.warn("The layout topic {} ends at offset {}, before the {} read already: it was re-created; reading it "
                    + "from the beginning", partition.topic(), end, position);
            restart();
            position = consumer.position(partition, deadline.remaining());
        }
        while (position < end) {
            if (deadline.passed()) {
                throw new TimeoutException("read up to offset " + position + " of " + end);
            }
            // Records past `end` (appended meanwhile) count too: they are newer, and the position moves past them.
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(deadline.remaining())) {
                recordsRead++;
                if (Arrays.equals(key, record.key())) {
                    latest = record;
                }
            }
            position = consumer.position(partition, deadline.remaining());
        }
        return latest;
    }

    /** Reads again from the beginning: what was read belonged to a topic that is gone. */
    private void restart() {
        consumer.seekToBeginning(partitions);
        latest = null;
    }

    /** @return records read since this reader was created (tests, and the cost harness) */
    public synchronized long recordsRead() {
        return recordsRead;
    }

    /**
     * Closes the consumer and forgets what was read; the next read starts over.
     *
     * @param timeout the longest the close may block
     */
    public synchronized void reset(Duration timeout) {
        Consumer<byte[], byte[]> closing = consumer;
        consumer = null;
        latest = null;
        topicId = null;
        if (closing != null) {
            try {
                close(closing, timeout);
            } catch (RuntimeException e) {
                log.debug("Closing the layout store's consumer for topic {} failed", partition.topic(), e);
            }
        }
    }

    /** Whether kafka-clients has the consumer's CloseOptions (KIP-1092, 4.1); 3.9 and 4.0 do not. */
    private static final boolean CLOSE_OPTIONS = classExists("org.apache.kafka.clients.consumer.CloseOptions");

    /**
     * Closes with CloseOptions where the client has it, else with close(Duration), which 4.1
     * deprecated: the branch not taken is never linked, so this runs on kafka-clients 3.9 and 4.0 too.
     */
    @SuppressWarnings("deprecation")
    private static void close(Consumer<byte[], byte[]> consumer, Duration timeout) {
        if (CLOSE_OPTIONS) {
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(timeout));
        } else {
            consumer.close(timeout);
        }
    }

    private static boolean classExists(String name) {
        try {
            Class.forName(name, false, LayoutTopicReader.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Where the reader learns the topic's id: the consumer API does not tell it. */
    @FunctionalInterface
    public interface TopicIds {

        /**
         * @return the topic's id, or null if it cannot be had (no such topic, or a client without ids)
         * @throws TimeoutException if the deadline passed first
         * @throws RuntimeException what the client threw; the load fails
         */
        public Uuid topicId(String topic, Deadline deadline);
    }
}
