package io.kscale.lab.expansion;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberAssignment;
import org.apache.kafka.common.TopicPartition;

/** The members of the counting group, and what they saw together. */
final class CountingGroup implements AutoCloseable {

    private final ExpansionPeer peer;
    private final String topic;
    private final String groupId;
    private final Map<String, Object> consumerProperties;
    private final Optional<MemberCommand> memberCommand;
    private final KeyOrder order;
    private final List<CountingMember> members = new ArrayList<>();
    private final List<CountingMember> departed = new ArrayList<>();
    private final Map<String, Set<Long>> received;
    /** When each member held each partition, all generations of the group together. */
    private final OwnershipTimeline timeline;
    private int nextId;
    /** Describes the group to the coordinator, made on first use (consumer protocol only). */
    private Admin admin;

    /**
     * @param consumerProperties connection settings plus any consumer settings of the scenario
     *     (for example a declared task count)
     */
    CountingGroup(ExpansionPeer peer, String topic, String groupId, Map<String, Object> consumerProperties) {
        this(peer, topic, groupId, consumerProperties, Optional.empty());
    }

    /**
     * @param memberCommand the client the members run in child processes, or empty for Java's
     *     {@code KafkaConsumer} in this JVM
     */
    CountingGroup(ExpansionPeer peer, String topic, String groupId, Map<String, Object> consumerProperties,
                  Optional<MemberCommand> memberCommand) {
        this(peer, topic, groupId, consumerProperties, memberCommand, new KeyOrder(), new ConcurrentHashMap<>(),
                new OwnershipTimeline(), 0);
    }

    private CountingGroup(ExpansionPeer peer, String topic, String groupId, Map<String, Object> consumerProperties,
                          Optional<MemberCommand> memberCommand, KeyOrder order, Map<String, Set<Long>> received,
                          OwnershipTimeline timeline, int nextId) {
        this.peer = peer;
        this.topic = topic;
        this.groupId = groupId;
        this.consumerProperties = consumerProperties;
        this.memberCommand = memberCommand;
        this.order = order;
        this.received = received;
        this.timeline = timeline;
        this.nextId = nextId;
    }

    /**
     * The group's next generation, once every member of this one has left: the same group id,
     * new members that count from zero (their state starts empty, as a restarted application's
     * would without a changelog), and the same record of what any generation received.
     */
    CountingGroup nextGeneration() {
        return nextGeneration(peer);
    }

    /** As {@link #nextGeneration()}, with members that use another assignor (and maybe protocol). */
    CountingGroup nextGeneration(ExpansionPeer nextPeer) {
        if (!members.isEmpty()) {
            throw new IllegalStateException("members " + ownership().keySet() + " are still in the group");
        }
        return new CountingGroup(nextPeer, topic, groupId, consumerProperties, memberCommand, order, received, timeline,
                nextId);
    }

    /** Every member leaves, all at once, as when a whole application stops. */
    void removeAllMembers() {
        members.forEach(CountingMember::stop);
        members.forEach(CountingMember::close);
        departed.addAll(members);
        members.clear();
    }

    void addMember() {
        String id = "member-" + nextId++;
        members.add(memberCommand.isPresent()
                ? new ProcessMember(id, topic, groupId, peer, memberCommand.get(), consumerProperties, received, order,
                        timeline)
                : new KafkaConsumerMember(id, topic, groupId, peer, consumerProperties, received, order, timeline));
    }

    void removeFirstMember() {
        CountingMember leaving = members.remove(0);
        leaving.close();
        departed.add(leaving);
    }

    /** @return when each member held each partition, this generation and those before it */
    OwnershipTimeline timeline() {
        return timeline;
    }

    /** The members now in the group. */
    List<CountingMember> members() {
        return List.copyOf(members);
    }

    /**
     * Every member assigned and quiet for a second; under the consumer protocol also the
     * coordinator's view: the target computed for the latest group epoch and every member at it.
     * A member learns of a new target only at its next heartbeat, and the coordinator computes
     * targets at most once per {@code group.consumer.assignment.interval.ms}, so a quiet second
     * alone can pass while a task is still on its way to a member that just joined.
     */
    boolean isSettled() {
        return members.stream().allMatch(CountingMember::isSettled) && (!peer.isServerSide() || coordinatorSettled());
    }

    private boolean coordinatorSettled() {
        try {
            if (admin == null) {
                admin = Admin.create(consumerProperties);
            }
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(groupId)).describedGroups()
                    .get(groupId).get(10, TimeUnit.SECONDS);
            Optional<Integer> epoch = group.groupEpoch();
            return epoch.isPresent() && epoch.equals(group.targetAssignmentEpoch())
                    && group.members().size() == members.size()
                    && group.members().stream().allMatch(member -> epoch.equals(member.memberEpoch())
                            && member.targetAssignment().map(MemberAssignment::topicPartitions)
                                    .equals(Optional.of(member.assignment().topicPartitions())));
        } catch (ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    Set<TopicPartition> ownedPartitions() {
        Set<TopicPartition> owned = new HashSet<>();
        members.forEach(member -> owned.addAll(member.owned()));
        return owned;
    }

    Optional<String> partitionOwnedTwice() {
        Map<TopicPartition, String> owners = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        for (CountingMember member : members) {
            for (TopicPartition partition : member.owned()) {
                String other = owners.put(partition, member.id());
                if (other != null) {
                    return Optional.of(partition + " owned by " + other + " and " + member.id());
                }
            }
        }
        return Optional.empty();
    }

    /** @return partitions per member, for logs */
    Map<String, Integer> ownership() {
        Map<String, Integer> ownership = new TreeMap<>();
        members.forEach(member -> ownership.put(member.id(), member.owned().size()));
        return ownership;
    }

    /** Distinct (key, number) pairs received by any member, present or departed. */
    long distinctRecords() {
        return received.values().stream().mapToLong(Set::size).sum();
    }

    /** @return records sent but never received by any member */
    long missing(Map<String, Long> sentPerKey) {
        return missing(received, sentPerKey);
    }

    /** @return of the records numbered 0 to n - 1 per key in {@code sentPerKey}, those not in {@code received} */
    static long missing(Map<String, Set<Long>> received, Map<String, Long> sentPerKey) {
        long missing = 0;
        for (Map.Entry<String, Long> sent : sentPerKey.entrySet()) {
            Set<Long> got = received.getOrDefault(sent.getKey(), Set.of());
            for (long sequence = 0; sequence < sent.getValue(); sequence++) {
                if (!got.contains(sequence)) {
                    missing++;
                }
            }
        }
        return missing;
    }

    /** @return per-key order as the application saw it, across members */
    KeyOrder order() {
        return order;
    }

    long rebalances() {
        return members.stream().mapToLong(CountingMember::rebalances).sum()
                + departed.stream().mapToLong(CountingMember::rebalances).sum();
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close();
        }
        members.forEach(CountingMember::close);
    }
}
