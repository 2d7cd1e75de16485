package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.range;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.partitioner.StickyFixtures.Closed;
import io.kscale.partitioner.StickyFixtures.Ledger;
import io.kscale.partitioner.StickyFixtures.StintLog;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * Properties of the pure algorithm over random record sizes, sticky sizes, partition counts,
 * availability changes and expansions. Each try draws its sample from its seed ({@link Seeds}); a
 * failure prints the seed and the sample, its record sizes shrunk to a shorter list that still
 * fails (a failing list of 3,000 sizes is hard to read).
 */
class UniformityPropertyTest {

    private static List<Integer> recordSizes(SplittableRandom random) {
        return Seeds.listOf(random, 1, 3000, r -> {
            int draw = r.nextInt(10);
            return Seeds.intBetween(r, 1, draw < 6 ? 600 : draw < 9 ? 5000 : 40000);
        });
    }

    private static int stickyBytes(SplittableRandom random) {
        return Seeds.intBetween(random, 1, random.nextBoolean() ? 64 : 20000);
    }

    @Property
    Stream<DynamicTest> shouldKeepTotalsWithinTwoStintsAtEveryStep() {
        return Seeds.tries(300, random -> {
            long seed = Seeds.anyLong(random);
            int partitions = Seeds.intBetween(random, 1, 40);
            int stickyBytes = stickyBytes(random);
            List<Integer> sizes = recordSizes(random);
            Seeds.sample("seed %d, %d partitions, sticky bytes %d, %d record sizes", seed, partitions, stickyBytes, sizes.size());
            Seeds.checkShrinking(sizes, shrunk -> keepsTotalsWithinTwoStints(seed, partitions, stickyBytes, shrunk));
        });
    }

    private static void keepsTotalsWithinTwoStints(long seed, int partitions, int stickyBytes, List<Integer> sizes) {
        PartitionView view = PartitionView.allAvailable(partitions);
        StintLog log = new StintLog();
        TopicStickiness stickiness = new TopicStickiness(stickyBytes, seed, view, log);
        Ledger ledger = new Ledger();
        int[] all = range(0, partitions);
        for (int i = 0; i < sizes.size(); i++) {
            int partition = stickiness.partition(sizes.get(i), view);
            assertThat(partition).isBetween(0, partitions - 1);
            ledger.add(partition, sizes.get(i));
            ledger.assertUniform(stickyBytes, all, "after record " + i);
        }
        List<Closed> stints = log.assertValid(stickyBytes, ledger.largestRecord(), partitions > 1);
        assertAccountedExactly(stints, stickiness, ledger, partitions);
    }

    @Property
    Stream<DynamicTest> shouldKeepPartitionsWithLeaderThroughoutUniformWhileOthersComeAndGo() {
        return Seeds.tries(200, random -> {
            long seed = Seeds.anyLong(random);
            int alwaysUp = Seeds.intBetween(random, 1, 6);
            int flapping = Seeds.intBetween(random, 1, 10);
            int stickyBytes = stickyBytes(random);
            List<Integer> sizes = recordSizes(random);
            Seeds.sample("seed %d, %d partitions always up, %d flapping, sticky bytes %d, %d record sizes", seed, alwaysUp, flapping,
                    stickyBytes, sizes.size());
            Seeds.checkShrinking(sizes, shrunk -> keepsPartitionsWithLeaderUniform(seed, alwaysUp, flapping, stickyBytes, shrunk));
        });
    }

    private static void keepsPartitionsWithLeaderUniform(long seed, int alwaysUp, int flapping, int stickyBytes, List<Integer> sizes) {
        int partitions = alwaysUp + flapping;
        SplittableRandom random = new SplittableRandom(seed);
        boolean[] up = new boolean[partitions];
        PartitionView view = viewWith(up, alwaysUp);
        StintLog log = new StintLog();
        TopicStickiness stickiness = new TopicStickiness(stickyBytes, seed, view, log);
        Ledger ledger = new Ledger();
        int[] core = range(0, alwaysUp);
        for (int i = 0; i < sizes.size(); i++) {
            if (random.nextInt(20) == 0) {
                int flipped = alwaysUp + random.nextInt(flapping);
                up[flipped] = !up[flipped];
                view = viewWith(up, alwaysUp);
            }
            int partition = stickiness.partition(sizes.get(i), view);
            assertThat(view.isAvailable(partition)).as("partition %d has a leader in %s", partition, view).isTrue();
            ledger.add(partition, sizes.get(i));
            ledger.assertUniform(stickyBytes, core, "of partitions always up, after record " + i);
        }
        log.assertValid(stickyBytes, ledger.largestRecord(), false);
    }

    @Property
    Stream<DynamicTest> shouldFollowPartitionCountChanges() {
        return Seeds.tries(200, random -> followsPartitionCountChanges(Seeds.anyLong(random), Seeds.intBetween(random, 1, 8),
                Seeds.intBetween(random, 1, 8), Seeds.intBetween(random, 1, 2000), Seeds.intBetween(random, 0, 500)));
    }

    private static void followsPartitionCountChanges(long seed, int initial, int added, int stickyBytes, int growAfter) {
        Seeds.sample("seed %d, %d partitions, %d added after %d records, sticky bytes %d", seed, initial, added, growAfter, stickyBytes);
        SplittableRandom random = new SplittableRandom(seed);
        StintLog log = new StintLog();
        PartitionView view = PartitionView.allAvailable(initial);
        TopicStickiness stickiness = new TopicStickiness(stickyBytes, seed, view, log);
        Ledger ledger = new Ledger();
        long[] beforeGrowth = null;
        long switchesAtGrowth = 0;
        int records = growAfter + 3000;
        for (int i = 0; i < records; i++) {
            if (i == growAfter) {
                view = PartitionView.allAvailable(initial + added);
                beforeGrowth = ledger.totals(initial + added);
                switchesAtGrowth = stickiness.switchCount();
            }
            long bytes = 1 + random.nextInt(2 * stickyBytes);
            int partition = stickiness.partition(bytes, view);
            assertThat(partition).isLessThan(view.partitionCount());
            ledger.add(partition, bytes);
            ledger.assertUniform(stickyBytes, range(0, initial), "of the original partitions, after record " + i);
            // The switch that ends the stint open at the growth starts a round holding the new
            // partitions (a spliced or a fresh one); once its stints closed, each got records.
            if (i > growAfter && stickiness.switchCount() >= switchesAtGrowth + 1 + initial + added) {
                for (int p = initial; p < initial + added; p++) {
                    assertThat(ledger.total(p)).as("new partition %d, one round after the growth", p).isPositive();
                }
            }
        }
        // From the growth on, old and new partitions take turns alike.
        long[] since = new long[initial + added];
        for (int p = 0; p < since.length; p++) {
            since[p] = ledger.total(p) - beforeGrowth[p];
        }
        long max = java.util.Arrays.stream(since).max().getAsLong();
        long min = java.util.Arrays.stream(since).min().getAsLong();
        assertThat(max - min).as("spread of bytes since the growth %s", java.util.Arrays.toString(since))
                .isLessThanOrEqualTo(StickyFixtures.twoStints(stickyBytes, ledger.largestRecord()));
        long firstAfterGrowth = switchesAtGrowth;
        assertThat(log.assertValid(stickyBytes, ledger.largestRecord(), initial > 1))
                .filteredOn(stint -> stint.sequence() >= firstAfterGrowth)
                .allSatisfy(stint -> assertThat(stint.nextPartition()).isNotEqualTo(stint.partition()));
    }

    @Property
    Stream<DynamicTest> shouldNeverReturnPartitionBeyondCountAfterShrink() {
        return Seeds.tries(200, random -> neverReturnsPartitionBeyondCount(Seeds.anyLong(random), Seeds.intBetween(random, 2, 20),
                Seeds.intBetween(random, 1, 19), Seeds.intBetween(random, 1, 1000), Seeds.intBetween(random, 0, 200)));
    }

    private static void neverReturnsPartitionBeyondCount(long seed, int before, int after, int stickyBytes, int shrinkAfter) {
        Seeds.sample("seed %d, %d partitions, %d after %d records, sticky bytes %d", seed, before, after, shrinkAfter, stickyBytes);
        int shrunk = Math.min(after, before - 1);
        SplittableRandom random = new SplittableRandom(seed);
        PartitionView view = PartitionView.allAvailable(before);
        TopicStickiness stickiness = new TopicStickiness(stickyBytes, seed, view, new StintLog());
        for (int i = 0; i < shrinkAfter + 500; i++) {
            if (i == shrinkAfter) {
                view = PartitionView.allAvailable(shrunk);
            }
            int partition = stickiness.partition(1 + random.nextInt(stickyBytes), view);
            assertThat(partition).isBetween(0, view.partitionCount() - 1);
        }
    }

    private static PartitionView viewWith(boolean[] up, int alwaysUp) {
        int[] available = java.util.stream.IntStream.range(0, up.length).filter(p -> p < alwaysUp || up[p]).toArray();
        return PartitionView.of(up.length, available);
    }

    /** Bytes of the stints per partition (closed ones plus the open one) equal the bytes sent there. */
    static void assertAccountedExactly(List<Closed> stints, TopicStickiness stickiness, Ledger ledger, int partitions) {
        long[] accounted = new long[partitions];
        stints.forEach(stint -> accounted[stint.partition()] += stint.bytes());
        Stint open = stickiness.current();
        accounted[open.partition] += open.bytes();
        assertThat(accounted).isEqualTo(ledger.totals(partitions));
    }
}
