package io.kscale.assignor.internals.leader;

/**
 * What the group leader does with a topic no member knows the layout of while the layout store
 * cannot be read ({@code kscale.assignor.layout.store.unreadable.policy}, issue 17).
 */
public enum UnreadableStorePolicy {
    /** Leave the topic unassigned until the store answers: no key ever runs on a guessed T. */
    HOLD,
    /** Assign it with T from its partition count, marked provisional; the stored T wins once read. */
    PROVISIONAL
}
