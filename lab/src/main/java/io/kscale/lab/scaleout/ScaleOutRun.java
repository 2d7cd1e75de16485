package io.kscale.lab.scaleout;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.stream.Stream;

/**
 * The outcome of the scale-out scenario for one assignor: what the restore listeners, the state
 * listeners and the thread metadata showed from the scale-out on, and the final counts.
 *
 * <p>Downtime is {@link #activeRestoreSeconds()}: the seconds during which at least one active task
 * was restoring (the union of the restorations, so two tasks restoring side by side for 3 s count
 * 3 s). A task that moves to an instance with a caught-up copy still replays the last records it
 * missed, well under a second; {@link #maxRecordsToRestore()} tells the two cases apart without a
 * clock: it is at most about {@code acceptable.recovery.lag} when every move went to a caught-up
 * copy, and the task's whole changelog when one did not.
 */
public final class ScaleOutRun {

    private final ScaleOutPeer peer;
    private final int partitions;
    private final int instances;
    private final int recordsPerSecond;
    private final long acceptableRecoveryLag;
    private final double balanceTimeoutSeconds;
    private final OptionalDouble balancedAfter;
    private final List<Integer> finalActives;
    private final List<ActiveRestore> restores;
    private final int warmupsStarted;
    private final int rebalances;
    private final CountCheck counts;
    private final List<Sample> timeline;
    private final List<String> problems;
    private final Optional<WarmupKill> kill;

    /**
     * @param balancedAfter seconds from the scale-out until the assignment was balanced and then
     *     stayed so, or empty if that did not happen within the balance timeout
     * @param finalActives active tasks per instance when the scenario stopped waiting
     * @param restores active restorations that started after the scale-out
     * @param warmupsStarted standby (warmup) copies that started updating after the scale-out
     * @param rebalances rebalances the first instance went through after the scale-out
     * @param problems anything else that went wrong (an instance failing, a timeout), for the report
     */
    ScaleOutRun(ScaleOutPeer peer, int partitions, int instances, int recordsPerSecond, long acceptableRecoveryLag,
                double balanceTimeoutSeconds, OptionalDouble balancedAfter, List<Integer> finalActives,
                List<ActiveRestore> restores, int warmupsStarted, int rebalances, CountCheck counts,
                List<Sample> timeline, List<String> problems) {
        this(peer, partitions, instances, recordsPerSecond, acceptableRecoveryLag, balanceTimeoutSeconds, balancedAfter,
                finalActives, restores, warmupsStarted, rebalances, counts, timeline, problems, Optional.empty());
    }

    /** As above, with what happened when an instance was killed during warmup, if one was. */
    ScaleOutRun(ScaleOutPeer peer, int partitions, int instances, int recordsPerSecond, long acceptableRecoveryLag,
                double balanceTimeoutSeconds, OptionalDouble balancedAfter, List<Integer> finalActives,
                List<ActiveRestore> restores, int warmupsStarted, int rebalances, CountCheck counts,
                List<Sample> timeline, List<String> problems, Optional<WarmupKill> kill) {
        this.kill = kill;
        this.peer = peer;
        this.partitions = partitions;
        this.instances = instances;
        this.recordsPerSecond = recordsPerSecond;
        this.acceptableRecoveryLag = acceptableRecoveryLag;
        this.balanceTimeoutSeconds = balanceTimeoutSeconds;
        this.balancedAfter = balancedAfter;
        this.finalActives = List.copyOf(finalActives);
        List<ActiveRestore> sorted = new ArrayList<>(restores);
        sorted.sort(Comparator.comparingDouble(ActiveRestore::startSeconds));
        this.restores = List.copyOf(sorted);
        this.warmupsStarted = warmupsStarted;
        this.rebalances = rebalances;
        this.counts = counts;
        this.timeline = List.copyOf(timeline);
        this.problems = List.copyOf(problems);
    }

    public ScaleOutPeer peer() {
        return peer;
    }

    public int partitions() {
        return partitions;
    }

    public int instances() {
        return instances;
    }

    /** @return the producer's pace during the transition */
    public int recordsPerSecond() {
        return recordsPerSecond;
    }

    public long acceptableRecoveryLag() {
        return acceptableRecoveryLag;
    }

    public double balanceTimeoutSeconds() {
        return balanceTimeoutSeconds;
    }

    /** @return seconds from the scale-out until balanced and stable; empty if not within the timeout */
    public OptionalDouble balancedAfter() {
        return balancedAfter;
    }

    public boolean balanced() {
        return balancedAfter.isPresent();
    }

    /** @return active tasks per instance when the scenario stopped waiting for balance */
    public List<Integer> finalActives() {
        return finalActives;
    }

    /** @return active restorations that started after the scale-out, by start time */
    public List<ActiveRestore> restores() {
        return restores;
    }

    public int warmupsStarted() {
        return warmupsStarted;
    }

    public int rebalances() {
        return rebalances;
    }

    public CountCheck counts() {
        return counts;
    }

    public List<Sample> timeline() {
        return timeline;
    }

    /** @return what happened when an instance was killed during warmup, if the settings asked for it */
    public Optional<WarmupKill> kill() {
        return kill;
    }

    public List<String> problems() {
        return problems;
    }

    /**
     * @return seconds after the scale-out during which at least one active task was restoring: the
     *     union of the restorations (they are sorted by start), so restorations of 7-9 s and 7.5-10 s
     *     count 3 s
     */
    public double activeRestoreSeconds() {
        return ActiveRestore.unionSeconds(restores);
    }

    /** @return the restoration seconds of all active tasks added up (two tasks for 3 s: 6) */
    public double activeRestoreTaskSeconds() {
        return restores.stream().mapToDouble(ActiveRestore::seconds).sum();
    }

    /** @return the most changelog records any active task had to restore before processing again */
    public long maxRecordsToRestore() {
        return restores.stream().mapToLong(ActiveRestore::recordsToRestore).max().orElse(0);
    }

    /** @return changelog records active tasks restored after the scale-out */
    public long recordsRestoredByActives() {
        return restores.stream().mapToLong(ActiveRestore::recordsRestored).sum();
    }

    /** @return the lowest processing rate of any sample of the transition (scale-out to balance or timeout) */
    public double minRecordsPerSecond() {
        return transition().mapToDouble(Sample::processedPerSecond).min().orElse(0);
    }

    /** @return the mean processing rate over the samples of the transition */
    public double meanRecordsPerSecond() {
        return transition().mapToDouble(Sample::processedPerSecond).average().orElse(0);
    }

    /** @return the most records written and not yet processed at any sample after the scale-out */
    public long maxBacklog() {
        return timeline.stream().filter(s -> s.seconds() >= 0).mapToLong(Sample::backlog).max().orElse(0);
    }

    private Stream<Sample> transition() {
        double end = balancedAfter.orElse(Double.POSITIVE_INFINITY);
        return timeline.stream().filter(s -> s.seconds() > 0 && s.seconds() <= end);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s: %s; final actives %s; active restoring %.1f s (%d restorations, at most"
                        + " %d records to restore, %d restored in all); %d warmups; %d rebalances; %.0f-%.0f records/s"
                        + " (input %d), backlog up to %d; counts: %s; problems %s", peer.label(),
                balancedAfter.isPresent() ? String.format(Locale.ROOT, "balanced after %.1f s", balancedAfter.getAsDouble())
                        : String.format(Locale.ROOT, "not balanced within %.0f s", balanceTimeoutSeconds),
                finalActives, activeRestoreSeconds(), restores.size(), maxRecordsToRestore(), recordsRestoredByActives(),
                warmupsStarted, rebalances, minRecordsPerSecond(), meanRecordsPerSecond(), recordsPerSecond, maxBacklog(), counts,
                problems) + kill.map(k -> "; " + k).orElse("");
    }
}
