package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.junit.jupiter.api.Test;

/**
 * Memory per {@code assign()} is O(units + members + distinct subscriptions x members / 8), measured
 * as the bytes the calling thread allocates ({@code com.sun.management.ThreadMXBean}), whatever the
 * coordinator's subscription objects look like: it gives every member its own set, so 50,000
 * members reading the same topic hand over 50,000 equal sets.
 *
 * <p>The bound's constant, {@value #BYTES_PER_ELEMENT} bytes per unit, member and member/8 of each
 * distinct subscription: what one call keeps per member is a few references and ints in the
 * member arrays, the sorted id list, the member's result (a map entry, a {@code MemberPartitions}
 * and its map) and, here, the spec's own small objects handed over on each lookup; a few hundred
 * bytes (17.6 MB in all here when this was written, about 350 bytes a member). A members-sized bit
 * set per member (the bug this pins: 50,000 x 50,000 / 8 bytes; 333 MB in all) is far over it.
 */
class ServerAssignmentMemoryTest {

    private static final long BYTES_PER_ELEMENT = 1_024;
    private static final int MEMBERS = 50_000;
    private static final int PARTITIONS = 100;
    /** The member changes' group: one topic of this many partitions, on {@link #LARGE_MEMBERS} members. */
    private static final int LARGE_PARTITIONS = 200_000;
    private static final int LARGE_MEMBERS = 2_000;

    @Test
    void shouldAllocateBySubscriptionContentNotByEachMembersOwnEqualSet() {
        Uuid topic = new Uuid(9, 9);
        TestGroup group = new TestGroup().topic(topic, PARTITIONS);
        for (int m = 0; m < MEMBERS; m++) {
            group.member(String.format("m%05d", m), List.of(topic)); // Set.copyOf: a set of its own
        }
        GroupSpec spec = group.spec();
        SubscribedTopicDescriber describer = group.describer();
        assertThat(spec.memberSubscription("m00000").subscribedTopicIds())
                .isNotSameAs(spec.memberSubscription("m00001").subscribedTopicIds());
        build(spec, describer); // class loading and the store's first answers, outside the count

        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        GroupAssignment assignment = build(spec, describer);
        long allocated = threads.getThreadAllocatedBytes(thread) - before;

        assertThat(ServerChecks.loads(group, assignment).values().stream().mapToInt(Integer::intValue).sum())
                .isEqualTo(PARTITIONS);
        long distinctSubscriptions = 1;
        long bound = BYTES_PER_ELEMENT * (PARTITIONS + MEMBERS + distinctSubscriptions * MEMBERS / 8);
        assertThat(allocated).as("bytes allocated by one assign() of %,d members with equal subscriptions, bound %,d",
                MEMBERS, bound).isLessThanOrEqualTo(bound);
    }

    /**
     * On a member change of a large group, the targets are taken by size and only the members
     * that gain a unit are read ({@link TrustedTargets}), so what a call allocates per unit is its
     * few unit-sized arrays: the units' weights and task groups, their prior owners and owners,
     * and three flags (about 23 bytes), plus the gainers' new assignments. Reading a target for its
     * prior owners once also filled four more unit-sized arrays (20 bytes a unit), needed only
     * where every target is read and counted; the assembly sorted every unit, not only the placed
     * ones, and each unit's class had an array of its own: 28 bytes a unit more in all. 200,000
     * partitions of one topic on 2,000 members, one leaves.
     * The bound, 52 bytes a unit, includes about 16 of the test spec's own: it boxes each partition
     * number it is asked about, as the coordinator's index of the targets does. The call allocated
     * 42 bytes a unit when this was written, 70 before.
     */
    @Test
    void shouldAllocateAFewArraysPerUnitOnAMemberChange() {
        Uuid topic = new Uuid(9, 10);
        TestGroup group = oneTopic(topic, LARGE_PARTITIONS, LARGE_MEMBERS);
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        targetsFrom(build(group.spec(), group.describer(), store), group);
        group.leave("m1000");
        Measured call = measure(group.spec(), group.describer(), store);

        assertThat(ServerChecks.loads(group, call.assignment).values().stream().mapToInt(Integer::intValue).sum())
                .isEqualTo(LARGE_PARTITIONS);
        assertThat(call.allocated / (double) LARGE_PARTITIONS).as("bytes allocated per unit by a member change, %,d in all", call.allocated)
                .isLessThanOrEqualTo(52);
    }

    /**
     * While the store has not loaded, every topic is held and members keep their targets: reading
     * what they keep costs about the targets' size. Each member's kept partitions were collected
     * in a bit set of their own, which reaches the member's highest partition (members x
     * partitions / 8 bytes for a topic spread over them), and or-ed into the topic's: 326 bytes a
     * partition here, 365 MB a call at a million partitions on 2,000 members. 12 when this was
     * written, <= 24 asserted.
     */
    @Test
    void shouldAllocateAboutTheTargetsWhileEveryTopicIsHeld() {
        Uuid topic = new Uuid(9, 11);
        TestGroup group = oneTopic(topic, LARGE_PARTITIONS, LARGE_MEMBERS);
        GroupAssignment fresh = build(group.spec(), group.describer());
        targetsFrom(fresh, group);
        group.leave("m1000");
        Measured call = measure(group.spec(), group.describer(), new NeverLoadedTaskCountStore());

        long leaversShare = fresh.members().get("m1000").partitions().get(topic).size();
        assertThat(ServerChecks.loads(group, call.assignment).values().stream().mapToInt(Integer::intValue).sum())
                .as("partitions kept: every target's but the leaver's")
                .isEqualTo(LARGE_PARTITIONS - leaversShare);
        assertThat(call.allocated / (double) LARGE_PARTITIONS).as("bytes allocated per partition, every topic held, %,d in all",
                call.allocated)
                .isLessThanOrEqualTo(24);
    }

    /** One build, and the bytes this thread allocated in it. */
    private static final class Measured {
        final GroupAssignment assignment;
        final long allocated;

        Measured(GroupAssignment assignment, long allocated) {
            this.assignment = assignment;
            this.allocated = allocated;
        }
    }

    /** @return the second of two builds (the first warms, outside the count), and what it allocated */
    private static Measured measure(GroupSpec spec, SubscribedTopicDescriber describer, TaskCountStore store) {
        build(spec, describer, store);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        GroupAssignment assignment = build(spec, describer, store);
        return new Measured(assignment, threads.getThreadAllocatedBytes(thread) - before);
    }

    /** @return a group of {@code members} members ("m0000", ...) reading one topic of {@code partitions} */
    private static TestGroup oneTopic(Uuid topic, int partitions, int members) {
        TestGroup group = new TestGroup().topic(topic, partitions);
        for (int m = 0; m < members; m++) {
            group.member(String.format("m%04d", m), List.of(topic));
        }
        return group;
    }

    /** Makes each member's part of {@code assignment} its target, as the coordinator hands targets over: boxed sets. */
    private static void targetsFrom(GroupAssignment assignment, TestGroup group) {
        for (String member : new ArrayList<>(group.members())) {
            Map<Uuid, Set<Integer>> boxed = new HashMap<>();
            assignment.members().get(member).partitions().forEach((t, ps) -> boxed.put(t, new HashSet<>(ps)));
            group.target(member, Collections.unmodifiableMap(boxed));
        }
    }

    private static GroupAssignment build(GroupSpec spec, SubscribedTopicDescriber describer) {
        return build(spec, describer, new InMemoryTaskCountStore());
    }

    private static GroupAssignment build(GroupSpec spec, SubscribedTopicDescriber describer, TaskCountStore store) {
        return new ServerAssignmentBuilder(spec, describer, store, new TaskCountLog(), new ServerAssignorMetrics(() -> 0))
                .build();
    }
}
