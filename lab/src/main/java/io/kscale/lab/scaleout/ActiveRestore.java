package io.kscale.lab.scaleout;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * One restoration of an active task's store after the scale-out, as a {@code StateRestoreListener}
 * saw it: while it lasts, the task processes nothing. Times are seconds since the scale-out.
 */
public final class ActiveRestore {

    /** How a restoration ended. */
    public enum End {
        /** {@code onRestoreEnd}: the store caught up and the task went on to process. */
        RESTORED,
        /** {@code onRestoreSuspended}: the task was taken away (or closed) while restoring. */
        SUSPENDED,
        /** Still restoring when the scenario stopped watching. */
        UNFINISHED
    }

    private final String instance;
    private final int partition;
    private final double startSeconds;
    private final double endSeconds;
    private final long recordsToRestore;
    private final long recordsRestored;
    private final End end;

    /**
     * @param instance the instance that restored
     * @param partition the changelog partition, which is the task's partition
     * @param startSeconds when it started, seconds since the scale-out
     * @param endSeconds when it ended (or the scenario stopped watching), seconds since the scale-out
     * @param recordsToRestore changelog records between the store's position and the end offset at the start
     * @param recordsRestored records restored
     * @param end how it ended
     */
    public ActiveRestore(String instance, int partition, double startSeconds, double endSeconds, long recordsToRestore,
                         long recordsRestored, End end) {
        if (endSeconds < startSeconds) {
            throw new IllegalArgumentException("a restoration ends after it starts: " + startSeconds + " > " + endSeconds);
        }
        this.instance = instance;
        this.partition = partition;
        this.startSeconds = startSeconds;
        this.endSeconds = endSeconds;
        this.recordsToRestore = recordsToRestore;
        this.recordsRestored = recordsRestored;
        this.end = end;
    }

    public String instance() {
        return instance;
    }

    /** @return the changelog partition: task {@code 0_<partition>} of the scenario's one sub-topology */
    public int partition() {
        return partition;
    }

    public double startSeconds() {
        return startSeconds;
    }

    public double endSeconds() {
        return endSeconds;
    }

    public double seconds() {
        return endSeconds - startSeconds;
    }

    public long recordsToRestore() {
        return recordsToRestore;
    }

    public long recordsRestored() {
        return recordsRestored;
    }

    public End end() {
        return end;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%s task 0_%d: %.1f-%.1f s, %d records to restore, %d restored, %s", instance,
                partition, startSeconds, endSeconds, recordsToRestore, recordsRestored, end);
    }

    /**
     * @param restores restorations
     * @return the seconds during which at least one of them lasted (two side by side for 3 s count 3 s)
     */
    public static double unionSeconds(List<ActiveRestore> restores) {
        List<ActiveRestore> sorted = new ArrayList<>(restores);
        sorted.sort(Comparator.comparingDouble(ActiveRestore::startSeconds));
        double total = 0;
        double from = Double.NaN;
        double to = Double.NaN;
        for (ActiveRestore restore : sorted) {
            if (Double.isNaN(from) || restore.startSeconds() > to) {
                total += Double.isNaN(from) ? 0 : to - from;
                from = restore.startSeconds();
                to = restore.endSeconds();
            } else {
                to = Math.max(to, restore.endSeconds());
            }
        }
        return Double.isNaN(from) ? total : total + (to - from);
    }
}
