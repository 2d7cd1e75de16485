package io.kscale.admin.internals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupSubtopologyDescription;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * Finds the groups that read a topic, on every protocol, through Kafka's public Admin API:
 * {@code listGroups} for all groups; {@code describeConsumerGroups} for classic groups of protocol
 * type {@code consumer} and for {@code group.protocol=consumer} groups (their assignor, members and
 * current assignments); {@code listConsumerGroupOffsets} for groups that read a topic without a
 * member owning it now (a stopped group: it resumes from its offsets, and an expansion meanwhile
 * concerns it as much); {@code describeStreamsGroups} for Kafka Streams groups (KIP-1071), whose
 * subtopologies name their source topics. Classic groups of other protocol types (Connect
 * workers) and share groups read no topic in the sense that matters here and are left out.
 */
public final class GroupDirectory {

    private final Admin admin;
    private final Duration timeout;

    public GroupDirectory(Admin admin, Duration timeout) {
        this.admin = admin;
        this.timeout = timeout;
    }

    /** @return every consumer and streams group, described now */
    public List<GroupSnapshot> describeAll() {
        Collection<GroupListing> listings = get(admin.listGroups(new ListGroupsOptions()).all());
        List<String> consumerGroups = new ArrayList<>();
        List<String> streamsGroups = new ArrayList<>();
        for (GroupListing listing : listings) {
            GroupType type = listing.type().orElse(GroupType.UNKNOWN);
            if (type == GroupType.CONSUMER || (type == GroupType.CLASSIC
                    && (listing.protocol().isEmpty() || listing.protocol().equals("consumer")))) {
                consumerGroups.add(listing.groupId());
            } else if (type == GroupType.STREAMS) {
                streamsGroups.add(listing.groupId());
            }
        }
        List<GroupSnapshot> groups = new ArrayList<>();
        if (!consumerGroups.isEmpty()) {
            Map<String, ConsumerGroupDescription> described = get(admin.describeConsumerGroups(consumerGroups).all());
            Map<String, Set<String>> committed = committedTopics(consumerGroups);
            for (ConsumerGroupDescription group : described.values()) {
                groups.add(snapshot(group, committed.getOrDefault(group.groupId(), Set.of())));
            }
        }
        if (!streamsGroups.isEmpty()) {
            for (StreamsGroupDescription group : get(admin.describeStreamsGroups(streamsGroups).all()).values()) {
                Set<String> sources = new HashSet<>();
                for (StreamsGroupSubtopologyDescription subtopology : group.subtopologies()) {
                    sources.addAll(subtopology.sourceTopics());
                }
                groups.add(new GroupSnapshot(group.groupId(), GroupSnapshot.STREAMS,
                        group.assignorName().orElse(""), state(group.groupState().toString()), group.members().size(),
                        Map.of(), sources));
            }
        }
        groups.sort((a, b) -> a.groupId().compareTo(b.groupId()));
        return groups;
    }

    /**
     * @param groupIds consumer groups (classic or {@code group.protocol=consumer}) to describe again
     * @return their members and assignments now, by group id; offsets are not read
     */
    public Map<String, GroupSnapshot> describeConsumerGroups(Collection<String> groupIds) {
        Map<String, GroupSnapshot> snapshots = new HashMap<>();
        if (!groupIds.isEmpty()) {
            get(admin.describeConsumerGroups(groupIds).all())
                    .forEach((id, group) -> snapshots.put(id, snapshot(group, Set.of())));
        }
        return snapshots;
    }

    private static GroupSnapshot snapshot(ConsumerGroupDescription group, Set<String> committed) {
        Map<String, SortedMap<String, SortedSet<Integer>>> owned = new TreeMap<>();
        for (MemberDescription member : group.members()) {
            String name = memberName(member);
            for (TopicPartition partition : member.assignment().topicPartitions()) {
                owned.computeIfAbsent(partition.topic(), t -> new TreeMap<>())
                        .computeIfAbsent(name, m -> new TreeSet<>()).add(partition.partition());
            }
        }
        String protocol = group.type() == GroupType.CONSUMER ? GroupSnapshot.CONSUMER : GroupSnapshot.CLASSIC;
        return new GroupSnapshot(group.groupId(), protocol, group.partitionAssignor(),
                state(String.valueOf(group.groupState())), group.members().size(), owned, committed);
    }

    /**
     * A member as an operator finds it in the clients' logs: client id, host, and the end of its
     * member id (a classic member id starts with the client id; both protocols' ids end random).
     */
    static String memberName(MemberDescription member) {
        String id = member.consumerId();
        String shortId = id.length() > 6 ? id.substring(id.length() - 6) : id;
        return member.clientId() + member.host() + "#" + shortId;
    }

    private Map<String, Set<String>> committedTopics(List<String> groupIds) {
        Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
        groupIds.forEach(id -> specs.put(id, new ListConsumerGroupOffsetsSpec()));
        Map<String, Set<String>> topics = new HashMap<>();
        get(admin.listConsumerGroupOffsets(specs).all()).forEach((group, offsets) -> {
            Set<String> names = new TreeSet<>();
            offsets.keySet().forEach(partition -> names.add(partition.topic()));
            topics.put(group, names);
        });
        return topics;
    }

    private static String state(String state) {
        return state.toLowerCase(Locale.ROOT);
    }

    private <T> T get(org.apache.kafka.common.KafkaFuture<T> future) {
        return Futures.get(future, timeout);
    }

    /** Waits for Admin answers; what the brokers refused comes out as the cause. */
    public static final class Futures {

        private Futures() {
        }

        public static <T> T get(org.apache.kafka.common.KafkaFuture<T> future, Duration timeout) {
            try {
                return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof KafkaException ? (KafkaException) e.getCause()
                        : new KafkaException(e.getCause());
            } catch (java.util.concurrent.TimeoutException e) {
                throw new org.apache.kafka.common.errors.TimeoutException("no answer from the brokers within "
                        + timeout.toMillis() + " ms");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new org.apache.kafka.common.errors.InterruptException(e);
            }
        }
    }
}
