package io.kscale.assignor.internals.layout;

import java.util.List;
import java.util.Objects;

/**
 * The result of {@link GroupLayout#withPartitionCounts}: the new layout and what changed on the
 * way. Immutable.
 */
public final class LayoutUpdate {

    private final GroupLayout layout;
    private final List<LayoutChange> changes;

    LayoutUpdate(GroupLayout layout, List<LayoutChange> changes) {
        this.layout = Objects.requireNonNull(layout, "layout");
        this.changes = List.copyOf(changes);
    }

    /** @return the new layout; the old one if nothing changed */
    public GroupLayout layout() {
        return layout;
    }

    /**
     * @return one change per topic whose layout changed or whose input was odd, in topic name
     *         order; topics that stayed as they were are not listed
     */
    public List<LayoutChange> changes() {
        return changes;
    }

    /** @return whether some key of some topic may now be processed by another task than before */
    public boolean breaksAffinity() {
        return changes.stream().anyMatch(change -> change.kind().breaksAffinity());
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof LayoutUpdate)) {
            return false;
        }
        LayoutUpdate that = (LayoutUpdate) o;
        return layout.equals(that.layout) && changes.equals(that.changes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(layout, changes);
    }

    @Override
    public String toString() {
        return "LayoutUpdate(" + layout + ", changes " + changes + ")";
    }
}
