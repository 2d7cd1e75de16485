package io.kscale.lab.bench;

import io.kscale.assignor.KeyPreservingServerAssignor;
import io.kscale.assignor.KeyPreservingServerAssignorConfig;
import io.kscale.assignor.internals.server.NeverLoadedTaskCountStore;
import io.kscale.assignor.internals.server.ServerAssignmentBuilder;
import io.kscale.assignor.internals.server.ServerAssignorMetrics;
import io.kscale.assignor.internals.server.ServerAssignorState;
import io.kscale.assignor.internals.server.TaskCount;
import io.kscale.assignor.internals.server.TaskCountLog;
import io.kscale.assignor.internals.server.TaskCountStore;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
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
import java.util.function.BiFunction;
import java.util.function.LongSupplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
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
 * {@link KeyPreservingServerAssignor}, through its public {@code assign()}, beside Kafka's
 * {@link UniformAssignor}, in-process, both given the coordinator's own {@link GroupSpecImpl}.
 * kscale's task count store is an in-memory one that knows every topic, or with
 * {@code -Dkscale.bench.store.bootstrap=<host:port>} (in {@code -jvmArgs}) its real store on that
 * cluster, the assignor configured as a broker configures it. {@code kscale-builder} times the
 * builder that {@code assign()} calls ({@link ServerAssignmentBuilder}) alone, with the in-memory store.
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

    /**
     * {@code kscale}: {@code KeyPreservingServerAssignor.assign()}, its public entry;
     * {@code kscale-builder}: the builder that entry calls, alone; {@code kscale-held}: the public
     * entry while its store has not loaded (every topic held: members keep their targets, no
     * partition moves), on the targets of a loaded store; {@code uniform}: Kafka's.
     */
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

    /**
     * A system property: the bootstrap servers of a cluster on which {@code kscale}'s task count
     * store runs ({@code ./kscale-lab cluster --brokers 1} prints them); unset, an in-memory store.
     */
    static final String STORE_BOOTSTRAP_PROPERTY = "kscale.bench.store.bootstrap";

    /** {@code mixed}: the topics of {@code topics}, each member reading a seeded quarter of them. */
    static final String MIXED = "mixed";
    private static final long MIXED_SEED = 20261202L;

    @Param({"fresh", "join", "leave", "grow"})
    public String change;

    private Group group;
    private GroupSpec spec;
    private UniformAssignor uniform;
    private KeyPreservingServerAssignor kscale;
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
        spec = group.spec();
        String bootstrap = System.getProperty(STORE_BOOTSTRAP_PROPERTY, "");
        if (assignor.equals("kscale") && !bootstrap.isEmpty()) {
            kscale = onCluster(bootstrap);
            awaitEveryTopicKnown(partitions);
        } else if (assignor.startsWith("kscale")) {
            kscale = withStore(store); // kscale-held too: its targets are those of a loaded store
        }
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
            spec = group.spec(); // the targets or the topics changed
        }
        if (assignor.equals("kscale-held")) {
            kscale = withStore(new NeverLoadedTaskCountStore());
            expected = group.members.values().stream().flatMap(target -> target.values().stream()).mapToLong(Set::size).sum();
        }
        long assigned = assignedCount(assign());
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
        switch (assignor) {
            case "uniform":
                return uniform.assign(spec, group);
            case "kscale":
            case "kscale-held":
                return kscale.assign(spec, group);
            case "kscale-builder":
                return new ServerAssignmentBuilder(spec, group, store, new TaskCountLog(), new ServerAssignorMetrics(() -> 0))
                        .build();
            default:
                throw new IllegalArgumentException("assignor must be kscale, kscale-builder, kscale-held or uniform, got "
                        + assignor);
        }
    }

    /**
     * @return kscale's broker-side assignor, configured as a broker configures it, its task count
     *         store on the cluster at {@code bootstrap}
     */
    private static KeyPreservingServerAssignor onCluster(String bootstrap) {
        KeyPreservingServerAssignor assignor = new KeyPreservingServerAssignor();
        // process.roles: a broker's settings, on which the assignor starts its store at once. A
        // store topic per trial: the shapes reuse topic ids with other partition counts, and a
        // stored T is kept forever, so a shared store would give one shape another's T.
        assignor.configure(Map.of("process.roles", "broker",
                KeyPreservingServerAssignorConfig.STORE_BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                KeyPreservingServerAssignorConfig.STORE_TOPIC_CONFIG, "kscale-bench-task-counts-" + Uuid.randomUuid()));
        return assignor;
    }

    /** @return kscale's broker-side assignor with {@code store}, given through the constructor its own tests use */
    private static KeyPreservingServerAssignor withStore(TaskCountStore store) {
        try {
            Constructor<KeyPreservingServerAssignor> seam = KeyPreservingServerAssignor.class.getDeclaredConstructor(
                    BiFunction.class, boolean.class, ServerAssignorState.class, LongSupplier.class);
            seam.setAccessible(true);
            BiFunction<Map<String, ?>, KeyPreservingServerAssignorConfig, TaskCountStore> given = (configs, settings) -> store;
            KeyPreservingServerAssignor assignor = seam.newInstance(given, false, ServerAssignorState.detached(),
                    (LongSupplier) System::nanoTime);
            assignor.configure(Map.of());
            return assignor;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("KeyPreservingServerAssignor's constructor for tests changed", e);
        }
    }

    /**
     * Waits until the assignor assigns every one of {@code partitions}: with its store on a cluster,
     * a topic is held (left unassigned) until its T is stored there, which the first calls propose.
     */
    private void awaitEveryTopicKnown(long partitions) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (assignedCount(assign()) != partitions) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the task count store at " + System.getProperty(STORE_BOOTSTRAP_PROPERTY)
                        + " did not know every topic within 60 s");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static long assignedCount(GroupAssignment assignment) {
        return assignment.members().values().stream()
                .mapToLong(a -> a.partitions().values().stream().mapToLong(Set::size).sum()).sum();
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

    /**
     * The group as the coordinator describes it: members with targets, and topics. The
     * {@link GroupSpec} is the coordinator's own ({@link GroupSpecImpl}, one
     * {@link MemberSubscriptionAndAssignmentImpl} per member and the inverted index of the targets,
     * made once per change as the coordinator makes them), so that both assignors read the group
     * through the calls and the objects they get on a broker.
     */
    private static final class Group implements SubscribedTopicDescriber {
        /** The racks' names, made once as a broker holds them (member i in rack i % racks). */
        private static final String[] RACK_NAMES = {"rack-0", "rack-1", "rack-2"};
        /** By member id, its target; a hash map, as the coordinator keeps members (no order of ids). */
        final Map<String, Map<Uuid, Set<Integer>>> members = new HashMap<>();
        final Map<Uuid, Integer> partitions = new HashMap<>();
        /** By member: the topics it reads, if {@link #subscribeQuarters} set them; else every topic. */
        private final Map<String, Set<Uuid>> subscriptions = new HashMap<>();
        private boolean heterogeneous;
        /** Racks of the members (member i in rack i % racks) and of the partitions (2 each); 0: none. */
        private final int racks;

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

        /**
         * @return the group as the coordinator hands it to an assignor: every member's subscription
         *         a set of its own (as each member's heartbeat brings one), its target as it is, and
         *         the partitions' owners by topic
         */
        GroupSpec spec() {
            Map<String, MemberSubscriptionAndAssignmentImpl> specs = new HashMap<>();
            Map<Uuid, Map<Integer, String>> owners = new HashMap<>();
            members.forEach((member, target) -> {
                Set<Uuid> topics = subscriptions.containsKey(member) ? subscriptions.get(member)
                        : Collections.unmodifiableSet(new HashSet<>(partitions.keySet()));
                Optional<String> rack = racks == 0 ? Optional.empty()
                        : Optional.of(RACK_NAMES[Integer.parseInt(member.substring(1)) % racks]);
                specs.put(member, new MemberSubscriptionAndAssignmentImpl(rack, Optional.empty(), topics, new Assignment(target)));
                target.forEach((topic, ps) -> ps.forEach(p -> owners.computeIfAbsent(topic, t -> new HashMap<>()).put(p, member)));
            });
            return new GroupSpecImpl(specs, heterogeneous ? SubscriptionType.HETEROGENEOUS : SubscriptionType.HOMOGENEOUS, owners);
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
