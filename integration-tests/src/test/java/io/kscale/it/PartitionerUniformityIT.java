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
 * same test on the same cluster, for the record (printed, not asserted).
 */
@RealKafkaCluster(brokers = 3)
class PartitionerUniformityIT {

    private static final Logger log = LoggerFactory.getLogger(PartitionerUniformityIT.class);

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
        assertThat(runs).allSatisfy(run -> assertThat(run.failed()).as(run.peer().label()).isZero());
    }
}
