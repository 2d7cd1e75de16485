package io.kscale.assignor.internals.server;

import org.apache.kafka.common.Uuid;

/**
 * The durable task count T of every topic the broker-side assignor has placed, keyed by topic id
 * and shared by every group on the cluster (the broker-side API names no group). A topic id is
 * a topic: a topic deleted and re-created has a new id and so a fresh T.
 *
 * <p>The rule this interface exists to keep: T never comes from today's partition count while T
 * may already be stored. {@link #lookup} therefore tells three answers apart: a known T; "the
 * store has answered and holds none" (the topic is new to kscale, and today's count is right);
 * and "not known yet" (the store has not been read, or cannot be), in which case the assignor
 * must not derive T at all.
 *
 * <p>Contract: thread-safe, called concurrently from {@code assign()} of many groups; no method
 * blocks on I/O or throws; all I/O runs on the store's own thread. {@code assign()} runs on a
 * group coordinator thread in Kafka 4.4, so a slow answer delays every group of that
 * coordinator shard. The assignor makes its store on its first {@code assign()} call (see
 * {@code KeyPreservingServerAssignor}): making one must return at once too, loading in the
 * background. After {@link #propose} has returned T, {@link #lookup} of that topic answers
 * {@link TaskCount#known} with it (from memory, before the write is acknowledged), so that the
 * next assignments use it without proposing again. If a lookup or proposal throws anyway, the
 * assignor keeps the group's current targets for that assignment and logs an ERROR.
 */
public interface TaskCountStore extends AutoCloseable {

    /**
     * @return what is known of the topic's T right now; never null. Not yet known also for a topic
     *     the store does not know while it cannot tell whether another broker recorded one
     *     meanwhile (its reading lags), and for a topic whose stored record cannot be read.
     */
    TaskCount lookup(Uuid topicId);

    /**
     * Records T for a topic whose {@link #lookup} answered {@link TaskCount#noneStored()}, and
     * returns the T to use from now on: {@code proposed} if no other T is known by then, else the
     * one already known (another group or broker got there first; the store's log order decides,
     * the first record of a topic id wins). Returns at once; the write is asynchronous.
     *
     * @param topicId        the topic
     * @param proposed       the T to record, 1..{@code TopicLayout.MAX_COUNT}
     * @param partitionCount the topic's partition count when T was chosen
     * @return the topic's T from now on
     */
    int propose(Uuid topicId, int proposed, int partitionCount);

    /** Stops the store's thread and clients; lookups afterwards answer {@link TaskCount#notYetKnown()}. */
    @Override
    void close();
}
