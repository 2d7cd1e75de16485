package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.TOPIC;
import static io.kscale.partitioner.StickyFixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Keyed records go exactly where Kafka's default puts them (SEP-5's hash(key) % partitions rule). */
class KeyedPartitioningTest {

    @ParameterizedTest(name = "{0} partitions")
    @ValueSource(ints = {1, 3, 7, 16, 100})
    void shouldPlaceKeysExactlyLikeKafka(int partitionCount) {
        SplittableRandom random = new SplittableRandom(StickyFixtures.seed("keys over " + partitionCount + " partitions"));
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner();
        partitioner.configure(Map.of());
        Cluster cluster = cluster(partitionCount, 0);
        for (int i = 0; i < 100_000; i++) {
            byte[] key = new byte[random.nextInt(64)];
            random.nextBytes(key);
            int expected = Utils.toPositive(Utils.murmur2(key)) % partitionCount;
            int actual = partitioner.partition(TOPIC, key, key, "value", new byte[10], cluster);
            assertThat(actual).as("key %d", i).isEqualTo(expected).isEqualTo(BuiltInPartitioner.partitionForKey(key, partitionCount));
        }
    }

    @Test
    void shouldHashOverAllPartitionsEvenWithoutLeader() {
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner();
        partitioner.configure(Map.of());
        Cluster cluster = cluster(8, 0, 1, 2, 3);
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            byte[] key = ("key-" + i).getBytes();
            seen.add(partitioner.partition(TOPIC, key, key, null, null, cluster));
        }
        assertThat(seen).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
    }

    @Test
    void shouldStickKeyedRecordsWhenKeysAreIgnored() {
        StickyFixtures.StintLog log = new StickyFixtures.StintLog();
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner(new SplittableRandom(1), log);
        partitioner.configure(Map.of(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG, "true",
                UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, 1000));
        Cluster cluster = cluster(5);
        StickyFixtures.Ledger ledger = new StickyFixtures.Ledger();
        for (int i = 0; i < 10_000; i++) {
            byte[] key = ("key-" + i).getBytes();
            byte[] value = new byte[i % 100];
            int partition = partitioner.partition(TOPIC, key, key, value, value, cluster);
            ledger.add(partition, key.length + value.length + UniformStickyBytesPartitioner.RECORD_OVERHEAD_BYTES);
            ledger.assertUniform(1000, StickyFixtures.range(0, 5), "after record " + i);
        }
        assertThat(log.assertValid(1000, ledger.largestRecord(), true)).hasSizeGreaterThan(100);
    }

    @Test
    void shouldTreatNullSerializedKeyAsNoKey() {
        StickyFixtures.StintLog log = new StickyFixtures.StintLog();
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner(new SplittableRandom(1), log);
        partitioner.configure(Map.of(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, 100));
        Cluster cluster = cluster(3);
        int first = partitioner.partition(TOPIC, "key serialized to null", null, null, new byte[10], cluster);
        assertThat(partitioner.partition(TOPIC, null, null, null, new byte[10], cluster)).isEqualTo(first);
    }
}
