package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.MessageFrame;
import io.kscale.assignor.internals.wire.AssignmentInfo;
import io.kscale.assignor.internals.wire.MemberReport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Plays a consumer group's rebalances the way Kafka's ConsumerCoordinator does, without brokers:
 * members with their own assignor instances, subscriptions with userData and owned partitions,
 * the leader's {@code assign}, Kafka's COOPERATIVE check (no partition revoked from one member and
 * given to another in one rebalance) and, under COOPERATIVE, the follow-up rebalance a member
 * triggers after revoking. Every member is checked after each rebalance: no partition twice.
 *
 * <p>Members may be stateful: {@link #join(String, ScriptedListener, String...)} registers a
 * {@link TaskStateListener} whose lags the test scripts and whose callbacks it records. Members
 * may also be old ({@link Member#legacy}): they send the version 0 report kscale sent before task
 * state. The leader's clock is {@link #time}. The metadata carries topic ids after
 * {@link #withTopicIds()}, as brokers do; without, as old metadata and most tests.
 */
public final class GroupSimulator {

    public static final String GROUP = "group";
    /** Metrics are JVM-wide per client id: each simulated group gets client ids of its own. */
    private static final java.util.concurrent.atomic.AtomicInteger GROUPS = new java.util.concurrent.atomic.AtomicInteger();

    private final RebalanceProtocol protocol;
    private final Map<String, Object> settings;
    private final SortedMap<String, Member> members = new TreeMap<>();
    private final Map<String, Integer> partitionCounts = new TreeMap<>();
    /** Topic ids the metadata carries; empty unless {@link #withTopicIds()} (old metadata, and most tests). */
    private final Map<String, Uuid> topicIds = new TreeMap<>();
    private boolean withTopicIds;
    private long nextTopicId = 1;
    private final int groupNumber = GROUPS.incrementAndGet();
    private List<String> brokerRacks = List.of();
    private int generation;
    /** The leader's clock, for follow-up deadlines and forgetting: tests move it with {@code time.sleep(ms)}. */
    public final MockTime time = new MockTime(1_700_000_000_000L);

  public   GroupSimulator(RebalanceProtocol protocol, Map<String, Object> settings) {
        this.protocol = protocol;
        this.settings = settings;
    }

    static final class Member {
        final String id;
        final KeyPreservingAssignor assignor = new KeyPreservingAssignor();
        List<String> topics;
        /** The member's task state hooks, or null for a stateless member. */
        final ScriptedListener listener;
        List<TopicPartition> owned = List.of();
        String rack;
        /** Whether the member sends a version 0 report, as kscale did before task state. */
        boolean legacy;
        /** Rewrites the userData the member sends (a member that lies or is broken); null for none. */
        java.util.function.UnaryOperator<ByteBuffer> tamper;
        /** The member's latest assignment. */
        Assignment assignment;

        Member(String id, List<String> topics, ScriptedListener listener) {
            this.id = id;
            this.topics = topics;
            this.listener = listener;
        }

        /** @return what the latest assignment's userData says */
        AssignmentInfo info() {
            return AssignmentInfo.decode(assignment.userData()).orElseThrow();
        }

        /** @return the follow-up deadline of the latest assignment */
        OptionalLong followUpDeadline() {
            return info().followUpDeadline();
        }
    }

    /**
     * A stateful application's hooks: the test sets {@link #lags}; the callbacks are recorded.
     * {@link #warming} is the latest {@code onWarmup} set.
     */
    public static class ScriptedListener implements TaskStateListener {
        public final Map<TaskRef, Long> lags = new HashMap<>();
        public Set<TaskRef> warming = Set.of();
        final List<Set<TaskRef>> warmupCalls = new ArrayList<>();
        final List<Set<TaskRef>> dropCalls = new ArrayList<>();

        @Override
        public Map<TaskRef, Long> lags() {
            return new HashMap<>(lags);
        }

        @Override
        public void onWarmup(Set<TaskRef> tasks) {
            warming = tasks;
            warmupCalls.add(tasks);
        }

        @Override
        public void onDrop(Set<TaskRef> tasks) {
            dropCalls.add(tasks);
        }

        /** @return every task dropped so far */
        Set<TaskRef> dropped() {
            Set<TaskRef> all = new java.util.TreeSet<>();
            dropCalls.forEach(all::addAll);
            return all;
        }
    }

    /** Sets a topic's partition count; a new topic gets a topic id when {@link #withTopicIds()}. */
    public GroupSimulator topic(String topic, int partitions) {
        partitionCounts.put(topic, partitions);
        if (withTopicIds && !topicIds.containsKey(topic)) {
            topicIds.put(topic, new Uuid(0x6B7363616C65L, nextTopicId++));
        }
        return this;
    }

    /** From now on every topic created gets a topic id in the metadata, as brokers since Kafka 2.8 give. */
    GroupSimulator withTopicIds() {
        withTopicIds = true;
        partitionCounts.keySet().forEach(topic -> topicIds.computeIfAbsent(topic,
                t -> new Uuid(0x6B7363616C65L, nextTopicId++)));
        return this;
    }

    /** Deletes a topic: it leaves the metadata, with its id. */
    GroupSimulator deleteTopic(String topic) {
        partitionCounts.remove(topic);
        topicIds.remove(topic);
        return this;
    }

    /** Deletes and re-creates a topic: a new topic id (with {@link #withTopicIds()}) and a new count. */
    GroupSimulator recreateTopic(String topic, int partitions) {
        return deleteTopic(topic).topic(topic, partitions);
    }

    /** @return the topic's id in the metadata, or {@link Uuid#ZERO_UUID} */
    Uuid topicId(String topic) {
        return topicIds.getOrDefault(topic, Uuid.ZERO_UUID);
    }

    /** Changes what a member subscribes to, from its next subscription on. */
    void subscribe(String id, String... topics) {
        members.get(id).topics = List.of(topics);
    }

    Member join(String id, String... topics) {
        return join(id, null, topics);
    }

    /** Joins a member; with a listener it is stateful (registered as the consumer's setting, as an application does). */
    Member join(String id, ScriptedListener listener, String... topics) {
        Member member = new Member(id, List.of(topics), listener);
        Map<String, Object> memberSettings = new HashMap<>(settings);
        memberSettings.put("group.id", GROUP);
        memberSettings.put("client.id", "group-" + groupNumber + "-" + id);
        if (listener != null) {
            memberSettings.put(KeyPreservingAssignorConfig.TASK_STATE_LISTENER_CONFIG, listener);
        }
        member.assignor.configure(memberSettings);
        member.assignor.time(time);
        members.put(id, member);
        return member;
    }

    public void leave(String id) {
        members.remove(id);
    }

    /** Brings back a member that left, with what its assignor knew then (it missed the rebalances since). */
    void rejoin(Member member) {
        members.put(member.id, member);
    }

    public Member member(String id) {
        return members.get(id);
    }

    /** Rebalances until no member has to revoke and rejoin (COOPERATIVE needs two rounds for a move). */
    public int rebalanceUntilStable() {
        for (int rounds = 1; rounds <= 5; rounds++) {
            if (!rebalance()) {
                return rounds;
            }
        }
        throw new AssertionError("no stable assignment after 5 rebalances");
    }

    /**
     * One rebalance. The leader is the first member by id.
     *
     * @return whether some member revoked partitions and would rejoin at once (COOPERATIVE)
     */
    public boolean rebalance() {
        generation++;
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (Member member : members.values()) {
            ByteBuffer userData = member.assignor.subscriptionUserData(new HashSet<>(member.topics));
            if (member.legacy) {
                userData = MemberReport.decode(userData).orElseThrow().encode(MessageFrame.VERSION_0);
            }
            if (member.tamper != null) {
                userData = member.tamper.apply(userData);
            }
            List<TopicPartition> owned = protocol == RebalanceProtocol.COOPERATIVE ? member.owned : List.of();
            int memberGeneration = protocol == RebalanceProtocol.COOPERATIVE ? generation - 1 : -1;
            subscriptions.put(member.id, new Subscription(member.topics, userData, owned, memberGeneration,
                    Optional.ofNullable(member.rack)));
        }
        KeyPreservingAssignor leader = members.values().iterator().next().assignor;
        GroupAssignment result = leader.assign(cluster(), new GroupSubscription(subscriptions));
        Map<String, Assignment> assignments = result.groupAssignment();
        assertThat(assignments.keySet()).containsExactlyInAnyOrderElementsOf(members.keySet());
        checkEachPartitionOnce(assignments);
        if (protocol == RebalanceProtocol.COOPERATIVE) {
            checkCooperative(subscriptions, assignments);
        }
        boolean revoked = false;
        for (Member member : members.values()) {
            Assignment assignment = assignments.get(member.id);
            revoked |= !assignment.partitions().containsAll(member.owned) && protocol == RebalanceProtocol.COOPERATIVE;
            member.owned = List.copyOf(assignment.partitions());
            member.assignment = assignment;
            member.assignor.onAssignment(assignment,
                    new ConsumerGroupMetadata(GROUP, generation, member.id, Optional.empty()));
        }
        return revoked;
    }

    /** Kafka's ConsumerCoordinator#validateCooperativeAssignment, restated. */
    private static void checkCooperative(Map<String, Subscription> subscriptions, Map<String, Assignment> assignments) {
        Set<TopicPartition> revoked = new HashSet<>();
        Set<TopicPartition> added = new HashSet<>();
        subscriptions.forEach((member, subscription) -> {
            List<TopicPartition> assigned = assignments.get(member).partitions();
            subscription.ownedPartitions().stream().filter(p -> !assigned.contains(p)).forEach(revoked::add);
            assigned.stream().filter(p -> !subscription.ownedPartitions().contains(p)).forEach(added::add);
        });
        revoked.retainAll(added);
        assertThat(revoked).as("partitions revoked from one member and assigned to another in one rebalance").isEmpty();
    }

    private static void checkEachPartitionOnce(Map<String, Assignment> assignments) {
        Set<TopicPartition> seen = new HashSet<>();
        assignments.values().forEach(assignment -> assignment.partitions().forEach(partition ->
                assertThat(seen.add(partition)).as("%s assigned twice", partition).isTrue()));
    }

    /** Puts one broker in each rack given; partition p's only replica is on broker p % brokers. */
    GroupSimulator brokerRacks(String... racks) {
        brokerRacks = List.of(racks);
        return this;
    }

    Cluster cluster() {
        List<Node> nodes = new ArrayList<>();
        for (int id = 0; id < Math.max(1, brokerRacks.size()); id++) {
            nodes.add(new Node(id, "127.0.0.1", 9092 + id, brokerRacks.isEmpty() ? null : brokerRacks.get(id)));
        }
        List<PartitionInfo> partitions = new ArrayList<>();
        partitionCounts.forEach((topic, count) -> {
            for (int p = 0; p < count; p++) {
                Node node = nodes.get(p % nodes.size());
                partitions.add(new PartitionInfo(topic, p, node, new Node[] {node}, new Node[] {node}));
            }
        });
        return new Cluster("cluster", nodes, partitions, Set.of(), Set.of(), Set.of(), null, topicIds);
    }

    /** @return the member that owns each partition now */
    Map<TopicPartition, String> owners() {
        Map<TopicPartition, String> owners = new HashMap<>();
        members.values().forEach(member -> member.owned.forEach(partition -> owners.put(partition, member.id)));
        return owners;
    }

    /** @return the size of the largest member's next subscription userData, bytes: what the group's metadata record holds per member */
    int largestUserData() {
        return members.values().stream().mapToInt(member ->
                member.assignor.subscriptionUserData(new HashSet<>(member.topics)).remaining()).max().orElse(0);
    }

    /** @return partitions per member now */
    Map<String, Integer> load() {
        Map<String, Integer> load = new TreeMap<>();
        members.values().forEach(member -> load.put(member.id, member.owned.size()));
        return load;
    }
}
