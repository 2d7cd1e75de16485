package io.kscale.lab.bench;

import io.kscale.assignor.internals.server.ServerAssignmentBuilder;
import io.kscale.assignor.internals.server.ServerAssignorMetrics;
import io.kscale.assignor.internals.server.TaskCount;
import io.kscale.assignor.internals.server.TaskCountLog;
import io.kscale.assignor.internals.server.TaskCountStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of one broker-side {@code assign(GroupSpec, SubscribedTopicDescriber)}: kscale's
 * key-preserving assignment ({@link ServerAssignmentBuilder}, the body of
 * {@code KeyPreservingServerAssignor.assign}, with an in-memory task count store that knows
 * every topic) beside Kafka's {@link UniformAssignor}, in-process.
 *
 * <p>{@code size} is {@code <partitions>x<members>}; {@code shape}:
 * <ul>
 *   <li>{@code one-topic}: one topic of P partitions (P units of one partition: kscale's worst
 *       case). Equal work: both assignors spread P partitions.</li>
 *   <li>{@code distinct-topics}: √P topics, every one of another partition count (√P ± k, P in
 *       all), all read by every member. kscale co-partitions only topics of the same task count,
 *       so here it spreads P units of one partition, as {@code uniform} spreads P partitions:
 *       equal work with many topics.</li>
 *   <li>{@code mixed}: √P topics of √P partitions, each member reading a seeded quarter of them
 *       (so few topics share their subscribers, and each is a class of its own: the
 *       mixed-subscription path, {@code SpreadNarrower}). Equal work: no two topics have the same
 *       readers, so nothing is co-partitioned.</li>
 *   <li>{@code topics}: √P topics of √P partitions read by every member. Not equal work: kscale
 *       co-partitions them into √P units of √P partitions (a key's records of two topics meet on
 *       one member), so with fewer units than members some members get nothing, while
 *       {@code uniform} spreads P partitions. Reported apart for that reason.</li>
 * </ul>
 * {@code racks} {@code 3}: members in 3 racks, each partition on 2 of them (replication factor 2);
 * {@code none}: no rack anywhere. {@code change} {@code fresh}: no member has a target yet;
 * {@code join}: the group's own fresh assignment is every member's target and one more member
 * joins; {@code leave}: the same targets, and one member leaves; {@code grow}: the same targets,
 * and the first topic doubles its partition count (an expansion). Targets are handed over as
 * {@code HashSet<Integer>}s and every member's subscription as a set of its own, as the
 * coordinator builds them, not as the assignor's own sets. Setup
 * builds the input once per trial; the measured call only assigns.
 *
 * <p>Run: {@code mvn -B -DskipTests package && java -Xmx8g -cp lab/target/kscale-lab.jar
 * org.openjdk.jmh.Main ServerAssignorBenchmark -jvmArgs "-Xms8g -Xmx8g -XX:+AlwaysPreTouch
 * -Dorg.slf4j.simpleLogger.log.io.kscale=warn"} ({@code -p size=10000x50} for the small case
 * only, with a 2 GB heap). Each fork's heap fixed and pretouched, as a broker's heap is fixed:
 * where memory is backed on first touch (a virtual machine), a heap that grows and shrinks puts
 * page faults into the measured calls, and the million-partition cells scatter by several times.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2)
@Measurement(iterations = 3)
public class ServerAssignorBenchmark {

    /** {@code kscale} or {@code uniform} (Kafka's). */
    @Param({"kscale", "uniform"})
    public String assignor;

    /** {@code <partitions>x<members>}; for every shape but {@code one-topic}, partitions must be an even square. */
    @Param({"10000x50", "1000000x50"})
    public String size;

    @Param({"one-topic", "distinct-topics", "mixed", "topics"})
    public String shape;

    /** {@code none} or {@code 3} (racks of the members, each partition on 2 of them). */
    @Param({"none"})
    public String racks;

    /** {@code mixed}: the topics of {@code topics}, each member reading a seeded quarter of them. */
    static final String MIXED = "mixed";
    private static final long MIXED_SEED = 20261202L;

    @Param({"fresh", "join", "leave", "grow"})
    public String change;

    private Group group;
    private UniformAssignor uniform;
    private TaskCountStore store;

    @Setup(Level.Trial)
    public void setUp() {
        String[] parts = size.split("x");
        int partitions = Integer.parseInt(parts[0]);
        int members = Integer.parseInt(parts[1]);
        group = new Group(racks.equals("3") ? 3 : 0);
        if (shape.equals("one-topic")) {
            group.partitions.put(new Uuid(1, 0), partitions);
        } else {
            int side = (int) Math.round(Math.sqrt(partitions));
            if (side * side != partitions || side % 2 != 0) {
                throw new IllegalArgumentException(shape + " needs an even square number of partitions, got " + partitions);
            }
            for (int t = 0; t < side; t++) {
                group.partitions.put(new Uuid(1, t), shape.equals("distinct-topics") ? distinctCount(side, t) : side);
            }
        }
        for (int m = 0; m < members; m++) {
            group.members.put(String.format("m%04d", m), Collections.emptyMap());
        }
        if (shape.equals(MIXED)) {
            group.subscribeQuarters(change.equals("join") ? members + 1 : members);
        }
        uniform = new UniformAssignor();
        store = new KnownStore();
        long expected = partitions;
        if (!change.equals("fresh")) {
            GroupAssignment fresh = assign();
            fresh.members().forEach((member, assigned) -> group.members.put(member, boxed(assigned.partitions())));
            switch (change) {
                case "join":
                    group.members.put(String.format("m%04d", members), Collections.emptyMap());
                    break;
                case "leave":
                    group.members.remove(String.format("m%04d", members / 2));
                    break;
                case "grow":
                    Uuid first = new Uuid(1, 0);
                    expected += group.partitions.get(first);
                    group.partitions.put(first, 2 * group.partitions.get(first));
                    break;
                default:
                    throw new IllegalArgumentException("change must be fresh, join, leave or grow, got " + change);
            }
            group.owners = null; // the targets changed: the inverted index is rebuilt on first use
        }
        GroupAssignment check = assign();
        long assigned = check.members().values().stream()
                .mapToLong(a -> a.partitions().values().stream().mapToLong(Set::size).sum()).sum();
        if (assigned != expected) {
            throw new IllegalStateException(assignor + " assigned " + assigned + " of " + expected + " partitions");
        }
    }

    /**
     * Partition count of topic {@code t} of {@code side} (even) in {@code distinct-topics}: pairs
     * {@code side + k + 1} and {@code side - k - 1}, so every count differs and they sum to side².
     */
    static int distinctCount(int side, int t) {
        int k = t / 2;
        return t % 2 == 0 ? side + k + 1 : side - k - 1;
    }

    /** A target as the coordinator hands it over: a {@code HashSet<Integer>} per topic. */
    private static Map<Uuid, Set<Integer>> boxed(Map<Uuid, Set<Integer>> assigned) {
        Map<Uuid, Set<Integer>> target = new HashMap<>();
        assigned.forEach((topic, partitions) -> target.put(topic, new HashSet<>(partitions)));
        return Collections.unmodifiableMap(target);
    }

    /** @return the assignment */
    @Benchmark
    public GroupAssignment assign() {
        if (assignor.equals("uniform")) {
            return uniform.assign(group, group);
        }
        return new ServerAssignmentBuilder(group, group, store, new TaskCountLog(), new ServerAssignorMetrics(() -> 0))
                .build();
    }

    /** Every topic's T is its partition count, known (the steady state of a loaded store). */
    private final class KnownStore implements TaskCountStore {
        private final Map<Uuid, Integer> taskCounts = new ConcurrentHashMap<>();

        @Override
        public TaskCount lookup(Uuid topicId) {
            return TaskCount.known(taskCounts.computeIfAbsent(topicId, id -> group.partitions.get(id)));
        }

        @Override
        public int propose(Uuid topicId, int proposed, int partitionCount) {
            return proposed;
        }

        @Override
        public void close() {
        }
    }

    /** The group as the coordinator describes it: members with targets, and topics. */
    private static final class Group implements GroupSpec, SubscribedTopicDescriber {
        /** The racks' names, made once as a broker holds them (member i in rack i % racks). */
        private static final String[] RACK_NAMES = {"rack-0", "rack-1", "rack-2"};
        /** By member id, its target; a hash map, as the coordinator keeps members (no order of ids). */
        final Map<String, Map<Uuid, Set<Integer>>> members = new HashMap<>();
        final Map<Uuid, Integer> partitions = new HashMap<>();
        /**
         * By member: the topics it reads, a set of its own per member, as the coordinator hands
         * them over (made on first use: every topic, unless {@link #subscribeQuarters} set them).
         */
        private final Map<String, Set<Uuid>> subscriptions = new HashMap<>();
        private boolean heterogeneous;
        private Map<Uuid, Map<Integer, String>> owners;
        /** Racks of the members (member i in rack i % racks) and of the partitions (2 each); 0: none. */
        private final int racks;
        private final Map<String, Optional<String>> memberRacks = new HashMap<>();

        Group(int racks) {
            this.racks = racks;
        }

        /**
         * Member i of {@code members} (the joining one included) reads a seeded quarter of the
         * topics, and topic t is read by members t % members and (t + 1) % members at least, so
         * every topic is assigned, also after one member leaves.
         */
        void subscribeQuarters(int members) {
            heterogeneous = true;
            SplittableRandom random = new SplittableRandom(MIXED_SEED);
            List<Uuid> topics = new ArrayList<>(new TreeSet<>(partitions.keySet()));
            for (int m = 0; m < members; m++) {
                Set<Uuid> read = new HashSet<>();
                for (int t = 0; t < topics.size(); t++) {
                    boolean reads = random.nextInt(4) == 0; // drawn for every pair: one seeded sequence
                    if (reads || t % members == m || (t + 1) % members == m) {
                        read.add(topics.get(t));
                    }
                }
                subscriptions.put(String.format("m%04d", m), Collections.unmodifiableSet(read));
            }
        }

        @Override
        public Collection<String> memberIds() {
            return members.keySet();
        }

        @Override
        public SubscriptionType subscriptionType() {
            return heterogeneous ? SubscriptionType.HETEROGENEOUS : SubscriptionType.HOMOGENEOUS;
        }

        @Override
        public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
            if (owners == null) {
                Map<Uuid, Map<Integer, String>> byTopic = new HashMap<>();
                members.forEach((member, target) -> target.forEach((topic, ps) -> ps.forEach(p ->
                        byTopic.computeIfAbsent(topic, t -> new HashMap<>()).put(p, member))));
                owners = byTopic;
            }
            Map<Integer, String> byPartition = owners.get(topicId);
            return byPartition != null && byPartition.containsKey(partitionId);
        }

        @Override
        public boolean isPartitionAssignable(Uuid topicId, int partitionId) {
            return true;
        }

        @Override
        public MemberSubscription memberSubscription(String memberId) {
            Set<Uuid> topics = subscriptions.computeIfAbsent(memberId,
                    id -> Collections.unmodifiableSet(new HashSet<>(partitions.keySet())));
            Optional<String> rack = racks == 0 ? Optional.empty()
                    : memberRacks.computeIfAbsent(memberId, id -> Optional.of(RACK_NAMES[Integer.parseInt(id.substring(1)) % racks]));
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
            Map<Uuid, Set<Integer>> target = members.getOrDefault(memberId, Collections.emptyMap());
            return () -> target;
        }

        @Override
        public int numPartitions(Uuid topicId) {
            return partitions.getOrDefault(topicId, -1);
        }

        @Override
        public Set<String> racksForPartition(Uuid topicId, int partition) {
            if (racks == 0) {
                return Set.of();
            }
            // A new set per call of names the broker already holds (its registrations' racks), as the
            // coordinator's describer answers: names built per call would be hashed per call.
            return Set.of(RACK_NAMES[partition % racks], RACK_NAMES[(partition + 1) % racks]);
        }
    }
}
