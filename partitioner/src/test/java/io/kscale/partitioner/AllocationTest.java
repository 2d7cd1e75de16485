package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.TOPIC;
import static io.kscale.partitioner.StickyFixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.Map;
import org.apache.kafka.common.Cluster;
import org.junit.jupiter.api.Test;

/**
 * The per-record path allocates nothing between switches (a behaviour, not a timing: counted with
 * the JVM's per-thread allocation counter).
 */
class AllocationTest {

    @Test
    void shouldNotAllocatePerRecordBetweenSwitches() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());

        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner();
        partitioner.configure(Map.of(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, Integer.MAX_VALUE));
        Cluster cluster = cluster(16, 3);
        byte[] value = new byte[100];
        byte[] key = new byte[8];
        int sink = 0;
        for (int i = 0; i < 50_000; i++) {
            sink += partitioner.partition(TOPIC, null, null, null, value, cluster);
            sink += partitioner.partition(TOPIC, key, key, null, value, cluster);
        }
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < 200_000; i++) {
            sink += partitioner.partition(TOPIC, null, null, null, value, cluster);
            sink += partitioner.partition(TOPIC, key, key, null, value, cluster);
        }
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertThat(partitioner.switchCount(TOPIC)).isZero();
        // A few hundred bytes of slack for the measurement itself; one allocation per record would be >= 6 MB.
        assertThat(allocated).as("bytes allocated for 400000 records (sink %d)", sink).isLessThan(4096);
    }
}
