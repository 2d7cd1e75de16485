package io.kscale.assignor.internals.server;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;

/**
 * A consumer group as the coordinator hands it to a broker-side assignor, built up step by step
 * in tests: members with subscriptions, racks and current targets ({@link #spec()}), topics with
 * partition counts and replica racks ({@link #describer()}). {@link #apply} makes an assignment
 * the members' next targets, as the coordinator does.
 */
public final class TestGroup {

    private final Map<String, Set<Uuid>> subscriptions = new TreeMap<>();
    private final Map<String, String> racks = new HashMap<>();
    private final Map<String, Map<Uuid, Set<Integer>>> targets = new HashMap<>();
    private final Map<Uuid, Integer> partitions = new LinkedHashMap<>();
    private final Map<Uuid, String[]> replicaRacks = new HashMap<>();

    public TestGroup topic(Uuid id, int partitionCount) {
        partitions.put(id, partitionCount);
        return this;
    }

    /** Every partition p of the topic has replicas on racks[p % racks.length]. */
    public TestGroup replicasOn(Uuid id, String... racksByPartition) {
        replicaRacks.put(id, racksByPartition);
        return this;
    }

    public TestGroup member(String id, Uuid... topics) {
        subscriptions.put(id, Set.of(topics));
        targets.putIfAbsent(id, Collections.emptyMap());
        return this;
    }

    public TestGroup member(String id, Collection<Uuid> topics) {
        subscriptions.put(id, Set.copyOf(topics));
        targets.putIfAbsent(id, Collections.emptyMap());
        return this;
    }

    public TestGroup rack(String member, String rack) {
        racks.put(member, rack);
        return this;
    }

    public TestGroup leave(String id) {
        subscriptions.remove(id);
        targets.remove(id);
        racks.remove(id);
        return this;
    }

    /** Sets a member's current target as given, unchecked (tests of bad targets use it). */
    public TestGroup target(String member, Map<Uuid, Set<Integer>> target) {
        targets.put(member, target);
        return this;
    }

    /** Makes the assignment the members' current targets. */
    public TestGroup apply(GroupAssignment assignment) {
        for (String member : subscriptions.keySet()) {
            MemberAssignment assigned = assignment.members().get(member);
            Map<Uuid, Set<Integer>> copy = new HashMap<>();
            if (assigned != null) {
                assigned.partitions().forEach((topic, ps) -> copy.put(topic, Collections.unmodifiableSet(new TreeSet<>(ps))));
            }
            // unmodifiable, as the coordinator's (Kafka's uniform checks that it is)
            targets.put(member, Collections.unmodifiableMap(copy));
        }
        return this;
    }

    public Set<String> members() {
        return subscriptions.keySet();
    }

    public Set<Uuid> subscription(String member) {
        return subscriptions.get(member);
    }

    public int partitions(Uuid topic) {
        return partitions.getOrDefault(topic, -1);
    }

    public Map<Uuid, Set<Integer>> target(String member) {
        return targets.getOrDefault(member, Map.of());
    }

    public GroupSpec spec() {
        Map<String, Set<Uuid>> subs = new TreeMap<>(subscriptions);
        Map<String, Map<Uuid, Set<Integer>>> current = new HashMap<>();
        subs.keySet().forEach(m -> current.put(m, targets.getOrDefault(m, Collections.emptyMap())));
        Map<String, Optional<String>> memberRacks = new HashMap<>();
        subs.keySet().forEach(m -> memberRacks.put(m, Optional.ofNullable(racks.get(m))));
        boolean homogeneous = subs.values().stream().distinct().count() <= 1;
        return new Spec(subs, current, memberRacks, homogeneous ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS);
    }

    public SubscribedTopicDescriber describer() {
        Map<Uuid, Integer> counts = new HashMap<>(partitions);
        Map<Uuid, String[]> replicas = new HashMap<>(replicaRacks);
        return new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                return counts.getOrDefault(topicId, -1);
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                String[] byPartition = replicas.get(topicId);
                return byPartition == null ? Set.of() : Set.of(byPartition[partition % byPartition.length]);
            }
        };
    }

    private static final class Spec implements GroupSpec {
        private final Map<String, Set<Uuid>> subscriptions;
        private final Map<String, Map<Uuid, Set<Integer>>> targets;
        private final Map<String, Optional<String>> racks;
        private final SubscriptionType type;
        private final Map<Uuid, Map<Integer, String>> owners = new HashMap<>();

        Spec(Map<String, Set<Uuid>> subscriptions, Map<String, Map<Uuid, Set<Integer>>> targets,
             Map<String, Optional<String>> racks, SubscriptionType type) {
            this.subscriptions = subscriptions;
            this.targets = targets;
            this.racks = racks;
            this.type = type;
            targets.forEach((member, target) -> target.forEach((topic, ps) -> {
                if (ps != null) {
                    ps.forEach(p -> owners.computeIfAbsent(topic, t -> new HashMap<>()).putIfAbsent(p, member));
                }
            }));
        }

        @Override
        public Collection<String> memberIds() {
            return subscriptions.keySet();
        }

        @Override
        public SubscriptionType subscriptionType() {
            return type;
        }

        @Override
        public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
            Map<Integer, String> byPartition = owners.get(topicId);
            return byPartition != null && byPartition.containsKey(partitionId);
        }

        @Override
        public boolean isPartitionAssignable(Uuid topicId, int partitionId) {
            return true;
        }

        @Override
        public MemberSubscription memberSubscription(String memberId) {
            Set<Uuid> topics = subscriptions.get(memberId);
            Optional<String> rack = racks.getOrDefault(memberId, Optional.empty());
            return new MemberSubscription() {
                @Override
                public Optional<String> rackId() {
                    return rack;
                }

                @Override
                public Optional<String> instanceId() {
                    return Optional.empty();
                }

                @Override
                public Set<Uuid> subscribedTopicIds() {
                    return topics;
                }
            };
        }

        @Override
        public MemberAssignment memberAssignment(String memberId) {
            Map<Uuid, Set<Integer>> target = targets.getOrDefault(memberId, Collections.emptyMap());
            return () -> target;
        }
    }
}
