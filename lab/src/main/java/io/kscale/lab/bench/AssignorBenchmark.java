package io.kscale.lab.bench;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.KeyPreservingAssignorConfig;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
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
 * Cost of one leader-side {@link ConsumerPartitionAssignor#assign(Cluster, GroupSubscription)}:
 * kscale's {@link KeyPreservingAssignor} beside Kafka's {@link CooperativeStickyAssignor}, in one
 * of three rebalances ({@code scenario}): {@code fresh}, a new group whose members own nothing and
 * send the userData of a new assignor instance; {@code steady}, the group is already balanced and
 * one member rejoins, so every member reports the partitions it owns and the userData its own
 * assignor instance would send; {@code member-leaves}, the balanced group without its first member
 * (by id) that owns partitions, whose partitions go to the others.
 *
 * <p>The input is built once per trial. {@code size} is {@code <partitions>x<members>}: the
 * partitions are spread over √partitions topics of √partitions partitions each (1,000 topics of
 * 1,000 for 1M, as in Kafka's large {@code AbstractStickyAssignorTest} case; 100 of 100 for 10k),
 * one leader per partition on 3 nodes, and every member subscribes to every topic. Setup runs one
 * initial {@code assign()} with no prior ownership (generation 1), hands each member its
 * assignment through {@code onAssignment} on a member-side assignor instance of its own, takes
 * that instance's {@code subscriptionUserData}, and builds the measured {@link GroupSubscription}
 * with owned partitions, userData and generation 1 (the steady group; {@code fresh} measures the
 * joining subscriptions instead, {@code member-leaves} the steady ones less one member). It then
 * runs the measured call once and fails
 * the trial unless every partition is assigned exactly once, so a broken setup cannot produce a
 * score; it prints to stderr the steady userData bytes per member (average, max) and how many
 * partitions went to a member that did not hold them after the initial assignment (0 when
 * nothing moves). kscale is configured with
 * {@code group.id=bench, client.id=bench, kscale.assignor.layout.store.enabled=false}.
 *
 * <p>Note on kscale's shape: by default topics with the same partition count are co-partitioned,
 * so unit {@code T:t} (partition t of every topic) goes to one member; with √P topics of √P
 * partitions there are √P units, and members beyond √P get none (1,000 of 2,000 at 1M, 900 of
 * 1,000 at 10k). Kafka's assignor spreads partitions over every member; so does kscale with
 * {@code -p coPartitioning=none} (P units). Kafka's assignor ignores that parameter.
 *
 * <p>Run from the repository root; the 1M size needs a large heap (kept in the forked JVM with
 * {@code -jvmArgs}) and takes several minutes per assignor:
 * <pre>{@code
 * mvn -B -q package -DskipTests -pl lab -am
 * java -cp lab/target/kscale-lab.jar org.openjdk.jmh.Main AssignorBenchmark -p size=10000x1000 -p scenario=fresh
 * java -cp lab/target/kscale-lab.jar org.openjdk.jmh.Main AssignorBenchmark -p size=1000000x2000 \
 *     -jvmArgs "-Xmx8g -Dorg.slf4j.simpleLogger.log.io.kscale=warn"
 * }</pre>
 * (The lab logs {@code io.kscale} at INFO: kscale logs one line per {@code assign()} and per
 * {@code configure()}; the second system property keeps the 2,000 member-side instances quiet.)
 * One assignor only: {@code -p assignor=kscale}. ({@code -h} lists the rest: {@code -f},
 * {@code -wi}, {@code -i}, {@code -prof gc}, {@code -prof stack}, ...).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2)
@Measurement(iterations = 3)
public class AssignorBenchmark {

    static final String GROUP = "bench";
    static final int GENERATION = 1;
    static final int NODES = 3;

    /** The assignor measured: {@code kscale} or {@code cooperative-sticky} (Kafka's). */
    @Param({"kscale", "cooperative-sticky"})
    public String assignor;

    /** {@code <partitions>x<members>}; partitions must be a square (√P topics of √P partitions). */
    @Param({"10000x1000", "1000000x2000"})
    public String size;

    /**
     * The rebalance measured: {@code steady} (the balanced group rejoins, nothing moves),
     * {@code fresh} (every member joins with no prior ownership: the group's first assignment) or
     * {@code member-leaves} (the balanced group less its first member that owns partitions).
     */
    @Param({"fresh", "member-leaves", "steady"})
    public String scenario;

    /** kscale's {@code kscale.assignor.co.partitioning}; {@code none} places every topic's tasks on their own. */
    @Param({"by-task-count"})
    public String coPartitioning;

    private ConsumerPartitionAssignor leader;
    private Cluster cluster;
    private GroupSubscription rejoin;

    /** Builds the cluster, runs the initial assignment and builds the steady-state subscription. */
    @Setup(Level.Trial)
    public void setUp() {
        String[] parts = size.split("x");
        if (parts.length != 2) {
            throw new IllegalArgumentException("size must be <partitions>x<members>, was " + size);
        }
        int partitions = Integer.parseInt(parts[0]);
        int members = Integer.parseInt(parts[1]);
        int perTopic = (int) Math.round(Math.sqrt(partitions));
        if (perTopic * perTopic != partitions) {
            throw new IllegalArgumentException("the partition count must be a square, was " + partitions);
        }
        List<String> topics = topicNames(perTopic);
        cluster = cluster(topics, perTopic);
        leader = newAssignor();

        List<String> memberIds = new ArrayList<>();
        Map<String, Subscription> joining = new HashMap<>();
        for (int m = 0; m < members; m++) {
            String memberId = String.format("member-%05d", m);
            memberIds.add(memberId);
            joining.put(memberId, new Subscription(topics, newAssignor().subscriptionUserData(new HashSet<>(topics)),
                    List.of()));
        }
        long start = System.nanoTime();
        GroupAssignment initial = leader.assign(cluster, new GroupSubscription(joining));
        long initialMillis = (System.nanoTime() - start) / 1_000_000;
        check(initial, partitions, "initial");

        Set<String> topicSet = new HashSet<>(topics);
        Map<String, Subscription> steady = new HashMap<>();
        long userDataTotal = 0;
        int userDataMax = 0;
        for (String memberId : memberIds) {
            Assignment assignment = initial.groupAssignment().get(memberId);
            ConsumerPartitionAssignor member = newAssignor();
            member.onAssignment(assignment, new ConsumerGroupMetadata(GROUP, GENERATION, memberId, Optional.empty()));
            ByteBuffer userData = member.subscriptionUserData(topicSet);
            int bytes = userData == null ? 0 : userData.remaining();
            userDataTotal += bytes;
            userDataMax = Math.max(userDataMax, bytes);
            steady.put(memberId, new Subscription(topics, userData, assignment.partitions(), GENERATION,
                    Optional.empty()));
        }
        rejoin = measuredSubscription(joining, steady, initial, memberIds);

        start = System.nanoTime();
        GroupAssignment measured = leader.assign(cluster, rejoin);
        long measuredMillis = (System.nanoTime() - start) / 1_000_000;
        check(measured, partitions, scenario);
        int moved = 0;
        for (String memberId : rejoin.groupSubscription().keySet()) {
            Set<TopicPartition> before = new HashSet<>(initial.groupAssignment().get(memberId).partitions());
            for (TopicPartition partition : measured.groupAssignment().get(memberId).partitions()) {
                if (!before.contains(partition)) {
                    moved++;
                }
            }
        }
        int busy = (int) measured.groupAssignment().values().stream().filter(a -> !a.partitions().isEmpty()).count();
        System.err.printf("%n[AssignorBenchmark] assignor=%s size=%s scenario=%s: %d topics x %d partitions, %d "
                        + "members measured (%d with partitions); steady userData bytes per member: avg %.1f, max %d; "
                        + "partitions given to a member that did not have them after the initial assignment: %d; "
                        + "setup: initial assign %d ms, first measured assign %d ms%n",
                assignor, size, scenario, topics.size(), perTopic, rejoin.groupSubscription().size(), busy,
                (double) userDataTotal / members, userDataMax, moved, initialMillis, measuredMillis);
    }

    /** The subscription of the scenario measured, from the joining and the steady (balanced) subscriptions. */
    private GroupSubscription measuredSubscription(Map<String, Subscription> joining, Map<String, Subscription> steady,
                                                   GroupAssignment initial, List<String> memberIds) {
        switch (scenario) {
            case "fresh":
                return new GroupSubscription(joining);
            case "steady":
                return new GroupSubscription(steady);
            case "member-leaves":
                Map<String, Subscription> remaining = new HashMap<>(steady);
                String leaving = memberIds.stream()
                        .filter(m -> !initial.groupAssignment().get(m).partitions().isEmpty())
                        .findFirst().orElseThrow();
                remaining.remove(leaving);
                return new GroupSubscription(remaining);
            default:
                throw new IllegalArgumentException("scenario must be fresh, member-leaves or steady, was " + scenario);
        }
    }

    /**
     * One rebalance of the scenario's group.
     *
     * @return the assignment
     */
    @Benchmark
    public GroupAssignment assign() {
        return leader.assign(cluster, rejoin);
    }

    private ConsumerPartitionAssignor newAssignor() {
        switch (assignor) {
            case "kscale":
                KeyPreservingAssignor kscale = new KeyPreservingAssignor();
                kscale.configure(Map.of("group.id", GROUP, "client.id", GROUP,
                        "kscale.assignor.layout.store.enabled", false,
                        KeyPreservingAssignorConfig.CO_PARTITIONING_CONFIG, coPartitioning));
                return kscale;
            case "cooperative-sticky":
                return new CooperativeStickyAssignor();
            default:
                throw new IllegalArgumentException("assignor must be kscale or cooperative-sticky, was " + assignor);
        }
    }

    /** Fails unless every partition of the cluster is assigned to exactly one member. */
    private void check(GroupAssignment assignment, int partitions, String which) {
        Set<TopicPartition> seen = new HashSet<>(partitions * 2);
        for (Map.Entry<String, Assignment> member : assignment.groupAssignment().entrySet()) {
            for (TopicPartition partition : member.getValue().partitions()) {
                if (!seen.add(partition)) {
                    throw new IllegalStateException(assignor + " " + which + " assignment gives " + partition
                            + " twice (again to " + member.getKey() + ")");
                }
            }
        }
        if (seen.size() != partitions) {
            throw new IllegalStateException(assignor + " " + which + " assignment covers " + seen.size() + " of "
                    + partitions + " partitions");
        }
    }

    private static List<String> topicNames(int count) {
        List<String> topics = new ArrayList<>();
        for (int t = 0; t < count; t++) {
            topics.add(String.format("topic-%04d", t));
        }
        return List.copyOf(topics);
    }

    private static Cluster cluster(List<String> topics, int perTopic) {
        List<Node> nodes = new ArrayList<>();
        for (int id = 0; id < NODES; id++) {
            nodes.add(new Node(id, "localhost", 9092 + id));
        }
        List<PartitionInfo> partitions = new ArrayList<>(topics.size() * perTopic);
        for (String topic : topics) {
            for (int p = 0; p < perTopic; p++) {
                Node leader = nodes.get(p % NODES);
                partitions.add(new PartitionInfo(topic, p, leader, new Node[] {leader}, new Node[] {leader}));
            }
        }
        return new Cluster("kscale-bench", nodes, partitions, Set.of(), Set.of());
    }
}
