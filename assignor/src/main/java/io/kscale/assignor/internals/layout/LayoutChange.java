package io.kscale.assignor.internals.layout;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What one topic's new partition count did to its layout, as a value: the assignor logs
 * {@link #message()} (at ERROR when {@link Kind#breaksAffinity()}), counts it in a metric and
 * goes on. Nothing about metadata is an exception (like Kafka Streams' {@code AssignmentError}).
 * Immutable.
 */
public final class LayoutChange {

    /** The kinds of change; only topics whose layout changed or whose input was odd get one. */
    public enum Kind {
        /** First seen: T is the partition count, or the task count declared for the topic. */
        ADDED(true, false),
        /** Grew to a multiple of T from a multiple of T: every key stays in its task. */
        EXPANDED(true, false),
        /**
         * Grew to a multiple of T from a count that was not one ({@link ExpansionPolicy#KEEP}
         * earlier): keys written since then move once more, older keys are back in their task.
         */
        REALIGNED(true, true),
        /**
         * Grew to a count that is not a multiple of T: some keys now hash to a partition of
         * another task. The policy (or a declared task count) decided the new T.
         */
        NOT_A_MULTIPLE(true, true),
        /** The operator declared another task count for a known topic: T is now that count. */
        DECLARED(true, true),
        /**
         * Fewer partitions than last seen, under the same topic id or where the metadata carries
         * none. Kafka cannot remove partitions, so this is stale metadata (or, without ids, maybe a
         * topic deleted and re-created): the layout keeps T and the higher count, so no task is
         * lost, and the leader assigns only the partitions the metadata lists.
         */
        SHRUNK(false, false),
        /**
         * The metadata names another topic id than the layout's: the topic was deleted and
         * re-created. It is a new topic with new keys: T is its partition count (or the declared
         * one), and no member counts as its prior owner.
         */
        RECREATED(true, false),
        /**
         * The metadata named the topic's id for the first time (a layout from before topic ids):
         * the layout now belongs to it; T and the count stay.
         */
        IDENTIFIED(true, false),
        /**
         * No member subscribes to the topic and the leader's metadata lacks it: stamped with the
         * time, and forgotten once the grace period has passed since then.
         */
        MISSING(true, false),
        /** A topic stamped {@link #MISSING} is subscribed or in the metadata again: the stamp is cleared. */
        RETURNED(true, false),
        /**
         * Missing for the whole grace period: the layout forgets the topic, so that userData stays
         * bounded; if it comes back, it starts afresh like a new topic.
         */
        FORGOTTEN(true, false),
        /** The metadata gave no usable count or name for the topic: ignored, layout unchanged. */
        INVALID_INPUT(false, false);

        private final boolean changesLayout;
        private final boolean breaksAffinity;

        Kind(boolean changesLayout, boolean breaksAffinity) {
            this.changesLayout = changesLayout;
            this.breaksAffinity = breaksAffinity;
        }

        /** @return whether a change of this kind gives the topic a new layout (and the group a new epoch) */
        public boolean changesLayout() {
            return changesLayout;
        }

        /** @return whether some keys of the topic may now be processed by a task other than before */
        public boolean breaksAffinity() {
            return breaksAffinity;
        }
    }

    private final String topic;
    private final Kind kind;
    private final TopicLayout before;
    private final TopicLayout after;
    private final Integer observedPartitionCount;
    private final String message;

    LayoutChange(String topic, Kind kind, TopicLayout before, TopicLayout after, Integer observedPartitionCount,
                 String message) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.before = before;
        this.after = after;
        this.observedPartitionCount = observedPartitionCount;
        this.message = Objects.requireNonNull(message, "message");
    }

    /** @return the topic, as the metadata named it */
    public String topic() {
        return topic;
    }

    /** @return the kind of change */
    public Kind kind() {
        return kind;
    }

    /** @return the topic's layout before; empty for {@link Kind#ADDED} and for an unknown topic with invalid input */
    public Optional<TopicLayout> before() {
        return Optional.ofNullable(before);
    }

    /** @return the topic's layout after; empty for {@link Kind#FORGOTTEN} and for an unknown topic with invalid input */
    public Optional<TopicLayout> after() {
        return Optional.ofNullable(after);
    }

    /** @return the partition count the metadata reported; empty if it reported none */
    public OptionalInt observedPartitionCount() {
        return observedPartitionCount == null ? OptionalInt.empty() : OptionalInt.of(observedPartitionCount);
    }

    /**
     * One line for the log: the topic, the old T and counts, what happened to key affinity, and
     * what the operator can do about it.
     *
     * @return the message
     */
    public String message() {
        return message;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof LayoutChange)) {
            return false;
        }
        LayoutChange that = (LayoutChange) o;
        return topic.equals(that.topic) && kind == that.kind && Objects.equals(before, that.before)
                && Objects.equals(after, that.after) && Objects.equals(observedPartitionCount, that.observedPartitionCount)
                && message.equals(that.message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, kind, before, after, observedPartitionCount);
    }

    @Override
    public String toString() {
        return kind + ": " + message;
    }
}
