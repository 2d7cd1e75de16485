package io.kscale.assignor.internals.server;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

/**
 * Where one broker-side assignment spends its time, step by step (a measurement, not a test: it
 * asserts nothing). 100 topics of different partition counts (10,000 partitions, one unit each),
 * read by 2,000 members, each with a subscription set of its own and a target of boxed
 * {@code HashSet<Integer>}s, in the coordinator's own {@code GroupSpecImpl}; one member leaves
 * (or, with {@code -Djoin=true}, one joins; with {@code -Dgrow=true}, the first topic doubles its
 * partition count instead, an expansion). Prints the mean
 * wall time and allocation of each step over 2,000 calls after 1,000 warm-ups, of Kafka's
 * {@code uniform} on the same input, and of a pass that only iterates the targets (the floor of
 * reading them).
 *
 * <p>Run: {@code mvn -B -q -pl assignor test-compile dependency:build-classpath
 * -Dmdep.outputFile=/tmp/cp.txt} and then {@code java -cp
 * assignor/target/test-classes:assignor/target/classes:$(cat /tmp/cp.txt)
 * io.kscale.assignor.internals.server.AssignStepTimes}. Other sizes with {@code -Dtopics=}
 * (of about as many partitions each), {@code -Dmembers=}, {@code -Dwarmups=} and {@code -Dcalls=}:
 * a million partitions with {@code -Dtopics=1000 -Dwarmups=20 -Dcalls=20 -Xmx8g}.
 */
public final class AssignStepTimes {

    private static final int TOPICS = Integer.getInteger("topics", 100);
    private static final int MEMBERS = Integer.getInteger("members", 2_000);
    private static final int WARMUPS = Integer.getInteger("warmups", 1_000);
    private static final int CALLS = Integer.getInteger("calls", 2_000);
    private static final boolean JOIN = Boolean.getBoolean("join");
    private static final boolean GROW = Boolean.getBoolean("grow");

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private AssignStepTimes() {
    }

    public static void main(String[] args) {
        TestGroup group = new TestGroup();
        List<Uuid> topics = new ArrayList<>();
        for (int t = 0; t < TOPICS; t++) {
            Uuid id = new Uuid(1, t);
            topics.add(id);
            int k = t / 2;
            group.topic(id, t % 2 == 0 ? TOPICS + k + 1 : TOPICS - k - 1); // as distinct-topics in the JMH
        }
        for (int m = 0; m < MEMBERS; m++) {
            group.member(String.format("m%04d", m), topics); // a set of its own per member
        }
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        GroupAssignment fresh = build(group.spec(), group.describer(), store);
        for (String member : new ArrayList<>(group.members())) {
            Map<Uuid, Set<Integer>> boxed = new HashMap<>();
            fresh.members().get(member).partitions().forEach((t, ps) -> boxed.put(t, new HashSet<>(ps)));
            group.target(member, Collections.unmodifiableMap(boxed));
        }
        if (GROW) {
            group.topic(topics.get(0), 2 * group.partitions(topics.get(0))); // its T stays in the store
        } else if (JOIN) {
            group.member(String.format("m%04d", MEMBERS), topics);
        } else {
            group.leave(String.format("m%04d", MEMBERS / 2));
        }
        GroupSpec spec = asTheCoordinatorHandsItOver(group.spec());
        SubscribedTopicDescriber describer = group.describer();

        String[] steps = {"members", "topics", "units", "racks", "targets by size", "prior owners", "placement",
            "whole build()", "uniform assign()", "iterate targets"};
        UniformAssignor uniform = new UniformAssignor();
        long[] nanos = new long[steps.length];
        long[] allocated = new long[steps.length];
        long sink = 0;
        for (int call = 0; call < WARMUPS + CALLS; call++) {
            long[] at = new long[steps.length + 1];
            long[] bytes = new long[steps.length + 1];
            mark(at, bytes, 0);
            GroupMembers members = new GroupMembers(spec);
            mark(at, bytes, 1);
            SubscribedTopics subscribed = SubscribedTopics.resolve(members, describer, store, new TaskCountLog());
            mark(at, bytes, 2);
            TaskUnits units = TaskUnits.of(subscribed);
            mark(at, bytes, 3);
            RackLocality racks = new RackLocality(members, subscribed, units, describer);
            mark(at, bytes, 4);
            TrustedTargets bySize = TrustedTargets.of(members, subscribed, units, spec::isPartitionAssigned);
            mark(at, bytes, 5);
            PriorOwners prior = bySize != null ? PriorOwners.onDemand(members, subscribed, units, bySize)
                    : PriorOwners.of(members, subscribed, units);
            mark(at, bytes, 6);
            int[] owner = UnitPlacer.place(units, new long[members.count()], prior, racks,
                    AssignmentWork.forGroup(units, members.count()));
            mark(at, bytes, 7);
            sink += build(spec, describer, store).members().size() + owner.length;
            mark(at, bytes, 8);
            sink += uniform.assign(spec, describer).members().size();
            mark(at, bytes, 9);
            for (int m = 0; m < members.count(); m++) {
                for (Map.Entry<Uuid, Set<Integer>> target : members.currentTarget(m).entrySet()) {
                    sink += subscribed.indexOf(target.getKey());
                    for (Integer p : target.getValue()) {
                        sink += p;
                    }
                }
            }
            mark(at, bytes, 10);
            if (call >= WARMUPS) {
                for (int s = 0; s < steps.length; s++) {
                    nanos[s] += at[s + 1] - at[s];
                    allocated[s] += bytes[s + 1] - bytes[s];
                }
            }
        }
        for (int s = 0; s < steps.length; s++) {
            System.out.printf(Locale.ROOT, "%-16s %8.3f ms %9.3f MB%n", steps[s], nanos[s] / (double) CALLS / 1e6,
                    allocated[s] / (double) CALLS / 1e6);
        }
        System.out.println(sink == 42 ? "" : "(done)");
    }

    /**
     * @return the same group in the coordinator's own spec: a {@link MemberSubscriptionAndAssignmentImpl}
     *         per member in a hash map, and the targets inverted by topic (the test spec looks
     *         members up in a sorted map, which would add its own cost to the members step)
     */
    private static GroupSpec asTheCoordinatorHandsItOver(GroupSpec spec) {
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        Map<Uuid, Map<Integer, String>> owners = new HashMap<>();
        for (String id : spec.memberIds()) {
            MemberSubscription subscription = spec.memberSubscription(id);
            Map<Uuid, Set<Integer>> target = spec.memberAssignment(id).partitions();
            members.put(id, new MemberSubscriptionAndAssignmentImpl(subscription.rackId(), subscription.instanceId(),
                    subscription.subscribedTopicIds(), new Assignment(target)));
            target.forEach((topic, ps) -> ps.forEach(p -> owners.computeIfAbsent(topic, t -> new HashMap<>()).put(p, id)));
        }
        return new GroupSpecImpl(members, spec.subscriptionType(), owners);
    }

    /** Notes the time and the bytes this thread has allocated at step boundary {@code i}. */
    private static void mark(long[] at, long[] bytes, int i) {
        bytes[i] = THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
        at[i] = System.nanoTime();
    }

    private static GroupAssignment build(GroupSpec spec, SubscribedTopicDescriber describer, TaskCountStore store) {
        return new ServerAssignmentBuilder(spec, describer, store, new TaskCountLog(), new ServerAssignorMetrics(() -> 0))
                .build();
    }
}
