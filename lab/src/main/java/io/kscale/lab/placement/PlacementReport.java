package io.kscale.lab.placement;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/** Renders phase results: an aligned text table for the terminal and a CSV file. */
public final class PlacementReport {

    private static final String FORMAT = "%-22s %-26s %-18s %6s %9s %11s %5s %6s %7s %9s %9s %9s%n";
    private static final String TOTAL = "all";

    private PlacementReport() {
    }

    /**
     * The table: one row per scenario, phase and assignor, then one total row per assignor.
     * "rounds" and "balanced s" of a total are sums over the phases, or "-" if a phase never
     * balanced.
     */
    public static String table(List<PhaseResult> results) {
        StringBuilder out = new StringBuilder();
        header(out, "scenario", "phase");
        String previous = null;
        for (PhaseResult result : results) {
            String key = result.scenario() + "/" + result.phase();
            if (previous != null && !previous.equals(key)) {
                out.append(System.lineSeparator());
            }
            previous = key;
            row(out, result.scenario(), result.phase(), result.assignor(), rounds(result), seconds(result),
                    result.rebalances(), result.idleRebalances(), result.totals());
        }
        out.append(System.lineSeparator());
        totals(results, result -> TOTAL).forEach((key, total) -> total.appendTo(out, key));
        return out.toString();
    }

    /**
     * The summary of many runs (several seeds, say): one row per kind of phase (join, crash,
     * leave; with or without standbys) and assignor, summed over the phases, then one total row
     * per assignor. "rounds" and "balanced s" are "-" if a phase never balanced.
     */
    public static String summary(List<PhaseResult> results) {
        StringBuilder out = new StringBuilder();
        header(out, "kind", "phases");
        Map<String, Total> byKind = totals(results, PhaseResult::kind);
        String previous = null;
        for (Map.Entry<String, Total> entry : new TreeMap<>(byKind).entrySet()) {
            String kind = entry.getKey().substring(0, entry.getKey().indexOf('|'));
            if (previous != null && !previous.equals(kind)) {
                out.append(System.lineSeparator());
            }
            previous = kind;
            entry.getValue().appendTo(out, entry.getKey());
        }
        out.append(System.lineSeparator());
        totals(results, result -> TOTAL).forEach((key, total) -> total.appendTo(out, key));
        return out.toString();
    }

    /** @return what the columns mean, for under the table */
    public static String legend() {
        return String.join(System.lineSeparator(),
                "rounds: the rebalance (1 = the one the change caused) from which the active assignment was balanced"
                        + " (active tasks per thread within one of each other) and never changed again in the phase;",
                "balanced after s: simulated seconds from the change to that rebalance; rebalances: all of the phase;"
                        + " idle: follow-ups that moved no active task;",
                "moves: active tasks that left a client still in the group; warmups: standby or warmup copies placed"
                        + " on a client more than the acceptable lag behind;",
                "restored: changelog records restored by all copies; downtime: task-seconds an active task was"
                        + " restoring; avoidable: the part on a task placed more than the acceptable lag behind while"
                        + " another client was within it.",
                "Each client's restore rate is shared by the copies it restores at once. \"all\": sums over the phases.")
                + System.lineSeparator();
    }

    private static void header(StringBuilder out, String first, String second) {
        out.append(String.format(Locale.ROOT, FORMAT, first, second, "assignor", "rounds", "balanced", "rebalances",
                "idle", "moves", "warmups", "restored", "downtime", "avoidable"));
        out.append(String.format(Locale.ROOT, FORMAT, "", "", "", "", "after s", "", "", "", "", "M records", "task-s",
                "task-s"));
    }

    /** Writes the results as CSV, one line per phase and assignor; returns the file. */
    public static Path writeCsv(List<PhaseResult> results, Path dir, String fileName) {
        StringBuilder csv = new StringBuilder("scenario,seed,phase,kind,assignor,rounds_to_balance,seconds_to_balance,rebalances,"
                + "idle_rebalances,moves,warmups,restored_records,downtime_task_seconds,avoidable_downtime_task_seconds,settled\n");
        for (PhaseResult r : results) {
            World.Totals t = r.totals();
            csv.append(String.join(",", r.scenario(), Long.toString(r.seed()), "\"" + r.phase() + "\"",
                    "\"" + r.kind() + "\"", r.assignor(),
                    r.roundsToBalance().isPresent() ? Integer.toString(r.roundsToBalance().getAsInt()) : "",
                    r.secondsToBalance().isPresent() ? Long.toString(r.secondsToBalance().getAsLong()) : "",
                    Integer.toString(r.rebalances()), Integer.toString(r.idleRebalances()), Long.toString(t.moves()),
                    Long.toString(t.warmups()),
                    Long.toString(t.restoredRecords()), Long.toString(t.downtimeSeconds()),
                    Long.toString(t.avoidableDowntimeSeconds()), Boolean.toString(r.settled()))).append('\n');
        }
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(fileName);
            Files.writeString(file, csv);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the placement report to " + dir, e);
        }
    }

    private static void row(StringBuilder out, String scenario, String phase, String assignor, String rounds,
                            String seconds, int rebalances, int idle, World.Totals t) {
        out.append(String.format(Locale.ROOT, FORMAT, scenario, phase, assignor, rounds, seconds, rebalances, idle,
                t.moves(), t.warmups(), String.format(Locale.ROOT, "%.1f", t.restoredRecords() / 1e6), t.downtimeSeconds(),
                t.avoidableDowntimeSeconds()));
    }

    private static String rounds(PhaseResult result) {
        return result.roundsToBalance().isPresent() ? Integer.toString(result.roundsToBalance().getAsInt()) : "never";
    }

    private static String seconds(PhaseResult result) {
        return result.secondsToBalance().isPresent() ? Long.toString(result.secondsToBalance().getAsLong()) : "never";
    }

    /** @return sums by group and assignor, keyed "group|assignor", in first-seen order */
    private static Map<String, Total> totals(List<PhaseResult> results, Function<PhaseResult, String> group) {
        Map<String, Total> totals = new LinkedHashMap<>();
        for (PhaseResult result : results) {
            totals.computeIfAbsent(group.apply(result) + "|" + result.assignor(), key -> new Total()).add(result);
        }
        return totals;
    }

    /** Sums of one assignor's phases. */
    private static final class Total {
        int phases;
        boolean converged = true;
        int rounds;
        long seconds;
        int rebalances;
        int idle;
        World.Totals totals = World.Totals.ZERO;

        void appendTo(StringBuilder out, String key) {
            int bar = key.indexOf('|');
            row(out, key.substring(0, bar), phases + (phases == 1 ? " phase" : " phases"), key.substring(bar + 1),
                    converged ? Integer.toString(rounds) : "-", converged ? Long.toString(seconds) : "-", rebalances,
                    idle, totals);
        }

        void add(PhaseResult result) {
            phases++;
            converged &= result.roundsToBalance().isPresent();
            rounds += result.roundsToBalance().orElse(0);
            seconds += result.secondsToBalance().orElse(0);
            rebalances += result.rebalances();
            idle += result.idleRebalances();
            totals = totals.plus(result.totals());
        }
    }
}
