package io.kscale.assignor.internals.layout;

import io.kscale.assignor.internals.layout.LayoutChange.Kind;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The task layout of a consumer group: one {@link TopicLayout} per topic the group has assigned,
 * and an epoch that grows by one with every change. Immutable; every change returns a new
 * layout.
 *
 * <p>Why it is kept at all: T is "the partition count when the group first assigned the topic",
 * a fact about the past that the metadata no longer shows after an expansion. So the layout
 * travels in every member's subscription userData and in a durable store, and the leader
 * {@linkplain #merge(Collection) merges} what it receives: the highest epoch is the newest
 * decision. The leader then applies the current metadata with
 * {@link #withPartitionCounts(Map, ExpansionPolicy, Map)}.
 *
 * <p>Worked example (policy KEEP). The group first assigns {@code orders} with 4 partitions:
 * epoch 1, T=4. The topic grows to 8, then 12: {@link Kind#EXPANDED} twice (epochs 2, 3), T stays
 * 4, and partition 9 belongs to task {@code 9 % 4 = 1} together with 1 and 5, where the keys
 * of partition 9 used to be. It grows to 18: {@link Kind#NOT_A_MULTIPLE} (epoch 4), T stays 4;
 * at 20 it is {@link Kind#REALIGNED} (epoch 5). A member with stale metadata that still sees 12:
 * {@link Kind#SHRUNK}, nothing changes, epoch stays 5.
 *
 * @see <a href="https://cwiki.apache.org/confluence/display/SAMZA/SEP-5%3A+Enable+partition+expansion+of+input+streams">Samza SEP-5</a>
 */
public final class GroupLayout {

    /**
     * The most topics one layout holds. Beyond it, a new topic is reported as
     * {@link Kind#INVALID_INPUT} and gets no layout (so no units); the bound keeps the decoder's
     * allocation in check.
     */
    public static final int MAX_TOPICS = 100_000;

    private static final GroupLayout EMPTY = new GroupLayout(0, new TreeMap<>());

    private final long epoch;
    private final SortedMap<String, TopicLayout> topics;
    /** The values of {@link #topics} in name order, so that readers index them without copying. */
    private final List<TopicLayout> inNameOrder;

    private GroupLayout(long epoch, SortedMap<String, TopicLayout> topics) {
        this.epoch = epoch;
        this.topics = Collections.unmodifiableSortedMap(topics);
        this.inNameOrder = List.copyOf(topics.values());
    }

    /** @return the layout of a group that has assigned nothing yet: epoch 0, no topics */
    public static GroupLayout empty() {
        return EMPTY;
    }

    /**
     * Creates a layout.
     *
     * @param epoch the epoch, at least 0
     * @param topics the topic layouts, one per topic, at most {@link #MAX_TOPICS}
     * @return the layout
     * @throws IllegalArgumentException if the epoch is negative, a topic appears twice or there are too many
     */
    public static GroupLayout of(long epoch, Collection<TopicLayout> topics) {
        if (epoch < 0) {
            throw new IllegalArgumentException("layout epoch " + epoch + " is negative");
        }
        if (topics.size() > MAX_TOPICS) {
            throw new IllegalArgumentException(topics.size() + " topics exceed the " + MAX_TOPICS + " a layout holds");
        }
        SortedMap<String, TopicLayout> byName = new TreeMap<>();
        for (TopicLayout topic : topics) {
            if (byName.put(topic.topic(), topic) != null) {
                throw new IllegalArgumentException("topic '" + topic.topic() + "' appears twice in a layout");
            }
        }
        return new GroupLayout(epoch, byName);
    }

    /**
     * Merges the layouts that members (and the durable store) reported: see {@link LayoutMerge}.
     *
     * @param reported the layouts, in any order; empty layouts are fine
     * @return the merged layout and the conflicts met on the way
     */
    public static LayoutMerge merge(Collection<GroupLayout> reported) {
        return LayoutMerger.merge(reported);
    }

    /** @return the epoch: 0 for the empty layout, one more with every change */
    public long epoch() {
        return epoch;
    }

    /** @return the topic layouts, in topic name order; unmodifiable */
    public List<TopicLayout> topics() {
        return inNameOrder;
    }

    /**
     * @param topic a topic name
     * @return its layout, if the group has assigned it
     */
    public Optional<TopicLayout> topic(String topic) {
        return Optional.ofNullable(topics.get(topic));
    }

    /** @return the number of topics with a layout */
    public int topicCount() {
        return topics.size();
    }

    /** @return whether no topic has a layout */
    public boolean isEmpty() {
        return topics.isEmpty();
    }

    SortedMap<String, TopicLayout> byName() {
        return topics;
    }

    /**
     * Applies the current partition counts: adds the topics seen for the first time, follows
     * expansions, and reports each topic whose layout changed or whose count was odd (the rules
     * are in {@link LayoutChange.Kind}). Topics absent from {@code current} keep their layout: a
     * narrower subscription or a gap in the metadata must not forget a T. Never throws for
     * anything in {@code current}.
     *
     * @param current partition count per topic, from the metadata; odd names and counts (null,
     *                below 1, above {@link TopicLayout#MAX_COUNT}) are reported as {@link Kind#INVALID_INPUT}
     * @param policy what to do when a count is not a multiple of T
     * @param declaredTaskCounts task counts the operator declared per topic (the configuration);
     *                           a declared count is always the topic's T
     * @return the new layout (this one if nothing changed; otherwise epoch + 1) and the changes,
     *         in topic name order
     * @throws IllegalArgumentException if a declared task count is null or outside 1..{@link TopicLayout#MAX_COUNT}
     */
    public LayoutUpdate withPartitionCounts(Map<String, Integer> current, ExpansionPolicy policy,
                                            Map<String, Integer> declaredTaskCounts) {
        return withPartitionCounts(current, Map.of(), policy, declaredTaskCounts);
    }

    /**
     * Applies the current partition counts and topic ids, as {@link #withPartitionCounts(Map,
     * ExpansionPolicy, Map)} does; a topic whose id differs from its layout's is
     * {@link Kind#RECREATED}, and a layout without an id takes the metadata's.
     *
     * @param topicIds the fingerprint of each topic's id (see {@link TopicLayout}), where the metadata
     *                 carries one; a topic without an entry (or with 0) keeps today's rules
     */
    public LayoutUpdate withPartitionCounts(Map<String, Integer> current, Map<String, Long> topicIds,
                                            ExpansionPolicy policy, Map<String, Integer> declaredTaskCounts) {
        Objects.requireNonNull(current, "current partition counts");
        Objects.requireNonNull(topicIds, "topic ids");
        Objects.requireNonNull(policy, "policy");
        checkDeclared(declaredTaskCounts);
        List<Map.Entry<String, Integer>> entries = new ArrayList<>(current.entrySet());
        entries.sort(Map.Entry.comparingByKey(Comparator.nullsFirst(Comparator.<String>naturalOrder())));
        SortedMap<String, TopicLayout> next = new TreeMap<>(topics);
        List<LayoutChange> changes = new ArrayList<>();
        for (Map.Entry<String, Integer> entry : entries) {
            String topic = entry.getKey();
            TopicLayout old = topic == null ? null : topics.get(topic);
            Integer declared = topic == null ? null : declaredTaskCounts.get(topic);
            Long id = topic == null ? null : topicIds.get(topic);
            LayoutChange change = TopicExpansion.decide(topic, old, entry.getValue(), id == null ? TopicLayout.NO_ID : id,
                    declared, policy);
            if (change == null) {
                continue;
            }
            if (old == null && change.kind() == Kind.ADDED && next.size() >= MAX_TOPICS) {
                change = new LayoutChange(topic, Kind.INVALID_INPUT, null, null, entry.getValue(), "topic '" + topic
                        + "': ignored because the layout already holds " + MAX_TOPICS + " topics; subscribe to fewer.");
            }
            changes.add(change);
            if (change.kind().changesLayout()) {
                next.put(topic, change.after().orElseThrow());
            }
        }
        boolean changed = changes.stream().anyMatch(change -> change.kind().changesLayout());
        return new LayoutUpdate(changed ? new GroupLayout(nextEpoch(epoch), next) : this, changes);
    }

    /**
     * Forgets the topics that have been gone for a grace period: see {@link TopicRetention} for the
     * rules. A topic is live when a member subscribes to it or the leader's metadata has it.
     *
     * @param live the topics subscribed by some member or present in the metadata
     * @param nowMs the leader's clock, epoch ms
     * @param forgetAfterMs the grace period, at least 0
     * @return the new layout (this one if nothing changed; otherwise epoch + 1) and one change per
     *         topic stamped {@link Kind#MISSING}, {@link Kind#RETURNED} or {@link Kind#FORGOTTEN}
     * @throws IllegalArgumentException if the grace period is negative
     */
    public LayoutUpdate withLiveTopics(Collection<String> live, long nowMs, long forgetAfterMs) {
        return TopicRetention.apply(this, live, nowMs, forgetAfterMs);
    }

    /**
     * Forgets topics, for instance a topic that was deleted, so that it starts afresh if it comes
     * back.
     *
     * @param removed topic names; unknown names are ignored
     * @return the layout without them; epoch + 1 if one was there, else this layout
     */
    public GroupLayout withoutTopics(Collection<String> removed) {
        SortedMap<String, TopicLayout> next = new TreeMap<>(topics);
        boolean changed = false;
        for (String topic : removed) {
            changed |= topic != null && next.remove(topic) != null;
        }
        return changed ? new GroupLayout(nextEpoch(epoch), next) : this;
    }

    /** The epoch after {@code epoch}; it stays at {@code Long.MAX_VALUE}, which no real group reaches. */
    static long nextEpoch(long epoch) {
        return epoch == Long.MAX_VALUE ? epoch : epoch + 1;
    }

    static GroupLayout ofSorted(long epoch, SortedMap<String, TopicLayout> topics) {
        return new GroupLayout(epoch, topics);
    }

    private static void checkDeclared(Map<String, Integer> declared) {
        Objects.requireNonNull(declared, "declared task counts");
        for (Map.Entry<String, Integer> entry : declared.entrySet()) {
            Integer count = entry.getValue();
            if (count == null || !TopicLayout.isLegalCount(count)) {
                throw new IllegalArgumentException("the task count declared for topic '" + entry.getKey() + "' is "
                        + count + "; it must be from 1 to " + TopicLayout.MAX_COUNT);
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof GroupLayout)) {
            return false;
        }
        GroupLayout that = (GroupLayout) o;
        return epoch == that.epoch && topics.equals(that.topics);
    }

    @Override
    public int hashCode() {
        return Objects.hash(epoch, topics);
    }

    @Override
    public String toString() {
        return "GroupLayout(epoch " + epoch + ", " + topics.values() + ")";
    }
}
