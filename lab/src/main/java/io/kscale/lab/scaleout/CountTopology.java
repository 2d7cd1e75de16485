package io.kscale.lab.scaleout;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The scenario's application: one sub-topology that keeps, per key, the number of records and the
 * latest value in a persistent, logged store. Keeping the latest value makes the store (and its
 * changelog) as large as the data, as in a table of the latest state of each entity: 20,000 keys
 * with 200-byte values hold 4 MB, and 100,000 records write 23 MB of changelog. Stored value: the
 * count as 8 bytes, then the latest record's value.
 */
final class CountTopology {

    static final String STORE = "counts";

    private CountTopology() {
    }

    /**
     * @param inputTopic the topic to count
     * @param processed counts every record the instance processes
     * @return the topology
     */
    static Topology build(String inputTopic, LongAdder processed) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(inputTopic, Consumed.with(Serdes.String(), Serdes.ByteArray()))
                .peek((key, value) -> processed.increment())
                .groupByKey()
                .aggregate(() -> null, (key, value, aggregate) -> add(aggregate, value),
                        Materialized.<String, byte[], KeyValueStore<Bytes, byte[]>>as(STORE)
                                .withKeySerde(Serdes.String()).withValueSerde(Serdes.ByteArray()));
        return builder.build();
    }

    /** @return the aggregate after one more record: count + 1, and the record's value as the latest */
    static byte[] add(byte[] aggregate, byte[] value) {
        return ByteBuffer.allocate(8 + value.length).putLong(count(aggregate) + 1).put(value).array();
    }

    /** @return the count of a stored aggregate; 0 for none */
    static long count(byte[] aggregate) {
        return aggregate == null ? 0 : ByteBuffer.wrap(aggregate).getLong();
    }
}
