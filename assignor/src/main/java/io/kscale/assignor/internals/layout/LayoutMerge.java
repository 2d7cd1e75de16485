package io.kscale.assignor.internals.layout;

import java.util.List;
import java.util.Objects;

/**
 * The result of {@link GroupLayout#merge}: one layout from the layouts members reported after
 * restarts, joins and missed rebalances, and the conflicts met. Immutable.
 *
 * <p>The rules. Each topic takes its layout from the highest epoch that knows it, so the newest
 * decision wins, and a topic only older layouts know is kept (a T is never forgotten because
 * one member had not heard of it; forgetting is the leader's decision after the merge, see
 * {@link GroupLayout#withLiveTopics}). Two different layouts of one topic at the same epoch are a
 * {@link MergeConflict}: the one with the most partitions wins, then the one with the smallest
 * T. The result does not depend on the order of the input. Its epoch is the highest reported if
 * every layout reported at that epoch equals the result, and one more otherwise, so that one
 * epoch never names two different layouts.
 */
public final class LayoutMerge {

    private final GroupLayout layout;
    private final List<MergeConflict> conflicts;

    LayoutMerge(GroupLayout layout, List<MergeConflict> conflicts) {
        this.layout = Objects.requireNonNull(layout, "layout");
        this.conflicts = List.copyOf(conflicts);
    }

    /** @return the merged layout; the empty layout if nothing was reported */
    public GroupLayout layout() {
        return layout;
    }

    /** @return the topics whose layouts disagreed at the same epoch, in topic name order */
    public List<MergeConflict> conflicts() {
        return conflicts;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof LayoutMerge)) {
            return false;
        }
        LayoutMerge that = (LayoutMerge) o;
        return layout.equals(that.layout) && conflicts.equals(that.conflicts);
    }

    @Override
    public int hashCode() {
        return Objects.hash(layout, conflicts);
    }

    @Override
    public String toString() {
        return "LayoutMerge(" + layout + ", conflicts " + conflicts + ")";
    }
}
