package io.kscale.lab.scaleout;

import java.util.List;
import java.util.Locale;

/** What the scenario saw at one moment of a run, for the timeline. Times are seconds since the scale-out. */
public final class Sample {

    private final double seconds;
    private final List<Integer> actives;
    private final List<Integer> standbys;
    private final int restoringActives;
    private final double processedPerSecond;
    private final long backlog;

    /**
     * @param seconds seconds since the scale-out (negative before it)
     * @param actives active tasks per instance that are processing, in start order (0 for one not
     *     started yet); Streams' thread metadata leaves out active tasks still restoring
     * @param standbys standby tasks (warmups here) per instance, in start order
     * @param restoringActives active tasks restoring their store, over all instances
     * @param processedPerSecond records processed per second since the previous sample, over all instances
     * @param backlog records written and not yet processed
     */
    public Sample(double seconds, List<Integer> actives, List<Integer> standbys, int restoringActives,
                  double processedPerSecond, long backlog) {
        if (actives.size() != standbys.size()) {
            throw new IllegalArgumentException("actives and standbys need one entry per instance: " + actives
                    + " and " + standbys);
        }
        this.seconds = seconds;
        this.actives = List.copyOf(actives);
        this.standbys = List.copyOf(standbys);
        this.restoringActives = restoringActives;
        this.processedPerSecond = processedPerSecond;
        this.backlog = backlog;
    }

    public double seconds() {
        return seconds;
    }

    public List<Integer> actives() {
        return actives;
    }

    public List<Integer> standbys() {
        return standbys;
    }

    public int restoringActives() {
        return restoringActives;
    }

    public double processedPerSecond() {
        return processedPerSecond;
    }

    public long backlog() {
        return backlog;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%.1f s: actives %s, standbys %s, restoring %d, %.0f records/s, backlog %d",
                seconds, actives, standbys, restoringActives, processedPerSecond, backlog);
    }
}
