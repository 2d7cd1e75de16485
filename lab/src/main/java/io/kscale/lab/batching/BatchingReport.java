package io.kscale.lab.batching;

import io.kscale.lab.partitioner.PartitionerPeer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders batching runs as Markdown (a summary per cell, then every run) and as CSV (one line per
 * run). The summary lists records per request of each round, {@code 8.83 / 9.57} for two rounds,
 * and when both ran, the ratio of kscale's mean to the built-in's and whether their rounds differ
 * by more than rounds differ among themselves ({@link RoundsDifference}).
 */
public final class BatchingReport {

    private BatchingReport() {
    }

    /** The summary, then the runs, as Markdown tables. */
    public static String markdown(List<BatchingRun> runs) {
        return summary(runs) + "\n" + runsTable(runs);
    }

    /** Per cell: records per request of each peer, round by round, and kscale over the built-in. */
    static String summary(List<BatchingRun> runs) {
        List<PartitionerPeer> peers = runs.stream().map(BatchingRun::peer).distinct().sorted()
                .collect(Collectors.toList());
        boolean ratio = peers.contains(PartitionerPeer.KSCALE) && peers.contains(PartitionerPeer.BUILT_IN);
        List<String> header = new ArrayList<>(List.of("rate (records/s)", "pacing", "linger.ms"));
        peers.forEach(peer -> header.add("records/request, " + peer.cliName()));
        if (ratio) {
            header.add("kscale / built-in");
            header.add("kscale against built-in (rank test)");
        }
        StringBuilder out = new StringBuilder();
        headerRow(out, header);
        for (Map.Entry<BatchingCell, List<BatchingRun>> cell : byCell(runs).entrySet()) {
            List<String> row = cellColumns(cell.getKey());
            for (PartitionerPeer peer : peers) {
                row.add(cell.getValue().stream().filter(r -> r.peer() == peer)
                        .map(r -> format(r.recordsPerRequest(), 2)).collect(Collectors.joining(" / ")));
            }
            if (ratio) {
                double[] kscale = recordsPerRequest(cell.getValue(), PartitionerPeer.KSCALE);
                double[] builtIn = recordsPerRequest(cell.getValue(), PartitionerPeer.BUILT_IN);
                row.add(format(mean(kscale) / mean(builtIn), 2) + "x");
                RoundsDifference difference = RoundsDifference.of(kscale, builtIn);
                row.add(difference == null ? "-" : difference.verdict());
            }
            row(out, row);
        }
        return out.toString();
    }

    /** Every run, in the order run. */
    static String runsTable(List<BatchingRun> runs) {
        StringBuilder out = new StringBuilder();
        headerRow(out, List.of("rate (records/s)", "pacing", "linger.ms", "partitioner", "round", "records/request",
                "batch-size-avg (B)", "latency avg (ms)", "latency p99 (ms)", "records/s", "MB/s",
                "records/request per broker"));
        for (BatchingRun run : runs) {
            List<String> row = cellColumns(run.cell());
            row.addAll(List.of(run.peer().cliName(), Integer.toString(run.round() + 1),
                    format(run.recordsPerRequest(), 2), format(run.batchSizeAvg(), 0),
                    format(run.avgLatencyMillis(), 2), format(run.p99LatencyMillis(), 2),
                    format(run.recordsPerSecond(), 0), format(run.megabytesPerSecond(), 2), perBroker(run)));
            row(out, row);
        }
        return out.toString();
    }

    /** One line per run, with the producer's requests to each broker. */
    public static String csv(List<BatchingRun> runs) {
        int brokers = runs.stream().mapToInt(BatchingRun::brokers).max().orElse(0);
        StringBuilder out = new StringBuilder("rate,pacing,linger_ms,partitioner,round,acked,failed,elapsed_s,"
                + "records_per_request_avg,batch_size_avg_bytes,latency_avg_ms,latency_p99_ms,records_per_s,mb_per_s");
        for (int b = 0; b < brokers; b++) {
            out.append(",requests_broker_").append(b).append(",records_per_request_broker_").append(b);
        }
        out.append('\n');
        for (BatchingRun run : runs) {
            List<String> fields = new ArrayList<>(List.of(run.cell().rate().toString(), run.cell().pacing().cliName(),
                    Integer.toString(run.cell().lingerMs()), run.peer().cliName(), Integer.toString(run.round() + 1),
                    Long.toString(run.acked()), Long.toString(run.failed()), format(run.elapsedSeconds(), 3),
                    format(run.recordsPerRequest(), 3), format(run.batchSizeAvg(), 1),
                    format(run.avgLatencyMillis(), 3), format(run.p99LatencyMillis(), 3),
                    format(run.recordsPerSecond(), 1), format(run.megabytesPerSecond(), 3)));
            for (int b = 0; b < brokers; b++) {
                boolean known = b < run.brokers();
                fields.add(known ? Long.toString(run.requests(b)) : "");
                fields.add(known ? format(run.recordsPerRequest(b), 3) : "");
            }
            out.append(String.join(",", fields)).append('\n');
        }
        return out.toString();
    }

    /**
     * Writes {@code <name>.md} (the setup line, then {@link #markdown}) and {@code <name>.csv} into
     * {@code dir}.
     *
     * @return the two files, Markdown first
     */
    public static List<Path> write(List<BatchingRun> runs, String setup, Path dir, String name) {
        try {
            Files.createDirectories(dir);
            Path md = dir.resolve(name + ".md");
            Files.writeString(md, "# Batching\n\n" + setup + "\n\n" + markdown(runs));
            Path csv = dir.resolve(name + ".csv");
            Files.writeString(csv, csv(runs));
            return List.of(md, csv);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the batching report to " + dir, e);
        }
    }

    private static Map<BatchingCell, List<BatchingRun>> byCell(List<BatchingRun> runs) {
        Map<BatchingCell, List<BatchingRun>> cells = new LinkedHashMap<>();
        runs.forEach(run -> cells.computeIfAbsent(run.cell(), c -> new ArrayList<>()).add(run));
        return cells;
    }

    private static double[] recordsPerRequest(List<BatchingRun> runs, PartitionerPeer peer) {
        return runs.stream().filter(r -> r.peer() == peer).mapToDouble(BatchingRun::recordsPerRequest).toArray();
    }

    private static double mean(double[] values) {
        return Arrays.stream(values).average().orElse(Double.NaN);
    }

    private static List<String> cellColumns(BatchingCell cell) {
        return new ArrayList<>(List.of(cell.rate().toString(), cell.rate().isMax() ? "-" : cell.pacing().cliName(),
                Integer.toString(cell.lingerMs())));
    }

    private static String perBroker(BatchingRun run) {
        List<String> all = new ArrayList<>();
        for (int b = 0; b < run.brokers(); b++) {
            all.add(format(run.recordsPerRequest(b), 1));
        }
        return String.join(" / ", all);
    }

    private static void headerRow(StringBuilder out, List<String> header) {
        row(out, header);
        out.append('|');
        header.forEach(h -> out.append("---|"));
        out.append("\n");
    }

    private static void row(StringBuilder out, List<String> cells) {
        out.append("| ").append(String.join(" | ", cells)).append(" |").append("\n");
    }

    private static String format(double value, int decimals) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
    }
}
