package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.TOPIC;
import static io.kscale.partitioner.StickyFixtures.cluster;
import static io.kscale.partitioner.StickyFixtures.range;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.partitioner.StickyFixtures.Ledger;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.common.Cluster;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sender threads do not all see a metadata update at once: while the producer's metadata changes,
 * one thread calls {@code partition()} with the new {@link Cluster} and another still with the
 * old one. Pins a bug in an 8 to 16 partition expansion: a thread with the old view found the
 * open stint on a new partition "unavailable", closed it early and switched with its old view,
 * which skipped the new partitions and let a stale round run on, so the partitions that had a
 * leader throughout left the documented bound; and each disagreeing call replaced the cached view,
 * rebuilding it again and again.
 */
class StaleMetadataTest {

    private static final int N = 1000;
    private static final int VALUE_BYTES = 179;
    private static final int RECORD_BYTES = VALUE_BYTES + UniformStickyBytesPartitioner.RECORD_OVERHEAD_BYTES;
    private static final int[] THROUGHOUT = range(0, 8);

    private final Ledger ledger = new Ledger();
    private final byte[] value = new byte[VALUE_BYTES];
    private UniformStickyBytesPartitioner partitioner;

    @BeforeEach
    void configure() {
        partitioner = new UniformStickyBytesPartitioner(new SplittableRandom(StickyFixtures.seed("stale metadata")),
                TopicStickiness.SwitchListener.NONE);
        partitioner.configure(Map.of(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, N));
    }

    private int send(Cluster cluster) {
        int partition = partitioner.partition(TOPIC, null, null, null, value, cluster);
        assertThat(partition).as("a partition the caller's metadata has").isLessThan(cluster.partitionsForTopic(TOPIC).size());
        ledger.add(partition, RECORD_BYTES);
        return partition;
    }

    @Test
    void shouldKeepPartitionsThatHadALeaderThroughoutWithinTheBoundWhileThreadsDisagreeOnAnExpansion() {
        Cluster eight = cluster(8);
        Cluster sixteen = cluster(16);
        SplittableRandom random = new SplittableRandom(StickyFixtures.seed("stale metadata: which thread sends"));
        for (int i = 0; i < 3_333; i++) {
            send(eight);
            ledger.assertUniform(N, THROUGHOUT, "before the expansion, record " + i);
        }
        // Two sender threads, one with the new metadata and one still with the old, in turns.
        for (int i = 0; i < 40_000; i++) {
            send(i % 2 == 0 ? sixteen : eight);
            ledger.assertUniform(N, THROUGHOUT, "while threads disagree, record " + i);
        }
        // And in random order.
        for (int i = 0; i < 40_000; i++) {
            send(random.nextInt(3) == 0 ? eight : sixteen);
            ledger.assertUniform(N, THROUGHOUT, "while threads disagree at random, record " + i);
        }
        assertThat(ledger.totals(16)).as("the new partitions take records from the threads that see them")
                .doesNotContain(0L);
    }

    @Test
    void shouldKeepEveryPartitionWithinTheBoundOnceEveryThreadSeesTheNewMetadata() {
        Cluster eight = cluster(8);
        Cluster sixteen = cluster(16);
        for (int i = 0; i < 3_333; i++) {
            send(eight);
        }
        for (int i = 0; i < 20_000; i++) {
            send(i % 2 == 0 ? sixteen : eight);
        }
        long[] atAgreement = ledger.totals(16);
        Ledger since = new Ledger();
        for (int i = 0; i < 40_000; i++) {
            since.add(send(sixteen), RECORD_BYTES);
        }
        // Measured from the moment all agree, every partition joins the rounds: within two stints,
        // plus the one stint each new partition may be behind or ahead when agreement comes.
        long spread = since.spread(range(0, 16));
        assertThat(spread).as("spread since agreement, totals at agreement %s", java.util.Arrays.toString(atAgreement))
                .isLessThanOrEqualTo(StickyFixtures.twoStints(N, RECORD_BYTES) + N + RECORD_BYTES);
    }

    @Test
    void shouldServeBothClustersFromTheCacheWhileThreadsDisagree() {
        Cluster eight = cluster(8);
        Cluster sixteen = cluster(16);
        send(eight);
        send(sixteen);
        send(eight);
        PartitionView ofEight = partitioner.cachedView(TOPIC, eight);
        PartitionView ofSixteen = partitioner.cachedView(TOPIC, sixteen);
        assertThat(ofEight).as("the old Cluster's view, cached").isNotNull();
        assertThat(ofSixteen).as("the new Cluster's view, still cached after the old Cluster came back").isNotNull();

        for (int i = 0; i < 100; i++) {
            send(eight);
            send(sixteen);
        }
        assertThat(partitioner.cachedView(TOPIC, eight)).as("not rebuilt").isSameAs(ofEight);
        assertThat(partitioner.cachedView(TOPIC, sixteen)).as("not rebuilt").isSameAs(ofSixteen);

        Cluster sixteenAgain = cluster(16);
        send(sixteenAgain);
        send(eight);
        assertThat(partitioner.cachedView(TOPIC, sixteenAgain)).as("a newer Cluster is kept over an older one").isNotNull();
    }

    /**
     * The realistic case: a thread that fetched the metadata just before an 8 to 16 expansion
     * places one record with the old view while the open stint is on a new partition. It cannot
     * send there, so the stint ends; but no new partition may lose its turn for it (they were
     * skipped up to the next old partition, each a stint behind for good): at the start of a later
     * round, every partition has received the same bytes since the round it happened in began,
     * give or take a carry (less than a record) at either end.
     */
    @Test
    void shouldCostNoNewPartitionItsTurnWhenAThreadStillOnTheOldViewPlacesARecord() {
        PartitionView eight = PartitionView.allAvailable(8);
        PartitionView sixteen = PartitionView.allAvailable(16);
        long base = StickyFixtures.seed("stale view in a round of 16");
        for (int attempt = 0; attempt < 20; attempt++) {
            TopicStickiness stickiness = new TopicStickiness(N, base + attempt, eight, TopicStickiness.SwitchListener.NONE);
            long[] totals = new long[16];
            for (int i = 0; i < 100; i++) {
                totals[stickiness.partition(RECORD_BYTES, eight)] += RECORD_BYTES;
            }
            // Two full rounds of 16 after the expansion, then on to the start of a round.
            for (int i = 0; i < 200 || stickiness.current().position != 0; i++) {
                totals[stickiness.partition(RECORD_BYTES, sixteen)] += RECORD_BYTES;
            }
            long[] atRoundStart = totals.clone();
            while (stickiness.currentPartition() < 8) {
                totals[stickiness.partition(RECORD_BYTES, sixteen)] += RECORD_BYTES;
            }
            int stale = stickiness.partition(RECORD_BYTES, eight);
            assertThat(stale).as("attempt %d: the stale record", attempt).isLessThan(8);
            totals[stale] += RECORD_BYTES;
            // Fifty rounds on, to the start of a round.
            for (int i = 0; i < 50 * 16 * N / RECORD_BYTES || stickiness.current().position != 0; i++) {
                totals[stickiness.partition(RECORD_BYTES, sixteen)] += RECORD_BYTES;
            }

            long[] since = new long[16];
            for (int p = 0; p < 16; p++) {
                since[p] = totals[p] - atRoundStart[p];
            }
            long spread = java.util.Arrays.stream(since).max().getAsLong() - java.util.Arrays.stream(since).min().getAsLong();
            assertThat(spread).as("attempt %d: bytes per partition between two round starts, %s", attempt,
                    java.util.Arrays.toString(since)).isLessThan(2L * RECORD_BYTES);
        }
    }
}
