package io.kscale.lab.batching;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.lab.partitioner.PartitionerPeer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BatchingReportTest {

    private static final BatchingCell BURSTY_5K = new BatchingCell(SendRate.perSecond(5_000), SendPacing.BURSTY, 0);
    private static final BatchingCell MAX_LINGER_5 = new BatchingCell(SendRate.MAX, SendPacing.NONE, 5);

    /** A 10 s run of 50,000 records: {@code perRequest} records per request, 4 ms mean and 20 ms p99 latency. */
    private static BatchingRun run(BatchingCell cell, PartitionerPeer peer, int round, double perRequest) {
        PacedProducerRun.Result result = new PacedProducerRun.Result(50_000, 0, 10_000_000_000L, 4_000_000L,
                20_000_000L, perRequest, perRequest * 530, new long[] {20_000, 15_000, 15_000},
                new long[] {2_000, 1_000, 0});
        return new BatchingRun(cell, peer, round, 512, result);
    }

    private static final List<BatchingRun> RUNS = List.of(
            run(BURSTY_5K, PartitionerPeer.KSCALE, 0, 8.0),
            run(BURSTY_5K, PartitionerPeer.BUILT_IN, 0, 10.0),
            run(BURSTY_5K, PartitionerPeer.BUILT_IN, 1, 10.0),
            run(BURSTY_5K, PartitionerPeer.KSCALE, 1, 9.0),
            run(MAX_LINGER_5, PartitionerPeer.KSCALE, 0, 30.0),
            run(MAX_LINGER_5, PartitionerPeer.BUILT_IN, 0, 20.0));

    @Test
    void shouldSummariseEachCellRoundByRoundWithKscaleOverTheBuiltIn() {
        String summary = BatchingReport.summary(RUNS);

        assertThat(summary.lines()).containsExactly(
                "| rate (records/s) | pacing | linger.ms | records/request, kscale | records/request, built-in"
                        + " | kscale / built-in | kscale against built-in (rank test) |",
                "|---|---|---|---|---|---|---|",
                // Two rounds each: even every kscale round below every built-in one is 2 of 6 splits.
                "| 5000 | bursty | 0 | 8.00 / 9.00 | 10.00 / 10.00 | 0.85x | no difference shown (p = 0.33) |",
                "| max | - | 5 | 30.00 | 20.00 | 1.50x | no difference shown (p = 1.00) |");
    }

    @Test
    void shouldListEveryRunWithLatencyThroughputAndRecordsPerRequestPerBroker() {
        String table = BatchingReport.runsTable(RUNS);

        assertThat(table.lines()).hasSize(2 + RUNS.size());
        // 50,000 records in 10 s of 512 B: 5,000/s, 2.56 MB/s; broker 2 got no request: "-".
        assertThat(table.lines().skip(2).findFirst()).hasValue(
                "| 5000 | bursty | 0 | kscale | 1 | 8.00 | 4240 | 4.00 | 20.00 | 5000 | 2.56 | 10.0 / 15.0 / - |");
    }

    @Test
    void shouldWriteOneCsvLinePerRunWithRequestsPerBroker() {
        List<String> lines = BatchingReport.csv(RUNS).lines().toList();

        assertThat(lines).hasSize(1 + RUNS.size());
        assertThat(lines.get(0)).endsWith("mb_per_s,requests_broker_0,records_per_request_broker_0,requests_broker_1,"
                + "records_per_request_broker_1,requests_broker_2,records_per_request_broker_2");
        assertThat(lines.get(5)).isEqualTo("max,none,5,kscale,1,50000,0,10.000,30.000,15900.0,4.000,20.000,5000.0,"
                + "2.560,2000,10.000,1000,15.000,0,-");
    }

    @Test
    void shouldWriteTheMarkdownAndCsvFilesAndReturnTheirPaths(@TempDir Path dir) throws Exception {
        List<Path> files = BatchingReport.write(RUNS, "Setup line.", dir.resolve("reports"), "batching-test");

        assertThat(files).containsExactly(dir.resolve("reports/batching-test.md"), dir.resolve("reports/batching-test.csv"));
        assertThat(Files.readString(files.get(0))).startsWith("# Batching\n\nSetup line.\n\n| rate (records/s)")
                .contains("| 5000 | bursty | 0 | kscale | 2 | 9.00 |");
        assertThat(Files.readString(files.get(1))).isEqualTo(BatchingReport.csv(RUNS));
    }
}
