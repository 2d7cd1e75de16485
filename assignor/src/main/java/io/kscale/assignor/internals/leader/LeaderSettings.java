package io.kscale.assignor.internals.leader;

import io.kscale.assignor.internals.layout.CoPartitioning;
import io.kscale.assignor.internals.layout.ExpansionPolicy;
import io.kscale.assignor.internals.placement.PlacementSettings;
import java.util.Map;
import java.util.Objects;

/**
 * What the group leader reads of its assignor's settings, already parsed and validated by
 * {@code KeyPreservingAssignorConfig}. A value of its own so that the public config class hands
 * the leader internals types without showing them in its public signatures.
 */
public final class LeaderSettings {

    private final Map<String, Integer> taskCounts;
    private final ExpansionPolicy expansionPolicy;
    private final CoPartitioning coPartitioning;
    private final long layoutForgetAfterMs;
    private final PlacementSettings placement;
    private final UnreadableStorePolicy unreadableStorePolicy;

    /** Settings that hold topics while the layout store cannot be read ({@link UnreadableStorePolicy#HOLD}). */
    public LeaderSettings(Map<String, Integer> taskCounts, ExpansionPolicy expansionPolicy,
                          CoPartitioning coPartitioning, long layoutForgetAfterMs, PlacementSettings placement) {
        this(taskCounts, expansionPolicy, coPartitioning, layoutForgetAfterMs, placement, UnreadableStorePolicy.HOLD);
    }

    public LeaderSettings(Map<String, Integer> taskCounts, ExpansionPolicy expansionPolicy,
                          CoPartitioning coPartitioning, long layoutForgetAfterMs, PlacementSettings placement,
                          UnreadableStorePolicy unreadableStorePolicy) {
        this.unreadableStorePolicy = Objects.requireNonNull(unreadableStorePolicy, "unreadableStorePolicy");
        this.taskCounts = Map.copyOf(taskCounts);
        this.expansionPolicy = Objects.requireNonNull(expansionPolicy, "expansionPolicy");
        this.coPartitioning = Objects.requireNonNull(coPartitioning, "coPartitioning");
        this.layoutForgetAfterMs = layoutForgetAfterMs;
        this.placement = Objects.requireNonNull(placement, "placement");
    }

    /** Declared task counts by topic ({@code kscale.assignor.task.counts}). */
    public Map<String, Integer> taskCounts() {
        return taskCounts;
    }

    public ExpansionPolicy expansionPolicy() {
        return expansionPolicy;
    }

    public CoPartitioning coPartitioning() {
        return coPartitioning;
    }

    /** {@code kscale.assignor.layout.forget.after.ms}. */
    public long layoutForgetAfterMs() {
        return layoutForgetAfterMs;
    }

    /** {@code kscale.assignor.layout.store.unreadable.policy}. */
    public UnreadableStorePolicy unreadableStorePolicy() {
        return unreadableStorePolicy;
    }

    /** Warmups, standbys and the follow-up rule of the placement engine. */
    public PlacementSettings placement() {
        return placement;
    }
}
