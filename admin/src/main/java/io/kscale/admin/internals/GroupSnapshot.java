package io.kscale.admin.internals;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One group as the brokers describe it at one moment, reduced to what an expansion needs: its
 * protocol, its assignor, and which member owns which partitions of each topic. Immutable.
 */
public final class GroupSnapshot {

    /** The group protocol, as Kafka's tools name it. */
    public static final String CLASSIC = "classic";
    public static final String CONSUMER = "consumer";
    public static final String STREAMS = "streams";

    private final String groupId;
    private final String protocol;
    private final String assignor;
    private final String state;
    private final int members;
    /** topic -> member -> partitions owned now. */
    private final Map<String, SortedMap<String, SortedSet<Integer>>> owned;
    /** Topics the group reads without a member owning them now: committed offsets, or a Streams source. */
    private final Set<String> otherTopics;

    public GroupSnapshot(String groupId, String protocol, String assignor, String state, int members,
                         Map<String, SortedMap<String, SortedSet<Integer>>> owned, Set<String> otherTopics) {
        this.groupId = groupId;
        this.protocol = protocol;
        this.assignor = assignor == null ? "" : assignor;
        this.state = state;
        this.members = members;
        Map<String, SortedMap<String, SortedSet<Integer>>> copy = new TreeMap<>();
        owned.forEach((topic, byMember) -> {
            SortedMap<String, SortedSet<Integer>> members2 = new TreeMap<>();
            byMember.forEach((member, partitions) ->
                    members2.put(member, Collections.unmodifiableSortedSet(new TreeSet<>(partitions))));
            copy.put(topic, Collections.unmodifiableSortedMap(members2));
        });
        this.owned = Collections.unmodifiableMap(copy);
        this.otherTopics = Set.copyOf(otherTopics);
    }

    public String groupId() {
        return groupId;
    }

    /** @return {@link #CLASSIC}, {@link #CONSUMER} or {@link #STREAMS} */
    public String protocol() {
        return protocol;
    }

    /** @return the assignor's name ({@code partitionAssignor}); empty if the brokers name none (no members) */
    public String assignor() {
        return assignor;
    }

    public String state() {
        return state;
    }

    public int memberCount() {
        return members;
    }

    /** @return whether the group reads the topic: a member owns a partition of it, or it has offsets or a source there */
    public boolean reads(String topic) {
        return owned.containsKey(topic) || otherTopics.contains(topic);
    }

    /** @return the topics the group reads */
    public SortedSet<String> topics() {
        SortedSet<String> topics = new TreeSet<>(owned.keySet());
        topics.addAll(otherTopics);
        return topics;
    }

    /** @return member -> partitions of the topic it owns now; empty if none */
    public SortedMap<String, SortedSet<Integer>> owners(String topic) {
        return owned.getOrDefault(topic, Collections.emptySortedMap());
    }

    /** @return whether it is a Kafka Streams application (a streams group, or a classic group on Streams' assignor) */
    public boolean isStreams() {
        return STREAMS.equals(protocol) || "stream".equals(assignor);
    }

    @Override
    public String toString() {
        return groupId + " (" + protocol + ", " + (assignor.isEmpty() ? "no assignor" : assignor) + ", " + state + ")";
    }
}
