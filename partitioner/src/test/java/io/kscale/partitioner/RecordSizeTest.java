package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.TOPIC;
import static io.kscale.partitioner.StickyFixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.partitioner.StickyFixtures.StintLog;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.record.internal.DefaultRecord;
import org.junit.jupiter.api.Test;

class RecordSizeTest {

    @Test
    void shouldChargeTheLargestV2RecordFramingPerRecord() {
        assertThat(UniformStickyBytesPartitioner.RECORD_OVERHEAD_BYTES).isEqualTo(DefaultRecord.MAX_RECORD_OVERHEAD);
    }

    @Test
    void shouldCountKeyValueAndFramingOfEveryRecord() {
        StintLog log = new StintLog();
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner(new SplittableRandom(3), log);
        partitioner.configure(Map.of(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG, true,
                UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, 1_000_000));
        byte[] key = new byte[7];
        byte[] value = new byte[100];
        partitioner.partition(TOPIC, null, null, null, null, cluster(3));
        partitioner.partition(TOPIC, null, key, null, null, cluster(3));
        partitioner.partition(TOPIC, null, null, null, value, cluster(3));
        partitioner.partition(TOPIC, null, key, null, value, cluster(3));
        assertThat(partitioner.stickiness(TOPIC).current().bytes()).isEqualTo(4 * 21 + 2 * 7 + 2 * 100);
        assertThat(log.inOrder()).isEmpty();
    }
}
