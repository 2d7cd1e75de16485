package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.range;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.partitioner.StickyFixtures.Closed;
import io.kscale.partitioner.StickyFixtures.Ledger;
import io.kscale.partitioner.StickyFixtures.StintLog;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.kafka.common.Cluster;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

/**
 * Rounds visit the partitions of one leader one after another (issue 19): a stint that ends in the
 * middle of a burst of records then hands the rest of the burst to a partition on the same broker,
 * so the sender still carries the burst in one produce request. The order stays random (which
 * broker, and which of its partitions, comes next) and the byte bounds stay as they were.
 */
class LeaderGroupedRoundsTest {

    private static final long SEED = 42;
    private static final int BROKERS = 3;
    private static final int PARTITIONS = 30;

    /** 30 partitions, partition p led by broker p % 3: 10 per broker, as in the setup. */
    private static PartitionView tenPerBroker() {
        int[] partitions = range(0, PARTITIONS);
        int[] leaders = Arrays.stream(partitions).map(p -> p % BROKERS).toArray();
        return PartitionView.withLeaders(PARTITIONS, partitions, leaders);
    }

    @Test
    void shouldChangeBrokerOnlyBetweenLeaderGroups() {
        PartitionView view = tenPerBroker();
        StintLog log = new StintLog();
        TopicStickiness stickiness = new TopicStickiness(1000, SEED, view, log);
        int rounds = 20;
        for (int i = 0; i < rounds * PARTITIONS * 10; i++) {
            stickiness.partition(100, view);
        }
        List<Closed> stints = log.assertValid(1000, 100, true);
        assertThat(stints).hasSize(rounds * PARTITIONS);
        long brokerChanges = stints.stream()
                .filter(stint -> view.leader(stint.partition()) != view.leader(stint.nextPartition()))
                .count();
        // Per round: one change between each pair of the 3 groups; a new round continues on the
        // broker of the round's last stint. A random order would change broker at 2 switches in 3.
        assertThat(brokerChanges).isLessThanOrEqualTo((BROKERS - 1L) * rounds);
    }

    @Test
    void shouldTakeLeadersFromTheProducersMetadata() {
        StintLog log = new StintLog();
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner(new SplittableRandom(SEED), log);
        partitioner.configure(Map.of(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, 1000));
        Cluster cluster = StickyFixtures.cluster(PARTITIONS); // partition p led by node p % 3
        byte[] value = new byte[100 - UniformStickyBytesPartitioner.RECORD_OVERHEAD_BYTES];
        int rounds = 10;
        for (int i = 0; i < rounds * PARTITIONS * 10; i++) {
            partitioner.partition(StickyFixtures.TOPIC, null, null, value, value, cluster);
        }
        List<Closed> stints = log.inOrder();
        assertThat(stints).hasSize(rounds * PARTITIONS);
        assertThat(stints.stream().filter(stint -> stint.partition() % BROKERS != stint.nextPartition() % BROKERS).count())
                .isLessThanOrEqualTo((BROKERS - 1L) * rounds);
    }

    @Test
    void shouldStillVisitEveryPartitionOncePerRound() {
        PartitionView view = tenPerBroker();
        StintLog log = new StintLog();
        TopicStickiness stickiness = new TopicStickiness(1000, SEED, view, log);
        for (int i = 0; i < 5 * PARTITIONS * 10; i++) {
            stickiness.partition(100, view);
        }
        List<Closed> stints = log.assertValid(1000, 100, true);
        for (int round = 0; round < 5; round++) {
            Set<Integer> visited = new HashSet<>();
            stints.subList(round * PARTITIONS, (round + 1) * PARTITIONS).forEach(stint -> visited.add(stint.partition()));
            assertThat(visited).as("round %d", round).hasSize(PARTITIONS);
        }
    }

    @Test
    void shouldShuffleTheOrderOfBrokersAndOfPartitionsWithinEach() {
        PartitionView view = tenPerBroker();
        Set<String> orders = new HashSet<>();
        Set<Integer> firstBrokers = new HashSet<>();
        for (long seed = 0; seed < 20; seed++) {
            StintLog log = new StintLog();
            TopicStickiness stickiness = new TopicStickiness(1000, seed, view, log);
            for (int i = 0; i < PARTITIONS * 10; i++) {
                stickiness.partition(100, view);
            }
            List<Closed> round = log.inOrder();
            firstBrokers.add(view.leader(round.get(0).partition()));
            orders.add(round.stream().map(stint -> String.valueOf(stint.partition())).reduce("", String::concat));
        }
        assertThat(firstBrokers).as("brokers that start the first round").hasSize(BROKERS);
        assertThat(orders).as("distinct first rounds of 20 seeds").hasSize(20);
    }

    @Property
    Stream<DynamicTest> shouldKeepTotalsWithinTwoStintsWhileLeadersMove() {
        return Seeds.tries(200, random -> {
            long seed = Seeds.anyLong(random);
            int partitions = Seeds.intBetween(random, 1, 40);
            int brokers = Seeds.intBetween(random, 1, 6);
            int stickyBytes = Seeds.intBetween(random, 1, random.nextBoolean() ? 64 : 20000);
            List<Integer> sizes = Seeds.listOf(random, 1, 3000, r -> Seeds.intBetween(r, 1, r.nextInt(10) < 8 ? 600 : 40000));
            Seeds.sample("seed %d, %d partitions on %d brokers, sticky bytes %d, %d record sizes", seed, partitions, brokers,
                    stickyBytes, sizes.size());
            Seeds.checkShrinking(sizes, shrunk -> keepsTotalsWithinTwoStints(seed, partitions, brokers, stickyBytes, shrunk));
        });
    }

    private static void keepsTotalsWithinTwoStints(long seed, int partitions, int brokers, int stickyBytes, List<Integer> sizes) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] all = range(0, partitions);
        PartitionView view = PartitionView.withLeaders(partitions, all, randomLeaders(random, partitions, brokers));
        StintLog log = new StintLog();
        TopicStickiness stickiness = new TopicStickiness(stickyBytes, seed, view, log);
        Ledger ledger = new Ledger();
        for (int i = 0; i < sizes.size(); i++) {
            if (random.nextInt(50) == 0) {
                view = PartitionView.withLeaders(partitions, all, randomLeaders(random, partitions, brokers));
            }
            int partition = stickiness.partition(sizes.get(i), view);
            ledger.add(partition, sizes.get(i));
            ledger.assertUniform(stickyBytes, all, "after record " + i);
        }
        List<Closed> stints = log.assertValid(stickyBytes, ledger.largestRecord(), partitions > 1);
        UniformityPropertyTest.assertAccountedExactly(stints, stickiness, ledger, partitions);
    }

    private static int[] randomLeaders(SplittableRandom random, int partitions, int brokers) {
        int[] leaders = new int[partitions];
        Arrays.setAll(leaders, p -> random.nextInt(brokers));
        return leaders;
    }
}
