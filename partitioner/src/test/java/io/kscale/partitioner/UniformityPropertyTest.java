package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.range;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.partitioner.StickyFixtures.Closed;
import io.kscale.partitioner.StickyFixtures.Ledger;
import io.kscale.partitioner.StickyFixtures.StintLog;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties of the pure algorithm over random record sizes, sticky sizes, partition counts,
 * availability changes and expansions. jqwik reports the seed and the shrunk sample of a failure.
 */
class UniformityPropertyTest {

    @Provide
    Arbitrary<List<Integer>> recordSizes() {
        Arbitrary<Integer> size = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(1, 600)),
                net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(1, 5000)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(1, 40000)));
        return size.list().ofMinSize(1).ofMaxSize(3000);
    }

    @Provide
    Arbitrary<Integer> stickyBytes() {
        return Arbitraries.oneOf(Arbitraries.integers().between(1, 64), Arbitraries.integers().between(1, 20000));
    }

    @Property(tries = 300, seed = StickyFixtures.PROPERTY_SEED)
    void shouldKeepTotalsWithinTwoStintsAtEveryStep(@ForAll long seed,
                                                    @ForAll @IntRange(min = 1, max = 40) int partitions,
                                                    @ForAll("stickyBytes") int stickyBytes,
                                                    @ForAll("recordSizes") List<Integer> sizes) {
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

    @Property(tries = 200, seed = StickyFixtures.PROPERTY_SEED)
    void shouldKeepPartitionsWithLeaderThroughoutUniformWhileOthersComeAndGo(
            @ForAll long seed,
            @ForAll @IntRange(min = 1, max = 6) int alwaysUp,
            @ForAll @IntRange(min = 1, max = 10) int flapping,
            @ForAll("stickyBytes") int stickyBytes,
            @ForAll("recordSizes") List<Integer> sizes) {
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

    @Property(tries = 200, seed = StickyFixtures.PROPERTY_SEED)
    void shouldFollowPartitionCountChanges(@ForAll long seed,
                                           @ForAll @IntRange(min = 1, max = 8) int initial,
                                           @ForAll @IntRange(min = 1, max = 8) int added,
                                           @ForAll @IntRange(min = 1, max = 2000) int stickyBytes,
                                           @ForAll @IntRange(min = 0, max = 500) int growAfter) {
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

    @Property(tries = 200, seed = StickyFixtures.PROPERTY_SEED)
    void shouldNeverReturnPartitionBeyondCountAfterShrink(@ForAll long seed,
                                                          @ForAll @IntRange(min = 2, max = 20) int before,
                                                          @ForAll @IntRange(min = 1, max = 19) int after,
                                                          @ForAll @IntRange(min = 1, max = 1000) int stickyBytes,
                                                          @ForAll @IntRange(min = 0, max = 200) int shrinkAfter) {
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
