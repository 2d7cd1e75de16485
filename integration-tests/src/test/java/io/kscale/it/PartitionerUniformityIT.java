package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.partitioner.PartitionerPeer;
import io.kscale.lab.partitioner.PartitionerReport;
import io.kscale.lab.partitioner.PartitionerRun;
import io.kscale.lab.partitioner.PartitionerScenario;
import io.kscale.lab.partitioner.PartitionerSettings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KIP-794's experiment on real brokers: broker 0 answers 20 ms later, one partition is led by
 * each broker, linger.ms=0, 512-byte unkeyed records at 1 MB/s. kscale's partitioner must keep
 * every partition within 2% of the mean; Kafka's built-in and RoundRobinPartitioner run in the
 * same test on the same cluster.
 *
 * <p>The control: Kafka's built-in partitioner must show the problem in the same run: the slowed
 * broker's partition gets the most bytes, more than 1% above the mean. Without it a scenario that
 * no longer skews anything (no latency added, partitions not led one per broker) would let kscale
 * pass without testing it. Measured: 11.5% and 13.3% in the lab's 20 s rounds on a quiet machine
 * (README, "Measured: one slow broker"), 10-20% in the design notes, but only 2.7% in this test at
 * a load average of 36 (other builds on the 2 cores: every broker is slowed then, and the 20 ms
 * added to one counts for less), and 9.6% in the next run at 30. So the bound is 1%, under half
 * the smallest value seen and still ten times kscale's own spread (0.1%). The skew comes from
 * batching: the built-in moves on to the next partition only when a new batch starts, and the slow
 * broker's partition fills larger batches while its requests wait.
 *
 * <p>Its limit, measured by running this test with no latency added: at a load average of 30 the
 * built-in's largest partition was then 2.9% above the mean, but partition 1, not the slowed
 * broker's, and the control failed. On such a loaded machine a 12 s round cannot tell a 2.7% skew
 * from noise, so a scenario that lost its latency would still pass the control when the noise
 * happens to favour partition 0 by more than 1% (about one run in three or fewer); on a quiet
 * machine the skew is 11.5-13.3%. A longer round for the built-in would separate the two.
 *
 * <p>So where the first round's control does not hold, a second round of the built-in alone, twice
 * as long, decides it (one CI run, not loaded, saw 2.1% on the slowed partition and 4.3% on
 * another in the 12 s round).
 */
@RealKafkaCluster(brokers = 3)
class PartitionerUniformityIT {

    private static final Logger log = LoggerFactory.getLogger(PartitionerUniformityIT.class);

    /** The built-in must give the slow broker's partition more than 1% above the mean (see the class comment). */
    private static final double CONTROL_MIN_SKEW = 1.01;
    /** The round of the built-in alone when the first round's control did not hold. */
    private static final Duration CONTROL_RETRY_DURATION = Duration.ofSeconds(24);

    @Test
    void shouldKeepEveryPartitionWithinTwoPercentOfTheMeanWhenOneBrokerIsSlow(KafkaCluster cluster) {
        PartitionerSettings settings = PartitionerSettings.builder()
                .peers(List.of(PartitionerPeer.KSCALE, PartitionerPeer.BUILT_IN, PartitionerPeer.ROUND_ROBIN))
                .duration(Duration.ofSeconds(12))
                .build();

        List<PartitionerRun> runs = new PartitionerScenario(settings).runOn(cluster);
        log.info("Partitioners with broker 0 slowed by 20 ms:\n{}", PartitionerReport.table(runs, settings));

        PartitionerRun kscale = runs.stream().filter(r -> r.peer() == PartitionerPeer.KSCALE).findFirst().orElseThrow();
        assertThat(kscale.failed()).isZero();
        assertThat(kscale.acked()).as("records acked").isGreaterThan(10_000);
        assertThat(kscale.maxOverMean()).as("largest partition's bytes over the mean").isLessThanOrEqualTo(1.02);
        assertThat(runs).hasSize(settings.peers().size())
                .allSatisfy(run -> assertThat(run.failed()).as(run.peer().label()).isZero());

        PartitionerRun builtIn = runs.stream().filter(r -> r.peer() == PartitionerPeer.BUILT_IN).findFirst().orElseThrow();
        if (!showsTheSkew(builtIn, settings.slowBroker())) {
            // One CI run at 1,950 records/s saw the built-in's slowed partition at 2.1% over the
            // mean and another at 4.3%: the 12 s round's noise. A second, longer round of the
            // built-in alone decides; kscale's bound above was checked in the first round.
            PartitionerSettings longer = PartitionerSettings.builder()
                    .peers(List.of(PartitionerPeer.BUILT_IN))
                    .duration(CONTROL_RETRY_DURATION)
                    .build();
            log.info("The built-in did not show the skew in the first round; a second round of {}", CONTROL_RETRY_DURATION);
            List<PartitionerRun> again = new PartitionerScenario(longer).runOn(cluster);
            log.info("The built-in again, broker 0 slowed by 20 ms:\n{}", PartitionerReport.table(again, longer));
            builtIn = again.get(0);
        }
        assertThat(builtIn.acked()).as("control: records acked by the built-in").isGreaterThan(10_000);
        assertThat(builtIn.shareOverMean(settings.slowBroker()))
                .as("control: the built-in's share of the slowed broker's partition is the largest")
                .isEqualTo(builtIn.maxOverMean());
        assertThat(builtIn.shareOverMean(settings.slowBroker()))
                .as("control: the built-in's bytes on the slowed broker's partition over the mean")
                .isGreaterThan(CONTROL_MIN_SKEW);
    }

    /** The control's two conditions, asserted below on the round that decides. */
    private static boolean showsTheSkew(PartitionerRun builtIn, int slowBroker) {
        double slow = builtIn.shareOverMean(slowBroker);
        return slow == builtIn.maxOverMean() && slow > CONTROL_MIN_SKEW;
    }
}
