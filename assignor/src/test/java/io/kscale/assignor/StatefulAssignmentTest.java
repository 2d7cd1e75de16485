package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.GroupSimulator.Member;
import io.kscale.assignor.GroupSimulator.ScriptedListener;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.layout.MessageFrame;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.wire.AssignmentInfo;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Stateful consumers ({@link TaskStateListener}) through simulated rebalances: a task moves to a
 * new member only once that member reports a lag within the acceptable recovery lag, warmups are
 * announced to the member that should catch up, and the leader asks for a follow-up rebalance
 * while warmups are in flight. Lags are scripted; nothing sleeps.
 */
class StatefulAssignmentTest {

    private static final Map<String, Object> NO_STORE = Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
    private static final String ORDERS = "orders";
    private static final String PAYMENTS = "payments";
    /** T of {@link #ORDERS} in the scale-out scenario: the topic is created with 6 partitions, then doubled. */
    private static final int TASKS = 6;
    private static final long ACCEPTABLE = KeyPreservingAssignorConfig.ACCEPTABLE_RECOVERY_LAG_DEFAULT;
    private static final long PROBING_MS = KeyPreservingAssignorConfig.PROBING_INTERVAL_MS_DEFAULT;

    private static TaskRef orders(int task) {
        return TaskRef.of(List.of(ORDERS), TASKS, task);
    }

    /** The tasks a member owns, by its partitions. */
    private static Set<TaskRef> tasksOf(Member member, int taskCount, String... topics) {
        Set<TaskRef> tasks = new TreeSet<>();
        member.owned.forEach(partition -> tasks.add(TaskRef.of(List.of(topics), taskCount, partition.partition() % taskCount)));
        return tasks;
    }

    /** Every unit whole on one member (or withheld whole): partition p with partition p % T. */
    private static void assertUnitsWhole(GroupSimulator group) {
        Map<TopicPartition, String> owners = group.owners();
        for (int p = 0; p < 2 * TASKS; p++) {
            assertThat(owners.get(new TopicPartition(ORDERS, p))).as("orders-%d with orders-%d", p, p % TASKS)
                    .isEqualTo(owners.get(new TopicPartition(ORDERS, p % TASKS)));
        }
    }

    @ParameterizedTest
    @EnumSource(RebalanceProtocol.class)
    void shouldKeepEveryStatefulUnitOnItsOwnerUntilTheNewMemberHasCaughtUpWhenScalingOneToThree(RebalanceProtocol protocol) {
        GroupSimulator group = new GroupSimulator(protocol, NO_STORE).topic(ORDERS, TASKS);
        ScriptedListener a = new ScriptedListener();
        group.join("a", a, ORDERS);
        group.rebalanceUntilStable();
        group.topic(ORDERS, 2 * TASKS);
        group.rebalanceUntilStable();
        assertThat(group.load()).containsEntry("a", 2 * TASKS);
        assertThat(a.warming).isEmpty();
        for (int t = 0; t < TASKS; t++) {
            a.lags.put(orders(t), 0L); // the application reports its active tasks too: harmless
        }

        ScriptedListener b = new ScriptedListener();
        ScriptedListener c = new ScriptedListener();
        group.join("b", b, ORDERS);
        group.join("c", c, ORDERS);
        Map<TopicPartition, String> before = group.owners();
        assertThat(group.rebalance()).as("nothing is revoked: b and c have no state yet").isFalse();
        assertThat(group.owners()).as("a keeps every unit while b and c warm up").isEqualTo(before);
        Set<TaskRef> warming = new TreeSet<>(b.warming);
        warming.addAll(c.warming);
        assertThat(warming).as("max.warmups = 2 across the group").hasSize(2);
        assertThat(java.util.Collections.disjoint(b.warming, c.warming)).as("one copy per task").isTrue();
        assertThat(group.member("a").followUpDeadline()).as("a warms nothing: no follow-up of its own").isEmpty();
        for (Member member : List.of(group.member("b"), group.member("c"))) {
            OptionalLong expected = member.listener.warming.isEmpty() ? OptionalLong.empty() : OptionalLong.of(group.time.milliseconds() + PROBING_MS);
            assertThat(member.followUpDeadline()).as("deadline of %s (restore rate unknown: the probing interval)", member.id)
                    .isEqualTo(expected);
            assertThat(member.info().warmups()).isEqualTo(member.listener.warming);
        }

        // The warmups report progress, but more than the acceptable lag: still nothing moves.
        for (ScriptedListener listener : List.of(b, c)) {
            listener.warming.forEach(task -> listener.lags.put(task, 2 * ACCEPTABLE));
        }
        group.time.sleep(60_000);
        assertThat(group.rebalance()).isFalse();
        assertThat(group.owners()).isEqualTo(before);
        Set<TaskRef> stillWarming = new TreeSet<>(b.warming);
        stillWarming.addAll(c.warming);
        assertThat(stillWarming).as("the same warmups go on").isEqualTo(warming);

        // One warmup reaches the acceptable lag: it moves at the next rebalance, and only it.
        ScriptedListener mover = b.warming.isEmpty() ? c : b;
        String moverId = mover == b ? "b" : "c";
        TaskRef caughtUp = mover.warming.iterator().next();
        mover.lags.put(caughtUp, ACCEPTABLE);
        boolean revoked = group.rebalance();
        if (protocol == RebalanceProtocol.COOPERATIVE) {
            assertThat(revoked).as("a revokes the caught-up unit, withheld for one rebalance").isTrue();
            assertThat(mover.warming).as("%s keeps the withheld unit warm", moverId).contains(caughtUp);
            // Issue 11: until the new owner holds the unit, a keeps its state warm rather than
            // hearing onDrop: were the mover to fail now, a caught-up copy would still exist.
            assertThat(a.warming).as("a keeps the unit it revokes warm until %s holds it", moverId).contains(caughtUp);
            assertThat(a.dropped()).as("a does not drop the unit %s does not hold yet", moverId).doesNotContain(caughtUp);
            group.rebalanceUntilStable();
            assertThat(a.dropped()).as("a may drop the unit once %s holds it", moverId).contains(caughtUp);
        } else {
            assertThat(revoked).isFalse();
        }
        assertThat(tasksOf(group.member(moverId), TASKS, ORDERS)).containsExactly(caughtUp);
        assertThat(mover.dropped()).as("the new owner never drops what it warmed").doesNotContain(caughtUp);
        assertThat(tasksOf(group.member("a"), TASKS, ORDERS)).hasSize(TASKS - 1);
        assertUnitsWhole(group);

        // Every round the warmups catch up fully; the scale-out completes and the follow-ups stop.
        int rounds = 0;
        while (!b.warming.isEmpty() || !c.warming.isEmpty()) {
            assertThat(++rounds).as("rounds until every move is done").isLessThanOrEqualTo(4);
            for (ScriptedListener listener : List.of(b, c)) {
                listener.warming.forEach(task -> listener.lags.put(task, 0L));
            }
            group.time.sleep(60_000);
            group.rebalanceUntilStable();
            assertUnitsWhole(group);
        }
        assertThat(group.load().values()).containsOnly(4);
        for (String id : List.of("a", "b", "c")) {
            assertThat(group.member(id).followUpDeadline()).as("no follow-up once complete (%s)", id).isEmpty();
            assertThat(group.member(id).info().warmups()).isEmpty();
        }
        Map<TopicPartition, String> settled = group.owners();
        group.rebalance();
        assertThat(group.owners()).as("a rebalance with nothing changed moves nothing").isEqualTo(settled);
    }

    @Test
    void shouldAnnounceEachWarmupOnlyToTheMemberThatShouldCatchUp() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        ScriptedListener a = new ScriptedListener();
        ScriptedListener b = new ScriptedListener();
        group.join("a", a, ORDERS);
        group.rebalanceUntilStable();
        group.join("b", b, ORDERS);
        group.rebalanceUntilStable();

        assertThat(a.warmupCalls).as("a is called after every assignment, with nothing to warm").allMatch(Set::isEmpty);
        assertThat(b.warming).as("2 of a's 4 units should move to b").hasSize(2)
                .allSatisfy(task -> assertThat(task.topics()).containsExactly(ORDERS));
        assertThat(group.load()).containsEntry("a", 4).containsEntry("b", 0);
        assertThat(a.dropCalls).isEmpty();
        assertThat(b.dropCalls).isEmpty();
    }

    @Test
    void shouldTellTheWarmupsOfTheLastAssignmentInTheLeadersMetrics() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        ScriptedListener a = new ScriptedListener();
        ScriptedListener b = new ScriptedListener();
        group.join("a", a, ORDERS);
        group.rebalanceUntilStable();
        group.join("b", b, ORDERS);
        group.rebalance();
        AssignorMetrics leader = group.member("a").assignor.metrics();

        assertThat(leader.value("warmup-tasks")).as("b warms up the 2 units that should move to it").isEqualTo(2.0);
        assertThat(leader.value("pending-moves")).isEqualTo(2.0);
        assertThat(leader.value("follow-up-delay-ms")).as("restore rate unknown: the probing interval")
                .isEqualTo((double) PROBING_MS);

        b.warming.forEach(task -> b.lags.put(task, 0L));
        group.rebalanceUntilStable();

        assertThat(group.load()).containsEntry("a", 2).containsEntry("b", 2);
        assertThat(leader.value("warmup-tasks")).isZero();
        assertThat(leader.value("pending-moves")).isZero();
        assertThat(leader.value("follow-up-delay-ms")).as("balanced: no follow-up").isZero();
    }

    @Test
    void shouldNameCoPartitionedUnitsByAllTheirTopicsAndTakeALagReportedUnderThem() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4).topic(PAYMENTS, 4);
        ScriptedListener a = new ScriptedListener();
        ScriptedListener b = new ScriptedListener();
        group.join("a", a, ORDERS, PAYMENTS);
        group.rebalanceUntilStable();
        group.join("b", b, ORDERS, PAYMENTS);
        group.rebalanceUntilStable();
        assertThat(b.warming).hasSize(2).allSatisfy(task -> assertThat(task.topics()).containsExactly(ORDERS, PAYMENTS));

        TaskRef first = b.warming.iterator().next();
        b.lags.put(first, 0L);
        group.rebalanceUntilStable();

        assertThat(tasksOf(group.member("b"), 4, ORDERS, PAYMENTS)).containsExactly(first);
        assertThat(group.member("b").owned).hasSize(2).allMatch(first::contains);
    }

    @ParameterizedTest
    @EnumSource(RebalanceProtocol.class)
    void shouldMoveUnitsToAMemberWithoutAListenerAtOnceWithoutWarmups(RebalanceProtocol protocol) {
        GroupSimulator group = new GroupSimulator(protocol, NO_STORE).topic(ORDERS, 4);
        ScriptedListener a = new ScriptedListener();
        group.join("a", a, ORDERS);
        group.rebalanceUntilStable();
        group.join("b", ORDERS);
        group.rebalanceUntilStable();

        assertThat(group.load().values()).containsOnly(2);
        assertThat(a.warming).isEmpty();
        assertThat(group.member("a").followUpDeadline()).isEmpty();
        assertThat(group.member("b").followUpDeadline()).isEmpty();
        assertThat(group.member("b").info().taskGroups()).as("nothing to name for a stateless member").isEmpty();
    }

    @Test
    void shouldTreatAMemberOnTheOldVersionAsStateless() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        ScriptedListener a = new ScriptedListener();
        group.join("a", a, ORDERS);
        group.rebalanceUntilStable();
        group.join("old", ORDERS).legacy = true;
        group.rebalanceUntilStable();

        assertThat(group.load().values()).as("the old member's version 0 report is accepted").containsOnly(2);
        assertThat(group.member("old").assignor.metrics().value("malformed-user-data-total")).isEqualTo(0.0);
        assertThat(group.member("a").assignor.metrics().value("malformed-user-data-total")).isEqualTo(0.0);
        assertThat(a.warming).isEmpty();
    }

    @Test
    void shouldPlaceAsBeforeWhenNoMemberHasAListener() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 12);
        group.join("a", ORDERS);
        group.rebalanceUntilStable();
        group.join("b", ORDERS);
        group.join("c", ORDERS);
        assertThat(group.rebalanceUntilStable()).as("a revokes, then b and c get theirs").isEqualTo(2);
        assertThat(group.load().values()).containsOnly(4);
        for (String id : List.of("a", "b", "c")) {
            AssignmentInfo info = group.member(id).info();
            assertThat(info.followUpDeadline()).isEmpty();
            assertThat(info.taskGroups()).isEmpty();
            assertThat(info.warmups()).isEmpty();
        }
    }

    @Test
    void shouldGiveAMemberThatReportsCaughtUpStateItsTaskWithoutAWarmup() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        ScriptedListener a = new ScriptedListener();
        group.join("a", a, ORDERS);
        group.rebalanceUntilStable();
        // b restarts with state of two tasks on disk, one of them caught up.
        ScriptedListener b = new ScriptedListener();
        b.lags.put(TaskRef.of(List.of(ORDERS), 4, 3), 100L);
        b.lags.put(TaskRef.of(List.of(ORDERS), 4, 2), 5 * ACCEPTABLE);
        group.join("b", b, ORDERS);
        group.rebalanceUntilStable();

        assertThat(tasksOf(group.member("b"), 4, ORDERS)).containsExactly(TaskRef.of(List.of(ORDERS), 4, 3));
        assertThat(b.warming).as("the other move waits for a warmup; b's state of 4:2 ranks first")
                .contains(TaskRef.of(List.of(ORDERS), 4, 2));
    }

    @Test
    void shouldKeepTheListenersFaultsAwayFromTheGroup() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        ScriptedListener failing = new ScriptedListener() {
            @Override
            public Map<TaskRef, Long> lags() {
                throw new IllegalStateException("store closed");
            }

            @Override
            public void onWarmup(Set<TaskRef> tasks) {
                throw new IllegalStateException("store closed");
            }
        };
        failing.lags.put(TaskRef.of(List.of("gone"), 4, 1), 3L);
        group.join("a", failing, ORDERS);
        group.join("b", ORDERS);
        group.rebalanceUntilStable();
        assertThat(group.load().values()).containsOnly(2);
    }

    @Test
    void shouldNameTasksFromTheSubscriptionWhenTheLeaderSendsAVersion0Assignment() {
        ScriptedListener listener = new ScriptedListener();
        KeyPreservingAssignor assignor = new KeyPreservingAssignor();
        Map<String, Object> settings = new HashMap<>(NO_STORE);
        settings.put("group.id", "old-leader");
        settings.put("client.id", "old-leader-member");
        settings.put(KeyPreservingAssignorConfig.TASK_STATE_LISTENER_CONFIG, listener);
        assignor.configure(settings);
        assignor.subscriptionUserData(Set.of(ORDERS, PAYMENTS));
        GroupLayout layout = GroupLayout.of(1, List.of(TopicLayout.of(ORDERS, 4, 8), TopicLayout.of(PAYMENTS, 4, 4)));
        Assignment fromOldLeader = new Assignment(List.of(new TopicPartition(ORDERS, 1), new TopicPartition(ORDERS, 5),
                new TopicPartition(PAYMENTS, 1)), AssignmentInfo.encode(LayoutCodec.encode(layout), layout,
                OptionalLong.empty(), List.of(), List.of(), MessageFrame.VERSION_0));
        assignor.onAssignment(fromOldLeader, new ConsumerGroupMetadata("old-leader", 3, "m", java.util.Optional.empty()));
        assertThat(listener.warming).isEmpty();
        assertThat(assignor.knownLayout()).isEqualTo(layout);

        // Next assignment: the task is gone; it is dropped under the name it had.
        assignor.onAssignment(new Assignment(List.of(), AssignmentInfo.encode(layout)),
                new ConsumerGroupMetadata("old-leader", 4, "m", java.util.Optional.empty()));
        assertThat(listener.dropped()).containsExactly(TaskRef.of(List.of(ORDERS, PAYMENTS), 4, 1));
    }

    @Test
    void shouldTellOnlyWhatIsNoLongerHeldToDrop() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.EAGER, NO_STORE).topic(ORDERS, 4);
        ScriptedListener a = new ScriptedListener();
        a.lags.put(TaskRef.of(List.of(ORDERS), 4, 0), 0L);
        a.lags.put(TaskRef.of(List.of(ORDERS), 8, 7), 0L); // state of a task of an old layout (T was 8)
        group.join("a", a, ORDERS);
        group.rebalanceUntilStable();
        assertThat(a.dropped()).as("the old task is not needed").containsExactly(TaskRef.of(List.of(ORDERS), 8, 7));
        a.lags.remove(TaskRef.of(List.of(ORDERS), 8, 7));
        a.dropCalls.clear();
        ScriptedListener b = new ScriptedListener();
        group.join("b", b, ORDERS);
        for (int t = 0; t < 4; t++) {
            b.lags.put(TaskRef.of(List.of(ORDERS), 4, t), 0L); // b has every task's state (a standby of its own)
        }
        group.rebalanceUntilStable();
        Set<TaskRef> bTasks = tasksOf(group.member("b"), 4, ORDERS);
        assertThat(bTasks).hasSize(2);
        assertThat(a.dropped()).isEqualTo(bTasks);
        Set<TaskRef> notB = new HashSet<>();
        for (int t = 0; t < 4; t++) {
            notB.add(TaskRef.of(List.of(ORDERS), 4, t));
        }
        notB.removeAll(bTasks);
        assertThat(b.dropped()).as("b reported state of a's tasks too: it may drop them").isEqualTo(notB);
    }
}
