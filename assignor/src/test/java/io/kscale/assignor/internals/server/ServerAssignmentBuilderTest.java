package io.kscale.assignor.internals.server;

import static io.kscale.assignor.internals.server.ServerChecks.assertComplete;
import static io.kscale.assignor.internals.server.ServerChecks.loads;
import static io.kscale.assignor.internals.server.ServerChecks.moved;
import static io.kscale.assignor.internals.server.ServerChecks.owners;
import static io.kscale.assignor.internals.server.ServerChecks.taskOwners;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.junit.jupiter.api.Test;

class ServerAssignmentBuilderTest {

    static final Uuid ORDERS = new Uuid(1, 1);
    static final Uuid PAYMENTS = new Uuid(2, 2);
    static final Uuid AUDIT = new Uuid(3, 3);

    private final ServerAssignorMetrics metrics = new ServerAssignorMetrics(() -> 0);

    private GroupAssignment assign(TestGroup group, TaskCountStore store) {
        return new ServerAssignmentBuilder(group.spec(), group.describer(), store, new TaskCountLog(), metrics).build();
    }

    @Test
    void shouldKeepEveryTaskOnItsMemberAcross4To8To16WithMembersComingAndGoing() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 4).member("m0", ORDERS).member("m1", ORDERS).member("m2", ORDERS);
        GroupAssignment first = assign(group, store);
        assertComplete(group, first, Set.of(ORDERS));
        assertThat(store.taskCountOf(ORDERS)).isEqualTo(4);
        Map<Integer, String> tasks = taskOwners(group, first, ORDERS, 4);
        group.apply(first);

        group.topic(ORDERS, 8);
        GroupAssignment doubled = assign(group, store);
        assertComplete(group, doubled, Set.of(ORDERS));
        assertThat(taskOwners(group, doubled, ORDERS, 4)).isEqualTo(tasks);
        assertThat(moved(group, doubled)).isZero();
        group.apply(doubled);

        group.member("m3", ORDERS);
        GroupAssignment joined = assign(group, store);
        assertComplete(group, joined, Set.of(ORDERS));
        Map<Integer, String> afterJoin = taskOwners(group, joined, ORDERS, 4);
        assertThat(afterJoin.values()).containsExactlyInAnyOrder("m0", "m1", "m2", "m3");
        // one task (two partitions) moves to the newcomer, from the member that had two tasks
        assertThat(moved(group, joined)).isEqualTo(2);
        group.apply(joined);

        group.leave("m1");
        GroupAssignment left = assign(group, store);
        Map<Integer, String> afterLeave = taskOwners(group, left, ORDERS, 4);
        assertThat(moved(group, left)).isZero();
        afterJoin.forEach((task, member) -> {
            if (!member.equals("m1")) {
                assertThat(afterLeave.get(task)).as("task %d", task).isEqualTo(member);
            }
        });
        group.apply(left);

        group.topic(ORDERS, 16);
        GroupAssignment quadrupled = assign(group, store);
        assertComplete(group, quadrupled, Set.of(ORDERS));
        assertThat(taskOwners(group, quadrupled, ORDERS, 4)).isEqualTo(afterLeave);
        assertThat(moved(group, quadrupled)).isZero();
        assertThat(store.taskCountOf(ORDERS)).isEqualTo(4);
    }

    @Test
    void shouldGiveEachMemberOfAFreshGroupARunOfTopicsNotAPartitionOfEach() {
        // 10 topics of 5 to 15 partitions, no two of one count (none co-partitioned: 100 units of
        // one partition), 20 members: 5 units each. Dealt one by one, every member would read 5
        // topics; as runs of 5 consecutive units over topics of 5 or more, none spans more than 2.
        List<Uuid> topics = new ArrayList<>();
        TestGroup group = new TestGroup();
        for (int t = 0; t < 10; t++) {
            Uuid topic = new Uuid(10, t);
            topics.add(topic);
            group.topic(topic, t % 2 == 0 ? 11 + t / 2 : 9 - t / 2);
        }
        for (int m = 0; m < 20; m++) {
            group.member(String.format("m%02d", m), topics);
        }
        GroupAssignment fresh = assign(group, new InMemoryTaskCountStore());

        assertComplete(group, fresh, Set.copyOf(topics));
        assertThat(loads(group, fresh).values()).containsOnly(5);
        fresh.members().forEach((member, assigned) ->
                assertThat(assigned.partitions()).as("the topics of %s", member).hasSizeLessThanOrEqualTo(2));
    }

    @Test
    void shouldReadSubscriptionsTopicByTopicWhenAHomogeneousGroupsSizesDiffer() {
        // The coordinator's word that every member reads the same topics spares comparing them
        // topic by topic, but only for sets of the same size: m1 reads more than m0, so m0 must
        // get nothing of PAYMENTS even though the spec says the subscriptions are homogeneous.
        TestGroup group = new TestGroup().topic(ORDERS, 4).topic(PAYMENTS, 4)
                .member("m0", ORDERS).member("m1", ORDERS, PAYMENTS);
        GroupSpec claimed = new HomogeneousClaim(group.spec());
        GroupAssignment assignment = new ServerAssignmentBuilder(claimed, group.describer(), new InMemoryTaskCountStore(),
                new TaskCountLog(), metrics).build();

        assertThat(assignment.members().get("m0").partitions()).doesNotContainKey(PAYMENTS);
        assertThat(assignment.members().get("m1").partitions().get(PAYMENTS)).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(metrics.assignmentFallbacksTotal()).isZero();
    }

    /** A spec that says every member reads the same topics, whatever they read. */
    private static final class HomogeneousClaim extends ForwardingGroupSpec {
        HomogeneousClaim(GroupSpec spec) {
            super(spec);
        }

        @Override
        public SubscriptionType subscriptionType() {
            return SubscriptionType.HOMOGENEOUS;
        }
    }

    @Test
    void shouldHoldATopicWhoseTaskCountIsNotYetKnown() {
        InMemoryTaskCountStore loaded = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 4).member("m0", ORDERS).member("m1", ORDERS);
        group.apply(assign(group, loaded));
        Map<String, Map<Uuid, Set<Integer>>> before = new HashMap<>();
        group.members().forEach(m -> before.put(m, group.target(m)));

        // The broker restarted: a store that has not loaded yet, the topic expanded, a member joined.
        InMemoryTaskCountStore loading = new InMemoryTaskCountStore(false);
        group.topic(ORDERS, 8).member("m2", ORDERS);
        GroupAssignment held = assign(group, loading);
        for (String member : before.keySet()) {
            assertThat(held.members().get(member).partitions()).as(member).isEqualTo(before.get(member));
        }
        assertThat(held.members().get("m2").partitions()).isEmpty();
        assertThat(owners(group, held).get(ORDERS)).doesNotContainKeys(4, 5, 6, 7);
        assertThat(loading.proposals()).isZero();
        assertThat(loading.taskCountOf(ORDERS)).isNull();

        // A member leaves while held: its partitions stay unassigned, nobody else takes them.
        group.apply(held).leave("m0");
        GroupAssignment stillHeld = assign(group, loading);
        assertThat(owners(group, stillHeld).get(ORDERS)).containsOnlyKeys(before.get("m1").get(ORDERS).toArray(Integer[]::new));

        // The store loads (T = 4 was stored before the restart): assignment resumes with T = 4.
        loading.stored(ORDERS, 4).loaded(true);
        group.apply(stillHeld);
        GroupAssignment resumed = assign(group, loading);
        assertComplete(group, resumed, Set.of(ORDERS));
        taskOwners(group, resumed, ORDERS, 4);
        assertThat(loading.proposals()).isZero();
    }

    @Test
    void shouldNeverDeriveTaskCountOfAHeldTopicFromItsPartitionCount() {
        InMemoryTaskCountStore loading = new InMemoryTaskCountStore(false);
        TestGroup group = new TestGroup().topic(ORDERS, 8).member("m0", ORDERS);
        GroupAssignment held = assign(group, loading);
        assertThat(held.members().get("m0").partitions()).isEmpty();
        assertThat(loading.taskCountOf(ORDERS)).isNull();
        loading.loaded(true);
        group.apply(held);
        assertComplete(group, assign(group, loading), Set.of(ORDERS));
        assertThat(loading.taskCountOf(ORDERS)).isEqualTo(8);
    }

    @Test
    void shouldUseTheTaskCountAnotherGroupRecordedFirst() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore().stored(ORDERS, 2);
        TestGroup group = new TestGroup().topic(ORDERS, 8).member("m0", ORDERS).member("m1", ORDERS).member("m2", ORDERS);
        GroupAssignment assignment = assign(group, store);
        Map<Integer, String> tasks = taskOwners(group, assignment, ORDERS, 2);
        assertThat(tasks).hasSize(2);
        assertThat(loads(group, assignment).values()).containsExactlyInAnyOrder(4, 4, 0);
    }

    @Test
    void shouldPutTaskTOfTopicsWithTheSameTaskCountAndSubscribersOnOneMember() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 4).topic(PAYMENTS, 4).topic(AUDIT, 4)
                .member("m0", ORDERS, PAYMENTS, AUDIT).member("m1", ORDERS, PAYMENTS, AUDIT).member("m2", ORDERS, PAYMENTS);
        GroupAssignment assignment = assign(group, store);
        assertComplete(group, assignment, Set.of(ORDERS, PAYMENTS, AUDIT));
        assertThat(taskOwners(group, assignment, ORDERS, 4)).isEqualTo(taskOwners(group, assignment, PAYMENTS, 4));
    }

    @Test
    void shouldMoveNothingWhenNothingChanged() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 12).topic(PAYMENTS, 5)
                .member("m0", ORDERS, PAYMENTS).member("m1", ORDERS).member("m2", ORDERS, PAYMENTS);
        group.apply(assign(group, store));
        GroupAssignment again = assign(group, store);
        assertThat(moved(group, again)).isZero();
        assertComplete(group, again, Set.of(ORDERS, PAYMENTS));
    }

    @Test
    void shouldPreferMembersWhoseRackHostsAReplicaWithoutGivingUpBalance() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 12).replicasOn(ORDERS, "r0", "r1", "r2")
                .member("a", ORDERS).rack("a", "r2").member("b", ORDERS).rack("b", "r0").member("c", ORDERS).rack("c", "r1");
        GroupAssignment assignment = assign(group, store);
        assertThat(loads(group, assignment).values()).containsOnly(4);
        Map<String, String> rackOf = Map.of("a", "r2", "b", "r0", "c", "r1");
        owners(group, assignment).get(ORDERS).forEach((p, member) ->
                assertThat(rackOf.get(member)).as("partition %d", p).isEqualTo("r" + (p % 3)));
    }

    /**
     * In racks too, a fresh member reads few topics: its units are a run of the units its rack
     * takes, not one partition of each topic dealt out member by member, and as many partitions
     * end rack-local as dealing them one by one reaches.
     */
    @Test
    void shouldGiveEachMemberOfAFreshGroupInRacksARunOfItsRacksUnits() {
        // 10 topics of 25 to 34 partitions (none co-partitioned: 295 units of one partition), each
        // partition p on rack p % 3; 30 members, 10 per rack: 9 or 10 units each. Dealt one by one,
        // every member reads about 10 topics; as runs of about 10 over its rack's third of every
        // topic, none spans more than 3.
        List<Uuid> topics = new ArrayList<>();
        TestGroup group = new TestGroup();
        for (int t = 0; t < 10; t++) {
            Uuid topic = new Uuid(11, t);
            topics.add(topic);
            group.topic(topic, 25 + t).replicasOn(topic, "r0", "r1", "r2");
        }
        Map<String, String> rackOf = new HashMap<>();
        for (int m = 0; m < 30; m++) {
            String id = String.format("m%02d", m);
            group.member(id, topics).rack(id, "r" + m % 3);
            rackOf.put(id, "r" + m % 3);
        }
        GroupAssignment fresh = assign(group, new InMemoryTaskCountStore());

        assertComplete(group, fresh, Set.copyOf(topics));
        assertThat(loads(group, fresh).values()).allSatisfy(load -> assertThat(load).isBetween(9, 10));
        int local = 0;
        for (Map.Entry<Uuid, Map<Integer, String>> topic : owners(group, fresh).entrySet()) {
            for (Map.Entry<Integer, String> owner : topic.getValue().entrySet()) {
                local += rackOf.get(owner.getValue()).equals("r" + owner.getKey() % 3) ? 1 : 0;
            }
        }
        // Racks r0, r1, r2 host 102, 98 and 95 partitions; 25 members take 10, 5 take 9. Dealt one
        // by one, 289 end rack-local (the most any placement with these loads reaches is 293: r0's
        // members all take 10, and 2 of its partitions go elsewhere).
        assertThat(local).as("rack-local partitions").isGreaterThanOrEqualTo(289);
        fresh.members().forEach((member, assigned) ->
                assertThat(assigned.partitions()).as("the topics of %s", member).hasSizeLessThanOrEqualTo(3));
    }

    @Test
    void shouldSkipTopicsTheDescriberDoesNotKnow() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 3).member("m0", ORDERS, AUDIT);
        GroupAssignment assignment = assign(group, store);
        assertThat(assignment.members().get("m0").partitions()).containsOnlyKeys(ORDERS);
        assertThat(store.taskCountOf(AUDIT)).isNull();
    }

    /**
     * A member whose target is exactly the units it keeps gets that target back; one whose
     * target holds part of a unit, or a unit another member claims too, must not: its result is
     * built anew. Pins the whole-unit judgement that lets large groups skip rebuilding targets.
     */
    @Test
    void shouldGiveWholeUnitsToMembersWhoseTargetsHeldPartsOrDuplicates() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore().stored(ORDERS, 4);
        TestGroup group = new TestGroup().topic(ORDERS, 8)
                .member("m0", ORDERS).member("m1", ORDERS).member("m2", ORDERS)
                .target("m0", Map.of(ORDERS, Set.of(0, 4)))         // unit 0 whole
                .target("m1", Map.of(ORDERS, Set.of(1, 2, 6)))      // unit 1 half, unit 2 whole
                .target("m2", Map.of(ORDERS, Set.of(2, 6, 3, 7)));  // unit 2 again (m1 has it first), unit 3

        GroupAssignment assignment = assign(group, store);

        assertComplete(group, assignment, Set.of(ORDERS));
        assertThat(assignment.members().get("m0").partitions()).isEqualTo(Map.of(ORDERS, Set.of(0, 4)));
        assertThat(assignment.members().get("m1").partitions()).isEqualTo(Map.of(ORDERS, Set.of(1, 2, 5, 6)));
        assertThat(assignment.members().get("m2").partitions()).isEqualTo(Map.of(ORDERS, Set.of(3, 7)));
    }
    /**
     * KIP-848's coordinator reconciles each partition on its own: a partition nobody owns goes to
     * its target owner at once, one another member owns only once that member revoked it. So a
     * unit that grows and moves in one assignment is read by two members for a while: the new
     * member gets the new partitions at once while the old one still holds the old ones. Here m3
     * joins in the epoch in which the topic grows from 4 to 8 partitions; evening would give m3
     * one of m0's two grown tasks. Every grown task must stay where its old partition is.
     */
    @Test
    void shouldKeepEveryGrownTaskWithItsOwnerWhenAMemberJoinsAsTheTopicGrows() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 4).member("m0", ORDERS).member("m1", ORDERS).member("m2", ORDERS);
        group.apply(assign(group, store));
        Map<Integer, String> before = taskOwners(group, assign(group, store), ORDERS, 4);
        assertThat(loads(group, assign(group, store)).values()).containsExactlyInAnyOrder(2, 1, 1);

        group.topic(ORDERS, 8).member("m3", ORDERS);
        GroupAssignment grown = assign(group, store);

        assertComplete(group, grown, Set.of(ORDERS));
        assertThat(taskOwners(group, grown, ORDERS, 4)).isEqualTo(before);
        assertThat(moved(group, grown)).isZero();

        // The next change may balance: the grown tasks are whole on their owners now.
        group.apply(grown).member("m4", ORDERS);
        GroupAssignment later = assign(group, store);
        assertThat(loads(group, later).values()).containsExactlyInAnyOrder(2, 2, 2, 2, 0);
    }

    /** The same with mixed subscriptions (the narrower, not the evening), and a member leaving in the same epoch. */
    @Test
    void shouldKeepEveryGrownTaskWithItsOwnerWhenMembersComeAndGoAsTopicsGrowWithMixedSubscriptions() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 6).topic(PAYMENTS, 3)
                .member("m0", ORDERS, PAYMENTS).member("m1", ORDERS).member("m2", ORDERS, PAYMENTS).member("m3", PAYMENTS);
        group.apply(assign(group, store));
        GroupAssignment start = assign(group, store);
        Map<Integer, String> ordersBefore = taskOwners(group, start, ORDERS, 6);
        Map<Integer, String> paymentsBefore = taskOwners(group, start, PAYMENTS, 3);

        group.topic(ORDERS, 12).topic(PAYMENTS, 6).leave("m3").member("m4", ORDERS, PAYMENTS).member("m5", ORDERS);
        GroupAssignment grown = assign(group, store);

        assertComplete(group, grown, Set.of(ORDERS, PAYMENTS));
        Map<Integer, String> ordersAfter = taskOwners(group, grown, ORDERS, 6);
        Map<Integer, String> paymentsAfter = taskOwners(group, grown, PAYMENTS, 3);
        ordersBefore.forEach((task, member) -> assertThat(ordersAfter.get(task)).as("orders task %d", task).isEqualTo(member));
        paymentsBefore.forEach((task, member) -> {
            if (!member.equals("m3")) {
                assertThat(paymentsAfter.get(task)).as("payments task %d", task).isEqualTo(member);
            }
        });
    }
}
