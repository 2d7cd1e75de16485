package io.kscale.assignor.internals.placement;

/**
 * How far a placement got, as a value rather than an exception (like Kafka Streams'
 * {@code AssignmentError}).
 */
public enum PlacementOutcome {
    /** Every task is active where the balanced target wants it; no move waits on a warmup. */
    COMPLETE,
    /**
     * Every task is active on a caught-up client, and some stateful tasks stay on their
     * caught-up owner until their target client has caught up ({@link Placement#pendingMoves()});
     * {@link Placement#followUp()} says when to look again.
     */
    CONVERGING,
    /**
     * No client has capacity (no clients at all, or all of capacity 0): nothing is placed, every
     * task is in {@link Placement#unassignedTasks()}.
     */
    NO_CAPACITY
}
