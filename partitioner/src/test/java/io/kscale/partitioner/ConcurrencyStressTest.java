package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.TOPIC;
import static io.kscale.partitioner.StickyFixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.kscale.partitioner.StickyFixtures.Closed;
import io.kscale.partitioner.StickyFixtures.StintLog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Eight threads place millions of records concurrently through the adapter. Each thread keeps its
 * own (partition, bytes) totals; the algorithm's own accounting (closed stints in switch order,
 * plus the open one) must match them exactly and satisfy every sequential invariant: the
 * concurrent history is one valid single-threaded history.
 */
class ConcurrencyStressTest {

    private static final int THREADS = 8;
    private static final int RECORDS_PER_THREAD = 250_000;
    private static final int PARTITIONS = 7;
    private static final int MAX_VALUE_BYTES = 1500;

    /** 4096: several records per stint. 700: records up to 1521 bytes, so skips and fast-forwards happen under contention. */
    @ParameterizedTest(name = "N = {0}")
    @ValueSource(ints = {4096, 700})
    @Timeout(value = 120, unit = TimeUnit.SECONDS) // a guard, not a measurement: the run takes a few seconds
    void shouldAccountEveryByteExactlyUnderContention(int stickyBytes) throws Exception {
        long seed = StickyFixtures.seed("stress, N = " + stickyBytes);
        StintLog log = new StintLog();
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner(new SplittableRandom(seed), log);
        partitioner.configure(Map.of(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, stickyBytes));
        Cluster cluster = cluster(PARTITIONS);
        byte[][] values = new byte[MAX_VALUE_BYTES + 1][];
        for (int size = 0; size <= MAX_VALUE_BYTES; size++) {
            values[size] = new byte[size];
        }

        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<long[]>> results = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            SplittableRandom random = new SplittableRandom(seed + t);
            results.add(pool.submit(() -> {
                long[] sent = new long[PARTITIONS];
                start.await();
                for (int i = 0; i < RECORDS_PER_THREAD; i++) {
                    byte[] value = values[random.nextInt(MAX_VALUE_BYTES + 1)];
                    int partition = partitioner.partition(TOPIC, null, null, null, value, cluster);
                    sent[partition] += value.length + UniformStickyBytesPartitioner.RECORD_OVERHEAD_BYTES;
                }
                return sent;
            }));
        }
        long began = System.nanoTime();
        start.countDown();
        long[] sent = new long[PARTITIONS];
        for (Future<long[]> result : results) {
            long[] perThread = result.get();
            for (int p = 0; p < PARTITIONS; p++) {
                sent[p] += perThread[p];
            }
        }
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
        pool.shutdown();

        long largestRecord = MAX_VALUE_BYTES + UniformStickyBytesPartitioner.RECORD_OVERHEAD_BYTES;
        List<Closed> stints = log.assertValid(stickyBytes, largestRecord, true);
        Stint open = partitioner.stickiness(TOPIC).current();
        System.out.printf("stress: %d records, %d switches in %d ms on %d threads%n",
                (long) THREADS * RECORDS_PER_THREAD, stints.size(), elapsedMillis, THREADS);

        long[] accounted = new long[PARTITIONS];
        long[] replay = new long[PARTITIONS];
        long bound = StickyFixtures.provenBound(stickyBytes, largestRecord);
        for (Closed stint : stints) {
            accounted[stint.partition()] += stint.bytes();
            replay[stint.partition()] += stint.bytes();
            long max = Long.MIN_VALUE;
            long min = Long.MAX_VALUE;
            for (long total : replay) {
                max = Math.max(max, total);
                min = Math.min(min, total);
            }
            if (max - min >= bound) {
                fail("spread %d >= %d after switch %d: %s", max - min, bound, stint.sequence(), Arrays.toString(replay));
            }
        }
        accounted[open.partition] += open.bytes();

        assertThat(stints).noneMatch(Closed::early);
        assertThat(open.sequence).as("open stint follows the last closed one").isEqualTo(stints.size());
        assertThat(Arrays.stream(accounted).sum()).as("total bytes attributed").isEqualTo(Arrays.stream(sent).sum());
        assertThat(accounted).as("bytes per partition, algorithm vs. senders").containsExactly(sent);
        long spread = Arrays.stream(sent).max().getAsLong() - Arrays.stream(sent).min().getAsLong();
        assertThat(spread).as("final spread %s", Arrays.toString(sent))
                .isLessThan(bound)
                .isLessThanOrEqualTo(StickyFixtures.twoStints(stickyBytes, largestRecord));
    }

    /**
     * Every 97th switch attempt fails as if out of memory: the record that closed the stint gets
     * the error, and a thread that waits for the switch takes it over. No thread may hang, and the
     * accounting stays exact: each failed record is counted in the stint it closed.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS) // a hang would be a failed switch nobody took over
    void shouldTakeOverFailedSwitchesUnderContention() throws Exception {
        int stickyBytes = 4096;
        long seed = StickyFixtures.seed("failed switches");
        StintLog log = new StintLog();
        AtomicLong attempts = new AtomicLong();
        TopicStickiness.SwitchListener failing = (closed, next) -> {
            if (attempts.incrementAndGet() % 97 == 0) {
                throw new OutOfMemoryError("injected: the switch fails as if out of memory");
            }
            log.onSwitch(closed, next);
        };
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner(new SplittableRandom(seed), failing);
        partitioner.configure(Map.of(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, stickyBytes));
        Cluster cluster = cluster(PARTITIONS);
        byte[][] values = new byte[MAX_VALUE_BYTES + 1][];
        for (int size = 0; size <= MAX_VALUE_BYTES; size++) {
            values[size] = new byte[size];
        }

        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<long[]>> results = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            SplittableRandom random = new SplittableRandom(seed + t);
            results.add(pool.submit(() -> {
                long[] sent = new long[PARTITIONS + 1]; // the last slot: bytes of records whose send failed
                start.await();
                for (int i = 0; i < RECORDS_PER_THREAD / 5; i++) {
                    byte[] value = values[random.nextInt(MAX_VALUE_BYTES + 1)];
                    long bytes = value.length + UniformStickyBytesPartitioner.RECORD_OVERHEAD_BYTES;
                    try {
                        sent[partitioner.partition(TOPIC, null, null, null, value, cluster)] += bytes;
                    } catch (OutOfMemoryError e) {
                        sent[PARTITIONS] += bytes;
                    }
                }
                return sent;
            }));
        }
        start.countDown();
        long[] sent = new long[PARTITIONS + 1];
        for (Future<long[]> result : results) {
            long[] perThread = result.get();
            for (int p = 0; p <= PARTITIONS; p++) {
                sent[p] += perThread[p];
            }
        }
        pool.shutdown();

        long largestRecord = MAX_VALUE_BYTES + UniformStickyBytesPartitioner.RECORD_OVERHEAD_BYTES;
        List<Closed> stints = log.assertValid(stickyBytes, largestRecord, true);
        Stint open = partitioner.stickiness(TOPIC).current();
        long[] accounted = new long[PARTITIONS];
        stints.forEach(stint -> accounted[stint.partition()] += stint.bytes());
        accounted[open.partition] += open.bytes();

        assertThat(attempts.get()).as("switch attempts, every 97th failed").isGreaterThan(97 * 10);
        assertThat(open.sequence).as("open stint follows the last closed one").isEqualTo(stints.size());
        assertThat(Arrays.stream(accounted).sum()).as("total bytes attributed: sent plus failed")
                .isEqualTo(Arrays.stream(sent).sum());
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(accounted[p]).as("partition %d: at least the bytes sent there", p).isGreaterThanOrEqualTo(sent[p]);
        }
    }
}
