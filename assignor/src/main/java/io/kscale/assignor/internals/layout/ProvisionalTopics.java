package io.kscale.assignor.internals.layout;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Provisional task counts (issue 17): the topics whose T came from the partition count while the
 * layout store could not be read, and what becomes of them once it is read. See
 * {@link TopicLayout} for the mark; the leader's rules are in {@code LayoutAgreement}.
 *
 * <p>Example: the whole group restarts after {@code orders} grew from 4 to 16 partitions, and the
 * store read times out. The leader goes on with {@code orders} T=16, marked provisional
 * ({@link #mark}); nothing is stored. A later leader reads the store, which holds T=4:
 * {@link #resolve} puts the stored layout in place of the provisional one (a
 * {@link Resolved#breaksAffinity() second move} of the keys, which the leader logs at ERROR with
 * both Ts), and the group's layout gets a new epoch. Had the store held no {@code orders}, T=16
 * would simply be confirmed: the topic is new.
 */
public final class ProvisionalTopics {

    private ProvisionalTopics() {
    }

    /** @return the layout's provisional topics, by name */
    public static SortedMap<String, TopicLayout> of(GroupLayout layout) {
        SortedMap<String, TopicLayout> provisional = new TreeMap<>();
        for (TopicLayout topic : layout.topics()) {
            if (topic.isProvisional()) {
                provisional.put(topic.topic(), topic);
            }
        }
        return provisional;
    }

    /**
     * Marks topics provisional or confirms them, in place: the same epoch (the caller marks a
     * layout it made in this rebalance, or confirms what an operator declared).
     *
     * @param topics names; those not in the layout are ignored
     * @param provisional the mark to set
     * @return the layout with the mark set on those topics
     */
    public static GroupLayout mark(GroupLayout layout, Collection<String> topics, boolean provisional) {
        SortedMap<String, TopicLayout> next = new TreeMap<>(layout.byName());
        boolean changed = false;
        for (String name : topics) {
            TopicLayout topic = name == null ? null : next.get(name);
            if (topic != null && topic.isProvisional() != provisional) {
                next.put(name, topic.withProvisional(provisional));
                changed = true;
            }
        }
        return changed ? GroupLayout.ofSorted(layout.epoch(), next) : layout;
    }

    /**
     * Confirms provisional topics whose T is known otherwise (declared by the operator): a change
     * of the layout, so the epoch grows.
     *
     * @return the layout with those topics confirmed (epoch + 1), or {@code layout} if none was provisional
     */
    public static GroupLayout confirm(GroupLayout layout, Collection<String> topics) {
        GroupLayout confirmed = mark(layout, topics, false);
        return confirmed == layout ? layout : GroupLayout.ofSorted(GroupLayout.nextEpoch(layout.epoch()), confirmed.byName());
    }

    /**
     * Settles the provisional topics of {@code layout} by what the store holds: a topic the store
     * has takes the stored layout (whatever the epochs: a provisional T is a guess, the stored T a
     * fact); one the store lacks is confirmed as it is.
     *
     * @param layout the layout the members reported, merged
     * @param stored what the store holds, read in this rebalance; empty if it holds nothing
     * @return the settled layout (epoch after both if anything changed, else {@code layout}) and
     *     one outcome per provisional topic, in name order
     */
    public static Resolution resolve(GroupLayout layout, Optional<GroupLayout> stored) {
        Objects.requireNonNull(layout, "layout");
        SortedMap<String, TopicLayout> provisional = of(layout);
        if (provisional.isEmpty()) {
            return new Resolution(layout, List.of());
        }
        SortedMap<String, TopicLayout> next = new TreeMap<>(layout.byName());
        List<Resolved> outcomes = new ArrayList<>();
        long storedEpoch = 0;
        for (TopicLayout topic : provisional.values()) {
            Optional<TopicLayout> kept = stored.flatMap(s -> s.topic(topic.topic())).map(t -> t.withProvisional(false));
            next.put(topic.topic(), kept.orElse(topic.withProvisional(false)));
            outcomes.add(new Resolved(topic, kept.orElse(null)));
        }
        if (stored.isPresent()) {
            storedEpoch = stored.get().epoch();
        }
        long epoch = GroupLayout.nextEpoch(Math.max(layout.epoch(), storedEpoch));
        return new Resolution(GroupLayout.ofSorted(epoch, next), Collections.unmodifiableList(outcomes));
    }

    /** The topics of {@code candidates} that the layout lacks: those a leader would have to add from partition counts. */
    public static Set<String> unknown(GroupLayout layout, Collection<String> candidates) {
        Set<String> unknown = new TreeSet<>();
        for (String topic : candidates) {
            if (topic != null && layout.topic(topic).isEmpty()) {
                unknown.add(topic);
            }
        }
        return unknown;
    }

    /** The outcome of {@link #resolve}. */
    public static final class Resolution {
        private final GroupLayout layout;
        private final List<Resolved> resolved;

        Resolution(GroupLayout layout, List<Resolved> resolved) {
            this.layout = layout;
            this.resolved = resolved;
        }

        /** @return the layout without provisional topics */
        public GroupLayout layout() {
            return layout;
        }

        /** @return one outcome per topic that was provisional, in name order */
        public List<Resolved> resolved() {
            return resolved;
        }
    }

    /** What became of one provisional topic. */
    public static final class Resolved {
        private final TopicLayout provisional;
        private final TopicLayout stored;

        Resolved(TopicLayout provisional, TopicLayout stored) {
            this.provisional = provisional;
            this.stored = stored;
        }

        /** @return the topic's provisional layout, as the group ran it */
        public TopicLayout provisional() {
            return provisional;
        }

        /** @return the stored layout that replaced it; empty if the store lacked the topic and T stands */
        public Optional<TopicLayout> stored() {
            return Optional.ofNullable(stored);
        }

        /** @return whether the stored T differs from the provisional one: keys move to other tasks a second time */
        public boolean breaksAffinity() {
            return stored != null && stored.taskCount() != provisional.taskCount();
        }

        /** One line for the log. */
        public String message() {
            String topic = provisional.topic();
            if (stored == null) {
                return String.format("topic '%s': the layout store holds no task count for it, so its provisional T=%d "
                        + "stands: it is a new topic.", topic, provisional.taskCount());
            }
            if (!breaksAffinity()) {
                return String.format("topic '%s': the layout store confirms its provisional T=%d.", topic,
                        provisional.taskCount());
            }
            return String.format("topic '%s': the group ran it on a provisional task count T=%d while the layout store "
                    + "could not be read; the store holds T=%d (%d partitions then), which wins now. Keys of the topic "
                    + "move back to their tasks under T=%d: whatever state was built under T=%d for a key may sit with "
                    + "another consumer.", topic, provisional.taskCount(), stored.taskCount(), stored.partitionCount(),
                    stored.taskCount(), provisional.taskCount());
        }
    }
}
