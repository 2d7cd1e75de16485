package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.GroupSimulator.ScriptedListener;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Test;

/**
 * A stateful member asks for its follow-up as soon as one of its warmups has caught up, instead of
 * waiting for the leader's deadline (up to the probing interval), and does so without a rebalance
 * storm: lags read at most once a second, one request per assignment, none while rebalancing, at
 * least the minimum follow-up delay between two requests. The group is simulated (real assignor
 * instances, scripted lags); time is passed explicitly.
 */
class EarlyFollowUpTest {

    private static final String ORDERS = "orders";
    private static final long ACCEPTABLE = 1_000;
    private static final long PROBING_MS = 120_000;
    private static final long MIN_INTERVAL_MS = 10_000;
    private static final Map<String, Object> SETTINGS = Map.of(
            KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false,
            KeyPreservingAssignorConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE,
            KeyPreservingAssignorConfig.PROBING_INTERVAL_MS_CONFIG, PROBING_MS);

    /** A listener that counts how often its lags are asked for, and fails when told to. */
    private static final class CountingListener extends ScriptedListener {
        int lagCalls;
        boolean failing;

        @Override
        public Map<TaskRef, Long> lags() {
            lagCalls++;
            if (failing) {
                throw new IllegalStateException("store closed");
            }
            return super.lags();
        }
    }

    /** The consumer of one simulated member: what the poll loop hands to the helper. */
    private static final class MemberConsumer extends MockConsumer<String, String> {
        final ConsumerGroupMetadata group;
        final List<String> reasons = new ArrayList<>();

        MemberConsumer(String memberId) {
            super("earliest");
            group = new ConsumerGroupMetadata(GroupSimulator.GROUP, 1, memberId, Optional.empty());
        }

        @Override
        public ConsumerGroupMetadata groupMetadata() {
            return group;
        }

        @Override
        public void enforceRebalance(String reason) {
            reasons.add(reason);
        }
    }

    private final GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, SETTINGS).topic(ORDERS, 4);
    private final CountingListener newcomer = new CountingListener();
    private final MemberConsumer consumer = new MemberConsumer("b");

    /** Member a runs the 4 tasks with their state; b joins without state and warms up 2 of them. */
    private void scaleOut() {
        ScriptedListener owner = new ScriptedListener();
        group.join("a", owner, ORDERS);
        group.rebalanceUntilStable();
        for (int t = 0; t < 4; t++) {
            owner.lags.put(TaskRef.of(List.of(ORDERS), 4, t), 0L);
        }
        group.join("b", newcomer, ORDERS);
        assertThat(group.rebalance()).as("nothing moves yet").isFalse();
        assertThat(newcomer.warming).as("max.warmups = 2").hasSize(2);
        assertThat(group.member("b").followUpDeadline()).as("the leader's deadline").hasValue(group.time.milliseconds() + PROBING_MS);
        newcomer.warming.forEach(task -> newcomer.lags.put(task, 50 * ACCEPTABLE));
    }

    @Test
    void shouldRebalanceAsSoonAsOneWarmupHasCaughtUpRatherThanAtTheDeadline() {
        scaleOut();
        long now = group.time.milliseconds();
        TaskRef first = newcomer.warming.iterator().next();
        int callsBefore = newcomer.lagCalls;

        assertThat(FollowUpRebalance.triggerIfDue(consumer, now)).as("both warmups far behind").isFalse();
        newcomer.lags.put(first, ACCEPTABLE);
        assertThat(FollowUpRebalance.triggerIfDue(consumer, now + 999)).as("lags read once a second at most").isFalse();
        assertThat(newcomer.lagCalls - callsBefore).isEqualTo(1);
        assertThat(FollowUpRebalance.triggerIfDue(consumer, now + 1_000)).as("one warmup caught up").isTrue();
        assertThat(consumer.reasons).containsExactly(FollowUpRebalance.EARLY_REASON);
        assertThat(FollowUpRebalance.triggerIfDue(consumer, now + PROBING_MS)).as("the deadline is spent too").isFalse();
        assertThat(consumer.reasons).hasSize(1);

        // The rebalance it asked for moves the caught-up task (after a's revocation) and only it.
        group.rebalanceUntilStable();
        assertThat(new HashSet<>(group.member("b").owned)).extracting(p -> p.partition() % 4).containsOnly(first.task());
        assertThat(newcomer.warming).doesNotContain(first).isNotEmpty();
    }

    @Test
    void shouldAskAtMostOncePerMinimumInterval() {
        scaleOut();
        long now = group.time.milliseconds();
        newcomer.warming.forEach(task -> newcomer.lags.put(task, 0L));
        TreeSet<TaskRef> warmups = new TreeSet<>(newcomer.warming);
        assertThat(FollowUpRebalance.triggerIfDue(consumer, now)).isTrue();

        // The leader moves both tasks, withheld one round while a revokes them (COOPERATIVE): b's
        // new assignment lists them as warmups again, caught up. Without the rate limit b would
        // ask at once, on top of the rejoin a's revocation causes anyway.
        assertThat(group.rebalance()).as("a revokes").isTrue();
        assertThat(newcomer.warming).as("the withheld tasks, still warm here").isEqualTo(warmups);
        assertThat(FollowUpRebalance.triggerIfDue(consumer, now + 1_000)).as("within the minimum interval").isFalse();
        assertThat(FollowUpRebalance.triggerIfDue(consumer, now + MIN_INTERVAL_MS - 1)).isFalse();
        assertThat(FollowUpRebalance.triggerIfDue(consumer, now + MIN_INTERVAL_MS)).isTrue();
        assertThat(FollowUpRebalance.triggerIfDue(consumer, now + 3 * MIN_INTERVAL_MS)).as("once per assignment").isFalse();
        assertThat(consumer.reasons).containsExactly(FollowUpRebalance.EARLY_REASON, FollowUpRebalance.EARLY_REASON);
    }

    @Test
    void shouldNotAskWhileTheMemberIsInARebalance() {
        scaleOut();
        newcomer.warming.forEach(task -> newcomer.lags.put(task, 0L));

        // Another member started a rebalance: b has sent its subscription, the assignment is pending.
        group.member("b").assignor.subscriptionUserData(new HashSet<>(List.of(ORDERS)));
        assertThat(FollowUpRebalance.triggerIfDue(consumer, group.time.milliseconds())).as("rebalancing").isFalse();
        group.rebalance();
        assertThat(FollowUpRebalance.triggerIfDue(consumer, group.time.milliseconds() + 1_000)).as("assigned again").isTrue();
    }

    @Test
    void shouldNotAskWithoutWarmupsOfItsOwn() {
        scaleOut();
        MemberConsumer owner = new MemberConsumer("a");
        assertThat(FollowUpRebalance.triggerIfDue(owner, group.time.milliseconds() + 1_000)).as("a runs its tasks, lag 0").isFalse();
        group.join("c", ORDERS);
        group.rebalance();
        MemberConsumer stateless = new MemberConsumer("c");
        assertThat(FollowUpRebalance.triggerIfDue(stateless, group.time.milliseconds() + 1_000)).as("stateless").isFalse();
        assertThat(owner.reasons).isEmpty();
        assertThat(stateless.reasons).isEmpty();
    }

    @Test
    void shouldWaitForTheDeadlineWhenTheListenerFails() {
        scaleOut();
        newcomer.warming.forEach(task -> newcomer.lags.put(task, 0L));
        newcomer.failing = true;
        assertThat(FollowUpRebalance.triggerIfDue(consumer, group.time.milliseconds())).as("no lags, no early request").isFalse();
        newcomer.failing = false;
        assertThat(FollowUpRebalance.triggerIfDue(consumer, group.time.milliseconds() + 1_000)).as("lags again").isTrue();
    }
}
