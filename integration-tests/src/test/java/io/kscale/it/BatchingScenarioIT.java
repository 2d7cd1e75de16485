package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.batching.BatchingReport;
import io.kscale.lab.batching.BatchingRun;
import io.kscale.lab.batching.BatchingScenario;
import io.kscale.lab.batching.BatchingSettings;
import io.kscale.lab.batching.SendPacing;
import io.kscale.lab.batching.SendRate;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.partitioner.PartitionerPeer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lab's batching scenario (kscale-lab batching) on real brokers, one short cell: 5,000
 * records/s in bursts, linger.ms=5. It checks that the scenario measures what it says, not how
 * well kscale batches (that is a benchmark: docs/measurements.md).
 *
 * <p>The control: RoundRobinPartitioner puts each record on the next partition, so its batches
 * hold about one record, while a sticky partitioner's hold several (measured 747 B against
 * 10,333 B for kscale at a load average of 40). A scenario that lost the partitioner.class
 * setting would give both the built-in's batches, and the control would fail.
 */
@RealKafkaCluster(brokers = 3)
class BatchingScenarioIT {

    private static final Logger log = LoggerFactory.getLogger(BatchingScenarioIT.class);

    @Test
    void shouldMeasureEachPartitionersBatchesOnPartitionsLedEvenlyByEveryBroker(KafkaCluster cluster) {
        BatchingSettings settings = BatchingSettings.builder()
                .rates(List.of(SendRate.perSecond(5_000)))
                .pacings(List.of(SendPacing.BURSTY))
                .lingers(List.of(5))
                .rounds(1)
                .duration(Duration.ofSeconds(6))
                .build();
        List<BatchingRun> told = new ArrayList<>();

        List<BatchingRun> runs = new BatchingScenario(settings).runOn(cluster, told::add);
        log.info("Batching, one cell:\n{}", BatchingReport.markdown(runs));

        assertThat(told).isEqualTo(runs);
        assertThat(runs).extracting(BatchingRun::peer)
                .containsExactly(PartitionerPeer.KSCALE, PartitionerPeer.BUILT_IN, PartitionerPeer.ROUND_ROBIN);
        for (BatchingRun run : runs) {
            String peer = run.peer().label();
            assertThat(run.failed()).as(peer).isZero();
            assertThat(run.acked()).as(peer + ": records acked").isGreaterThan(5_000);
            assertThat(run.recordsPerRequest()).as(peer + ": records per request").isGreaterThanOrEqualTo(1);
            long perBroker = 0;
            for (int broker = 0; broker < 3; broker++) {
                assertThat(run.requests(broker)).as(peer + ": requests to broker " + broker).isPositive();
                // Every broker leads 10 of the 30 partitions; no partitioner here leaves one out.
                assertThat(run.records(broker)).as(peer + ": records on broker " + broker)
                        .isGreaterThan(run.acked() / 6);
                perBroker += run.records(broker);
            }
            assertThat(perBroker).as(peer + ": records counted per broker").isEqualTo(run.acked());
        }
        BatchingRun kscale = runs.get(0);
        BatchingRun roundRobin = runs.get(2);
        assertThat(kscale.batchSizeAvg()).as("control: kscale's batch-size-avg over RoundRobinPartitioner's")
                .isGreaterThan(3 * roundRobin.batchSizeAvg());
    }
}
