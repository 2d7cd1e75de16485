package io.kscale.assignor.internals.layout;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Members reported different layouts of one topic at the same epoch, for instance after two
 * leaders each rebuilt a lost layout. The merge chose one deterministically
 * ({@link LayoutMerge}); keys of the topic may move task once if the rejected one was in use.
 * Immutable.
 */
public final class MergeConflict {

    private final long epoch;
    private final TopicLayout chosen;
    private final List<TopicLayout> rejected;

    MergeConflict(long epoch, TopicLayout chosen, List<TopicLayout> rejected) {
        this.epoch = epoch;
        this.chosen = Objects.requireNonNull(chosen, "chosen");
        this.rejected = List.copyOf(rejected);
    }

    /** @return the topic */
    public String topic() {
        return chosen.topic();
    }

    /** @return the epoch at which the layouts disagreed */
    public long epoch() {
        return epoch;
    }

    /** @return the layout the merge kept */
    public TopicLayout chosen() {
        return chosen;
    }

    /** @return the other layouts reported at that epoch, preferred first */
    public List<TopicLayout> rejected() {
        return rejected;
    }

    /** @return whether the layouts disagree on T, not only on the partition count */
    public boolean taskCountsDiffer() {
        return rejected.stream().anyMatch(other -> other.taskCount() != chosen.taskCount());
    }

    /** @return one line for the log: the topic, the epoch, what was chosen over what, and why */
    public String message() {
        String others = rejected.stream().map(layout -> "T=" + layout.taskCount() + " with " + layout.partitionCount()
                + " partitions").collect(Collectors.joining(", "));
        return String.format("topic '%s': members reported different layouts at epoch %d; kept T=%d with %d partitions "
                + "over %s (most partitions first, then the smallest T). Keys of the topic may move task once if another "
                + "layout was in use; check that every member runs the same assignor settings.", topic(), epoch,
                chosen.taskCount(), chosen.partitionCount(), others);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof MergeConflict)) {
            return false;
        }
        MergeConflict that = (MergeConflict) o;
        return epoch == that.epoch && chosen.equals(that.chosen) && rejected.equals(that.rejected);
    }

    @Override
    public int hashCode() {
        return Objects.hash(epoch, chosen, rejected);
    }

    @Override
    public String toString() {
        return "MergeConflict(" + message() + ")";
    }
}
