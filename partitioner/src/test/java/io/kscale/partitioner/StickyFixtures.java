package io.kscale.partitioner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;

/**
 * Shared fixtures and invariant checks of the partitioner tests (example tests, properties and the
 * stress test all assert the same invariants through {@link Ledger} and {@link StintLog}); the
 * properties draw their samples through {@link Seeds}.
 */
final class StickyFixtures {

    static final String TOPIC = "events";
    static final Node[] NODES = {new Node(0, "localhost", 9092), new Node(1, "localhost", 9093), new Node(2, "localhost", 9094)};

    private StickyFixtures() {
    }

    /** A cluster with {@code partitionCount} partitions of {@link #TOPIC}, those listed without a leader. */
    static Cluster cluster(int partitionCount, int... withoutLeader) {
        return cluster(TOPIC, partitionCount, withoutLeader);
    }

    /** A cluster with {@code partitionCount} partitions of {@code topic}, those listed without a leader. */
    static Cluster cluster(String topic, int partitionCount, int... withoutLeader) {
        Set<Integer> down = Arrays.stream(withoutLeader).boxed().collect(Collectors.toSet());
        List<PartitionInfo> partitions = new ArrayList<>();
        for (int p = 0; p < partitionCount; p++) {
            Node leader = down.contains(p) ? null : NODES[p % NODES.length];
            partitions.add(new PartitionInfo(topic, p, leader, NODES, NODES));
        }
        return new Cluster("kscale-test", List.of(NODES), partitions, Set.of(), Set.of());
    }

    /**
     * Runs the garbage collector until every referent of {@code references} is gone. The deadline
     * is a guard against a leak, not a measurement: collection usually takes one or two rounds.
     */
    static void assertCollected(Collection<? extends Reference<?>> references, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (;;) {
            long alive = references.stream().filter(reference -> reference.get() != null).count();
            if (alive == 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                fail("%d of %d %s still reachable after 20 s of System.gc()", alive, references.size(), what);
            }
            System.gc();
            Thread.sleep(20);
        }
    }

    static int[] range(int from, int to) {
        return IntStream.range(from, to).toArray();
    }

    /**
     * A test seed: {@link Seeds#DEFAULT_SEED}, or {@code -Dkscale.seed} to explore other runs
     * ({@code random} for a fresh one); printed with the flag that replays it.
     */
    static long seed(String test) {
        return Seeds.seed(test);
    }

    /** The bound the issue asks for: two stints, {@code 2 (N + R)}. */
    static long twoStints(long stickyBytes, long largestRecord) {
        return 2 * (stickyBytes + largestRecord);
    }

    /** The tighter bound the design proves (strict): {@code N + R} if {@code R <= N}, else {@code N + 2R}. */
    static long provenBound(long stickyBytes, long largestRecord) {
        return largestRecord <= stickyBytes ? stickyBytes + largestRecord : stickyBytes + 2 * largestRecord;
    }

    /** A closed stint as the algorithm accounted it. */
    record Closed(long sequence, int partition, long bytes, long target, long carryBefore, boolean early, int nextPartition) {
    }

    /** Records every switch the algorithm reports; thread-safe. */
    static final class StintLog implements TopicStickiness.SwitchListener {
        private final Queue<Closed> closed = new ConcurrentLinkedQueue<>();

        @Override
        public void onSwitch(Stint stint, Stint next) {
            closed.add(new Closed(stint.sequence, stint.partition, stint.bytes(), stint.target, stint.carryBefore,
                    stint.closedEarly(), next.partition));
        }

        /** The closed stints in the order they happened. */
        List<Closed> inOrder() {
            List<Closed> list = new ArrayList<>(closed);
            list.sort(Comparator.comparingLong(Closed::sequence));
            return list;
        }

        void clear() {
            closed.clear();
        }

        /**
         * Checks each stint that reached its target: it holds at least its target and less than its
         * target plus the largest record, hence more than {@code N - R}; switches are numbered
         * 0, 1, 2, ... without gaps; and, if {@code noRepeat}, the next partition differs.
         */
        List<Closed> assertValid(long stickyBytes, long largestRecord, boolean noRepeat) {
            List<Closed> stints = inOrder();
            // Plain checks rather than one AssertJ chain per stint: the stress test has over a million.
            for (int i = 0; i < stints.size(); i++) {
                Closed stint = stints.get(i);
                if (stint.sequence() != i) {
                    fail("switches are numbered without gaps: expected %d, got %s", i, stint);
                }
                if (stint.early()) {
                    continue;
                }
                if (stint.bytes() < stint.target()) {
                    fail("stint %s ends before its target", stint);
                }
                if (stint.bytes() - stint.target() >= Math.max(1, largestRecord)) {
                    fail("overshoot of %s is a whole record (%d) or more", stint, largestRecord);
                }
                if (stint.bytes() <= stickyBytes - largestRecord) {
                    fail("stint %s is not longer than N - R = %d - %d", stint, stickyBytes, largestRecord);
                }
                if (noRepeat && stint.nextPartition() == stint.partition()) {
                    fail("stint %s is followed by the same partition", stint);
                }
            }
            return stints;
        }
    }

    /** Byte totals per partition as the test saw them (partition returned, bytes sent). */
    static final class Ledger {
        private long[] totals = new long[0];
        private long largestRecord;
        private long sent;

        void add(int partition, long bytes) {
            if (partition >= totals.length) {
                totals = Arrays.copyOf(totals, partition + 1);
            }
            totals[partition] += bytes;
            largestRecord = Math.max(largestRecord, bytes);
            sent += bytes;
        }

        long total(int partition) {
            return partition < totals.length ? totals[partition] : 0;
        }

        long largestRecord() {
            return largestRecord;
        }

        long sent() {
            return sent;
        }

        long[] totals(int partitionCount) {
            return Arrays.copyOf(totals, partitionCount);
        }

        /** Largest minus smallest total over {@code partitions}. */
        long spread(int[] partitions) {
            long max = Long.MIN_VALUE;
            long min = Long.MAX_VALUE;
            for (int p : partitions) {
                max = Math.max(max, total(p));
                min = Math.min(min, total(p));
            }
            return partitions.length == 0 ? 0 : max - min;
        }

        /** Asserts the proven bound (and hence the two-stint bound) over {@code partitions}. */
        void assertUniform(long stickyBytes, int[] partitions, String when) {
            long spread = spread(partitions);
            assertThat(spread).as("spread %s, totals %s", when, Arrays.toString(totals))
                    .isLessThan(provenBound(stickyBytes, largestRecord))
                    .isLessThanOrEqualTo(twoStints(stickyBytes, largestRecord));
        }
    }
}
