package io.kscale.lab.scaleout;

import java.util.List;
import java.util.OptionalDouble;
import java.util.stream.Collectors;

/**
 * What happened when a joining instance was killed while it warmed up (see
 * {@link ScaleOutSettings#killWarmingInstance()}): which instance, when, how long the survivors
 * took to balance, how every input partition progressed from the kill on, and the final counts
 * against a recount of the input topic. Times are seconds since the scale-out.
 */
public final class WarmupKill {

    private final String instance;
    private final int standbysAtKill;
    private final double killedAt;
    private final OptionalDouble balancedAfter;
    private final PartitionProgress progress;
    private final List<ActiveRestore> restoresAfterKill;
    private final CountCheck recount;

    WarmupKill(String instance, int standbysAtKill, double killedAt, OptionalDouble balancedAfter,
               PartitionProgress progress, List<ActiveRestore> restores, CountCheck recount) {
        this.instance = instance;
        this.standbysAtKill = standbysAtKill;
        this.killedAt = killedAt;
        this.balancedAfter = balancedAfter;
        this.progress = progress;
        this.restoresAfterKill = restores.stream().filter(r -> r.startSeconds() >= killedAt)
                .collect(Collectors.toUnmodifiableList());
        this.recount = recount;
    }

    /** @return the killed instance's name */
    public String instance() {
        return instance;
    }

    /** @return warmup (standby) tasks the killed instance held when it was killed */
    public int standbysAtKill() {
        return standbysAtKill;
    }

    /** @return seconds from the scale-out to the kill */
    public double killedAt() {
        return killedAt;
    }

    /** @return seconds from the kill until the survivors were balanced and stayed so, if they were */
    public OptionalDouble balancedAfterKill() {
        return balancedAfter.isPresent() ? OptionalDouble.of(balancedAfter.getAsDouble() - killedAt)
                : OptionalDouble.empty();
    }

    /** @return how each input partition progressed from the kill until balance */
    public PartitionProgress progress() {
        return progress;
    }

    /** @return active restorations that started after the kill */
    public List<ActiveRestore> restoresAfterKill() {
        return restoresAfterKill;
    }

    /** @return seconds after the kill during which at least one active task was restoring */
    public double activeRestoreSecondsAfterKill() {
        return ActiveRestore.unionSeconds(restoresAfterKill);
    }

    /** @return the stores' counts against the aggregation recomputed from the input topic */
    public CountCheck recount() {
        return recount;
    }

    @Override
    public String toString() {
        return String.format("killed %s (%d warmups) at %.1f s; balanced %s after the kill; %d active restores after "
                        + "the kill (%.1f s); progress %s; against the input topic: %s", instance, standbysAtKill, killedAt,
                balancedAfterKill().isPresent() ? String.format("%.1f s", balancedAfterKill().getAsDouble()) : "never",
                restoresAfterKill.size(), activeRestoreSecondsAfterKill(), progress, recount);
    }
}
