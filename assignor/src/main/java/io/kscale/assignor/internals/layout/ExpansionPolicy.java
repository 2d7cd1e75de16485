package io.kscale.assignor.internals.layout;

/**
 * What a layout does when a topic's partition count grows to a count that is not a multiple of
 * its task count T. Key affinity is broken for that topic either way (some keys now hash to a
 * partition of another task); the policy only chooses which keys pay for it, now and later.
 * A topic with a declared task count always keeps it: the policy applies to derived counts only.
 */
public enum ExpansionPolicy {
    /**
     * Keep T: task t still holds every partition p with {@code p % T == t}. Keys of the new
     * partitions that are not a multiple of T land in a task other than their old one; when the
     * count grows again to a multiple of T, those keys move once more and every older key is back
     * in its original task. Use it when the next expansion will restore a multiple of T.
     */
    KEEP,
    /**
     * Rebase T to the new partition count: from now on the topic behaves as if it had been
     * created with that count. Every key may move to another task once; later expansions to a
     * multiple of the new T keep affinity again.
     */
    REBASE
}
