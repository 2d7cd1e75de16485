package io.kscale.assignor;

import io.kscale.assignor.internals.server.InMemoryTaskCountStore;
import io.kscale.assignor.internals.server.ServerAssignmentBuilder;
import io.kscale.assignor.internals.server.ServerAssignorMetrics;
import io.kscale.assignor.internals.server.ServerAssignorState;
import io.kscale.assignor.internals.server.TaskCountLog;
import io.kscale.assignor.internals.server.TestGroup;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;

/**
 * Why the public {@code KeyPreservingServerAssignor.assign()} may cost more than the internal
 * builder the JMH benchmark calls (a measurement, not a test: it asserts nothing). One topic of a
 * million partitions on 2,000 members, a member joining; three sides, alternating, CPU time of
 * the calling thread per call:
 * <ul>
 *   <li>{@code builder}: {@link ServerAssignmentBuilder} with the targets the builder made (its
 *       own compact sets), as {@code ServerAssignorBenchmark} calls it;</li>
 *   <li>{@code public}: {@link KeyPreservingServerAssignor#assign} (store, shared log and metrics)
 *       on those same targets;</li>
 *   <li>{@code boxed}: the builder on the same targets copied into {@code HashSet<Integer>}s, as a
 *       coordinator (or a harness that copies the assignment) hands them over.</li>
 * </ul>
 * Run: {@code mvn -B -o -q -pl assignor test-compile} and then {@code java -cp
 * assignor/target/test-classes:assignor/target/classes:<the test classpath>
 * io.kscale.assignor.PublicAssignCostHarness}.
 */
public final class PublicAssignCostHarness {

    private static final int WARMUPS = 3;
    private static final int ROUNDS = 7;

    private PublicAssignCostHarness() {
    }

    public static void main(String[] args) {
        int partitions = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int members = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        Uuid topic = new Uuid(3, 3);
        TestGroup group = new TestGroup().topic(topic, partitions);
        for (int m = 0; m < members; m++) {
            group.member(String.format("m%04d", m), topic);
        }
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        GroupAssignment fresh = builder(group.spec(), group.describer(), store);
        for (String member : group.members()) {
            group.target(member, fresh.members().get(member).partitions()); // the builder's own sets
        }
        group.member(String.format("m%04d", members), topic);
        GroupSpec own = group.spec();
        SubscribedTopicDescriber describer = group.describer();
        for (String member : new ArrayList<>(group.members())) {
            Map<Uuid, Set<Integer>> boxed = new HashMap<>();
            group.target(member).forEach((t, ps) -> boxed.put(t, new HashSet<>(ps)));
            group.target(member, boxed);
        }
        GroupSpec boxedSpec = group.spec();
        KeyPreservingServerAssignor assignor = new KeyPreservingServerAssignor((configs, config) -> store, false,
                ServerAssignorState.detached(), System::nanoTime);
        assignor.configure(Map.of());

        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        String[] sides = {"builder", "public", "boxed"};
        long[][] nanos = new long[sides.length][ROUNDS];
        for (int round = 0; round < WARMUPS + ROUNDS; round++) {
            for (int side = 0; side < sides.length; side++) {
                long start = threads.getCurrentThreadCpuTime();
                switch (side) {
                    case 0: builder(own, describer, store); break;
                    case 1: assignor.assign(own, describer); break;
                    default: builder(boxedSpec, describer, store);
                }
                long spent = threads.getCurrentThreadCpuTime() - start;
                if (round >= WARMUPS) {
                    nanos[side][round - WARMUPS] = spent;
                }
            }
        }
        double base = median(nanos[0]);
        for (int side = 0; side < sides.length; side++) {
            System.out.printf(Locale.ROOT, "%-8s median %8.1f ms CPU, %.2fx builder; rounds %s%n", sides[side],
                    median(nanos[side]) / 1e6, median(nanos[side]) / base, millis(nanos[side]));
        }
    }

    private static GroupAssignment builder(GroupSpec spec, SubscribedTopicDescriber describer, InMemoryTaskCountStore store) {
        return new ServerAssignmentBuilder(spec, describer, store, new TaskCountLog(), new ServerAssignorMetrics(() -> 0))
                .build();
    }

    private static double median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static List<Long> millis(long[] nanos) {
        List<Long> ms = new ArrayList<>();
        for (long n : nanos) {
            ms.add(n / 1_000_000);
        }
        return ms;
    }
}
