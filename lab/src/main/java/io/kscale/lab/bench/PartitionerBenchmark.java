package io.kscale.lab.bench;

import io.kscale.partitioner.UniformStickyBytesPartitioner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Partitioner;
import org.apache.kafka.clients.producer.RoundRobinPartitioner;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of one {@link Partitioner#partition} call: kscale's {@link UniformStickyBytesPartitioner}
 * beside Kafka's {@link RoundRobinPartitioner}, for records without and with a key, on 1 thread and
 * on 8 threads sharing one partitioner (as the threads calling {@code send()} on one producer do).
 *
 * <p>The input is built once per trial: a cluster of 3 nodes and one topic of 12 partitions, all
 * with a leader; 1024 distinct 16-byte keys, picked in turn through a per-thread index; one 512-byte
 * value. Both partitioners are configured with {@code batch.size=16384}, so kscale's switches every
 * 16384 bytes ({@code partitioner.sticky.batch.size} is left at 0). {@code RoundRobinPartitioner}
 * ignores keys: its keyed and unkeyed rows measure the same work. Scores are total operations per
 * microsecond over all threads of a method, so "no collapse at 8 threads" means {@code eightThreads}
 * stays near {@code oneThread} times the number of cores.
 *
 * <p>Run from the repository root (a few minutes for all 8 combinations):
 * <pre>{@code
 * mvn -B -q install -DskipTests -pl partitioner
 * mvn -B -q package -DskipTests -pl lab
 * java -cp lab/target/kscale-lab.jar org.openjdk.jmh.Main PartitionerBenchmark
 * }</pre>
 * Pick params or methods with JMH's own options, e.g. only kscale on unkeyed records at 8 threads:
 * <pre>{@code
 * java -cp lab/target/kscale-lab.jar org.openjdk.jmh.Main 'PartitionerBenchmark.eightThreads' \
 *     -p partitioner=kscale -p records=unkeyed
 * }</pre>
 * ({@code -h} lists the rest: {@code -f}, {@code -wi}, {@code -i}, {@code -prof gc}, ...).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PartitionerBenchmark {

    static final String TOPIC = "bench";
    static final int PARTITIONS = 12;
    static final int NODES = 3;
    static final int KEY_COUNT = 1024; // a power of two: the index wraps with a mask
    static final int KEY_SIZE = 16;
    static final int VALUE_SIZE = 512;
    static final int BATCH_SIZE = 16384;
    static final long SEED = 42L;

    /** The partitioner measured: {@code kscale} or {@code round-robin} (Kafka's). */
    @Param({"kscale", "round-robin"})
    public String partitioner;

    /** {@code unkeyed}: null key; {@code keyed}: one of {@value #KEY_COUNT} keys. */
    @Param({"unkeyed", "keyed"})
    public String records;

    private Partitioner measured;
    private Cluster cluster;
    private byte[][] keys;
    private byte[] value;
    private boolean keyed;

    /** Per-thread position in the key array, so threads do not share a counter. */
    @State(Scope.Thread)
    public static class KeyCursor {
        private int next;

        /** Starts each thread at a different key. */
        @Setup(Level.Trial)
        public void setUp() {
            next = (int) (Thread.currentThread().getId() * 31) & (KEY_COUNT - 1);
        }

        int next() {
            return next++ & (KEY_COUNT - 1);
        }
    }

    /** Builds the cluster, keys and value, and configures the partitioner. */
    @Setup(Level.Trial)
    public void setUp() {
        cluster = cluster();
        SplittableRandom random = new SplittableRandom(SEED);
        keys = new byte[KEY_COUNT][];
        for (int i = 0; i < KEY_COUNT; i++) {
            byte[] key = new byte[KEY_SIZE];
            random.nextBytes(key);
            key[0] = (byte) i; // distinct whatever the random bytes
            key[1] = (byte) (i >>> 8);
            keys[i] = key;
        }
        value = new byte[VALUE_SIZE];
        random.nextBytes(value);
        switch (records) {
            case "unkeyed":
                keyed = false;
                break;
            case "keyed":
                keyed = true;
                break;
            default:
                throw new IllegalArgumentException("records must be unkeyed or keyed, was " + records);
        }
        switch (partitioner) {
            case "kscale":
                measured = new UniformStickyBytesPartitioner();
                break;
            case "round-robin":
                measured = new RoundRobinPartitioner();
                break;
            default:
                throw new IllegalArgumentException("partitioner must be kscale or round-robin, was " + partitioner);
        }
        measured.configure(Map.of("batch.size", BATCH_SIZE));
    }

    /** Closes the partitioner. */
    @TearDown(Level.Trial)
    public void tearDown() {
        measured.close();
    }

    /**
     * One thread calling {@code partition()}.
     *
     * @param cursor this thread's key index
     * @return the partition
     */
    @Benchmark
    @Threads(1)
    public int oneThread(KeyCursor cursor) {
        return partition(cursor);
    }

    /**
     * Eight threads calling {@code partition()} on the same partitioner.
     *
     * @param cursor this thread's key index
     * @return the partition
     */
    @Benchmark
    @Threads(8)
    public int eightThreads(KeyCursor cursor) {
        return partition(cursor);
    }

    private int partition(KeyCursor cursor) {
        byte[] key = keyed ? keys[cursor.next()] : null;
        return measured.partition(TOPIC, key, key, value, value, cluster);
    }

    private static Cluster cluster() {
        List<Node> nodes = new ArrayList<>();
        for (int id = 0; id < NODES; id++) {
            nodes.add(new Node(id, "localhost", 9092 + id));
        }
        List<PartitionInfo> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            Node[] replicas = {nodes.get(p % NODES), nodes.get((p + 1) % NODES), nodes.get((p + 2) % NODES)};
            partitions.add(new PartitionInfo(TOPIC, p, replicas[0], replicas, replicas));
        }
        return new Cluster("kscale-bench", nodes, partitions, Set.of(), Set.of());
    }
}
