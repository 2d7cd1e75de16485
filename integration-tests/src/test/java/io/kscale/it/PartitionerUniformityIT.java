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
 * <p>The control: Kafka's built-in partitioner must show the problem in the same run, the slowed
 * broker's partition getting more than 5% above the mean. Without it a scenario that no longer
 * skews anything (no latency added, partitions not led one per broker, a producer that batches
 * everything alike) would let kscale pass without testing it. Measured here: 11.5-13.3% in the
 * lab's 20 s rounds (README, "Measured: one slow broker"), 10-20% in the design notes; 5% is
 * under half the smallest value seen, and 2.5 times kscale's own bound, so the control fails only
 * when the skew is gone, not on noise (at 1 MB/s a 12 s run writes about 4 MB per partition;
 * kscale's largest partition stays within 0.1% of the mean in the same setup).
 */
@RealKafkaCluster(brokers = 3)
class PartitionerUniformityIT {

    private static final Logger log = LoggerFactory.getLogger(PartitionerUniformityIT.class);

    /** The built-in must give the slow broker's partition more than 5% above the mean (see the class comment). */
    private static final double CONTROL_MIN_SKEW = 1.05;

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
        assertThat(builtIn.acked()).as("control: records acked by the built-in").isGreaterThan(10_000);
        assertThat(builtIn.shareOverMean(settings.slowBroker()))
                .as("control: the built-in's bytes on the slowed broker's partition over the mean")
                .isGreaterThan(CONTROL_MIN_SKEW);
    }
}
