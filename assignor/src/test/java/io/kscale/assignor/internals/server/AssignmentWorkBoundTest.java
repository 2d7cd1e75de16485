package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.Property;
import io.kscale.assignor.Seeds;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

/**
 * The placement's work stays within {@code c x (units + members + member-class pairs) x
 * log2(members)} steps ({@link AssignmentWork}) and does not lean on the budget that enforces that
 * bound: each case asserts the work done and that no loop was cut short.
 *
 * <p>Why {@code c} = {@value #ONE_CLASS_FACTOR} where every member reads the same topics: placing
 * a unit costs at most a peek, a removal and an add on the member heap (and with racks the same on
 * its rack's heap), each of log2(members) steps at most, or a few steps where units of one weight
 * are placed level by level, racks or not; keeping it costs nothing; an evening move costs
 * about 4 sorted-set updates per class of its two members. So a placement that touches each unit
 * a few times stays below 16, while the quadratic steps pinned here (every equally loaded member
 * popped for each unit with racks: 40 million heap operations for 20,000 units on 2,000 members;
 * the evening looking again at members that cannot give on every move) exceed it by a factor of
 * the members. Mixed subscriptions add the narrower's searches, each visiting up to every
 * member-class pair (evening the free units, two searches shift as many paths of a level as share
 * no member; narrowing the spread, one per path): they are held to the budget's own factor,
 * {@value AssignmentWork#BUDGET_FACTOR} (the largest seen on the seeded rounds here was 38).
 *
 * <p>The pairs term: reading who may take what is part of every assignment, and with many
 * one-partition topics read by different subsets of members there are more member-class pairs
 * than units and members.
 */
class AssignmentWorkBoundTest {

    private static final int TRIES = 60;
    /** Work per (unit + member + pair) per doubling of members with one class (see the class comment). */
    private static final long ONE_CLASS_FACTOR = 16;

    @Property
    Stream<DynamicTest> shouldStayWithinTheBoundOnSeededGroupsThroughJoinsLeavesAndGrowth() {
        return Seeds.tries(TRIES, AssignmentWorkBoundTest::playRandomGroup);
    }

    /**
     * Racks everywhere, no replica on any member's rack: each unit looks for a rack-local member
     * among the least loaded, finds none and takes the lowest index. That must cost a few heap
     * operations per unit, not one per equally loaded member.
     */
    @Test
    void shouldPlaceWithRacksButNoLocalReplicaInLogarithmicStepsPerUnit() {
        Uuid topic = new Uuid(5, 5);
        TestGroup group = new TestGroup().topic(topic, 20_000).replicasOn(topic, "elsewhere");
        for (int m = 0; m < 2_000; m++) {
            String id = String.format("m%04d", m);
            group.member(id, topic).rack(id, "r" + m % 3);
        }
        assertWithinBound(group, new InMemoryTaskCountStore(), "racks, none local", ONE_CLASS_FACTOR);
    }

    /** Racks where some replicas are local: the rack-local member among the least loaded still wins. */
    @Test
    void shouldPlaceWithRacksAndSomeLocalReplicasInLogarithmicStepsPerUnit() {
        Uuid topic = new Uuid(5, 6);
        TestGroup group = new TestGroup().topic(topic, 20_000).replicasOn(topic, "r0", "elsewhere", "r1");
        for (int m = 0; m < 2_000; m++) {
            String id = String.format("m%04d", m);
            group.member(id, topic).rack(id, "r" + m % 5);
        }
        assertWithinBound(group, new InMemoryTaskCountStore(), "racks, some local", ONE_CLASS_FACTOR);
    }

    /**
     * Half the members hold many partitions of a held topic (its T not known yet) and none of the
     * placed one: they are the most loaded but cannot give. Meanwhile every unit sits on a quarter
     * of the members, so the evening moves thousands of units: it must not look at the members
     * that cannot give again for every move.
     */
    @Test
    void shouldEvenWithoutRescanningMembersThatCannotGive() {
        Uuid placed = new Uuid(6, 1);
        Uuid held = new Uuid(6, 2);
        int members = 2_000;
        TestGroup group = new TestGroup().topic(placed, 20_000).topic(held, members / 2 * 50);
        for (int m = 0; m < members; m++) {
            group.member(String.format("m%04d", m), placed, held);
        }
        for (int m = 0; m < members / 2; m++) {
            Set<Integer> mine = new HashSet<>();
            for (int p = m * 50; p < (m + 1) * 50; p++) {
                mine.add(p);
            }
            group.target(String.format("m%04d", m), java.util.Map.of(held, mine));
        }
        for (int m = members / 2; m < members * 3 / 4; m++) {
            Set<Integer> mine = new HashSet<>();
            for (int p = m - members / 2; p < 20_000; p += members / 4) {
                mine.add(p);
            }
            group.target(String.format("m%04d", m), java.util.Map.of(placed, mine));
        }
        HoldingStore store = new HoldingStore(Set.of(held));
        store.stored(placed, 20_000);
        assertWithinBound(group, store, "held topic loads, lopsided targets", ONE_CLASS_FACTOR);
    }

    /**
     * A fresh group whose members each read a seeded quarter of the topics: placing class by class
     * leaves dozens of members a unit above the rest, and the free units are evened from all of
     * them at once, a few searches in all, not a search through most of the group for each.
     */
    @Test
    void shouldEvenAFreshGroupOfMixedSubscriptionsInAFewSearches() {
        assertFewSearches(quarters(400, 40, 40), new InMemoryTaskCountStore(), "fresh", 8); // was 42
    }

    /**
     * A member joins a group whose members each read a seeded quarter of the topics, all its units
     * kept: it takes its share one unit from each member at the top, level after level, a direct
     * move from each member that holds a unit of a topic it reads; only the others search for a
     * longer path (27 searches here; 245 when every member at the top searched).
     */
    @Test
    void shouldGiveAJoiningMemberOfMixedSubscriptionsItsShareInAFewSearches() {
        TestGroup group = quarters(40, 40, 250);
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        group.apply(new ServerAssignmentBuilder(group.spec(), group.describer(), store, new TaskCountLog(),
                new ServerAssignorMetrics(() -> 0)).build());
        group.member("m9999", group.subscription("m0001"));
        assertFewSearches(group, store, "a member joins", 40);
    }

    /** Each member reads a seeded quarter of the topics, and topic t at least member t % members. */
    private static TestGroup quarters(int members, int topicCount, int partitions) {
        TestGroup group = new TestGroup();
        List<Uuid> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) {
            topics.add(new Uuid(9, t));
            group.topic(topics.get(t), partitions);
        }
        SplittableRandom random = new SplittableRandom(20261206L);
        for (int m = 0; m < members; m++) {
            List<Uuid> read = new ArrayList<>();
            for (int t = 0; t < topicCount; t++) {
                if (random.nextInt(4) == 0 || t % members == m) {
                    read.add(topics.get(t));
                }
            }
            group.member(String.format("m%04d", m), read);
        }
        return group;
    }

    private static void assertFewSearches(TestGroup group, TaskCountStore store, String shape, int searches) {
        ServerAssignmentBuilder builder = new ServerAssignmentBuilder(group.spec(), group.describer(), store,
                new TaskCountLog(), new ServerAssignorMetrics(() -> 0));
        GroupAssignment assignment = builder.build();
        ServerChecks.owners(group, assignment);
        IntSummaryStatistics loads = ServerChecks.loads(group, assignment).values().stream()
                .mapToInt(Integer::intValue).summaryStatistics();
        assertThat(loads.getMax() - loads.getMin()).as("%s: spread", shape).isLessThanOrEqualTo(1);
        assertThat(builder.work().searches).as("%s: %s", shape, builder.work()).isLessThanOrEqualTo(searches);
    }

    /** Chains: member i reads topics i and i + 1, so balance travels along the chain; a member joins at one end. */
    @Test
    void shouldStayWithinTheBoundOnAChainOfSubscriptions() {
        List<Uuid> topics = new ArrayList<>();
        TestGroup group = new TestGroup();
        int members = 300;
        for (int t = 0; t <= members; t++) {
            topics.add(new Uuid(7, t));
            group.topic(topics.get(t), 1 + t % 7 * 13);
        }
        for (int m = 0; m < members; m++) {
            group.member(String.format("m%04d", m), topics.get(m), topics.get(m + 1));
        }
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        group.apply(assertWithinBound(group, store, "chain, fresh"));
        group.member("m9999", topics.get(0));
        group.apply(assertWithinBound(group, store, "chain, a member joins at one end"));
        group.leave("m0150");
        assertWithinBound(group, store, "chain, a member leaves in the middle");
    }

    /** Nested: member i reads topics 0..i, so the classes are nested and the first topic is read by all. */
    @Test
    void shouldStayWithinTheBoundOnNestedSubscriptions() {
        List<Uuid> topics = new ArrayList<>();
        TestGroup group = new TestGroup();
        int members = 200;
        for (int t = 0; t < members; t++) {
            topics.add(new Uuid(8, t));
            group.topic(topics.get(t), 3 + t % 11 * 17);
        }
        for (int m = 0; m < members; m++) {
            group.member(String.format("m%04d", m), topics.subList(0, m + 1));
        }
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        group.apply(assertWithinBound(group, store, "nested, fresh"));
        group.member("m9999", topics.subList(0, members / 2));
        group.apply(assertWithinBound(group, store, "nested, a member joins"));
        group.leave("m0199");
        assertWithinBound(group, store, "nested, the member reading every topic leaves");
    }

    private static void playRandomGroup(SplittableRandom random) {
        int topicCount = Seeds.intBetween(random, 1, 8);
        int members = Seeds.intBetween(random, 1, 300);
        boolean mixed = random.nextBoolean();
        boolean racks = random.nextInt(3) == 0;
        TestGroup group = new TestGroup();
        List<Uuid> topics = new ArrayList<>();
        for (int t = 0; t < topicCount; t++) {
            Uuid id = new Uuid(random.nextLong(), t + 1);
            topics.add(id);
            group.topic(id, Seeds.intBetween(random, 1, 2_000));
            if (racks) {
                group.replicasOn(id, "r" + random.nextInt(4), "r" + random.nextInt(4));
            }
        }
        int next = 0;
        for (; next < members; next++) {
            join(group, random, next, topics, mixed, racks);
        }
        Seeds.sample("%d topics, %d members, mixed %s, racks %s", topicCount, members, mixed, racks);
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        for (int round = 0; round < 4; round++) {
            group.apply(assertWithinBound(group, store, "round " + round));
            switch (random.nextInt(3)) {
                case 0:
                    join(group, random, next++, topics, mixed, racks);
                    break;
                case 1:
                    if (group.members().size() > 1) {
                        List<String> ids = new ArrayList<>(group.members());
                        group.leave(ids.get(random.nextInt(ids.size())));
                    }
                    break;
                default:
                    Uuid grown = topics.get(random.nextInt(topics.size()));
                    group.topic(grown, group.partitions(grown) * 2);
            }
        }
    }

    private static void join(TestGroup group, SplittableRandom random, int index, List<Uuid> topics, boolean mixed,
                             boolean racks) {
        String id = String.format("m%04d", index);
        List<Uuid> subscribed = new ArrayList<>();
        while (subscribed.isEmpty()) {
            topics.stream().filter(t -> !mixed || random.nextBoolean()).forEach(subscribed::add);
        }
        group.member(id, subscribed);
        if (racks) {
            group.rack(id, "r" + random.nextInt(4));
        }
    }

    private static GroupAssignment assertWithinBound(TestGroup group, TaskCountStore store, String shape) {
        return assertWithinBound(group, store, shape, AssignmentWork.BUDGET_FACTOR);
    }

    private static GroupAssignment assertWithinBound(TestGroup group, TaskCountStore store, String shape, long factor) {
        ServerAssignmentBuilder builder = new ServerAssignmentBuilder(group.spec(), group.describer(), store,
                new TaskCountLog(), new ServerAssignorMetrics(() -> 0));
        GroupAssignment assignment = builder.build();
        ServerChecks.owners(group, assignment);
        AssignmentWork work = builder.work();
        assertThat(work).as("%s: placement ran", shape).isNotNull();
        assertThat(work.exhausted).as("%s: a loop was cut short by the budget: %s", shape, work).isFalse();
        long bound = work.bound(factor);
        assertThat(work.total()).as("%s: %s, bound with c = %d: %d", shape, work, factor, bound).isLessThanOrEqualTo(bound);
        return assignment;
    }

    /** Knows every topic's T except those held, whose T it does not know yet. */
    private static final class HoldingStore implements TaskCountStore {
        private final Set<Uuid> held;
        private final InMemoryTaskCountStore stored = new InMemoryTaskCountStore();

        HoldingStore(Set<Uuid> held) {
            this.held = held;
        }

        void stored(Uuid topic, int taskCount) {
            stored.stored(topic, taskCount);
        }

        @Override
        public TaskCount lookup(Uuid topicId) {
            return held.contains(topicId) ? TaskCount.notYetKnown() : stored.lookup(topicId);
        }

        @Override
        public int propose(Uuid topicId, int proposed, int partitionCount) {
            return stored.propose(topicId, proposed, partitionCount);
        }

        @Override
        public void close() {
        }
    }
}
