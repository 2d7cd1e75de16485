package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.member.MemberLayouts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.junit.jupiter.api.Test;

/** The member's side of the follow-up: one {@code enforceRebalance} per deadline, once it has passed. */
class FollowUpRebalanceTest {

    private static final AtomicInteger GROUPS = new AtomicInteger();
    private static final long DEADLINE = 1_700_000_600_000L;

    /** A consumer of its own group that records the reasons it was asked to rebalance for. */
    private static final class RecordingConsumer extends MockConsumer<String, String> {
        final ConsumerGroupMetadata group = new ConsumerGroupMetadata("follow-up-" + GROUPS.incrementAndGet(), 3,
                "member-1", Optional.empty());
        final List<String> reasons = new ArrayList<>();
        boolean noGroup;
        /** Where this consumer's assignor would publish; held as long as the consumer. */
        final MemberLayouts.Slot published = MemberLayouts.newSlot();

        RecordingConsumer() {
            super("earliest");
        }

        @Override
        public ConsumerGroupMetadata groupMetadata() {
            if (noGroup) {
                throw new InvalidGroupIdException("no group.id");
            }
            return group;
        }

        @Override
        public void enforceRebalance(String reason) {
            reasons.add(reason);
            super.enforceRebalance(reason);
        }

        void assignedWithDeadline(OptionalLong deadline) {
            published.publish(group.groupId(), group.memberId(), GroupLayout.empty(), deadline, Optional.empty());
        }
    }

    @Test
    void shouldRebalanceOnceWhenTheDeadlineHasPassed() {
        RecordingConsumer consumer = new RecordingConsumer();
        consumer.assignedWithDeadline(OptionalLong.of(DEADLINE));

        assertThat(FollowUpRebalance.triggerIfDue(consumer, DEADLINE - 1)).isFalse();
        assertThat(consumer.reasons).isEmpty();
        assertThat(FollowUpRebalance.triggerIfDue(consumer, DEADLINE)).isTrue();
        assertThat(FollowUpRebalance.triggerIfDue(consumer, DEADLINE + 10_000)).as("once per deadline").isFalse();
        assertThat(consumer.reasons).containsExactly(FollowUpRebalance.REASON);
        assertThat(consumer.shouldRebalance()).isTrue();

        consumer.assignedWithDeadline(OptionalLong.of(DEADLINE + 60_000));
        assertThat(FollowUpRebalance.triggerIfDue(consumer, DEADLINE + 60_000)).as("a new assignment's deadline").isTrue();
        assertThat(consumer.reasons).hasSize(2);
    }

    /**
     * Issue 17 (finding 6): past 1,024 members in the JVM the registry evicted the oldest entry,
     * and a live member's follow-up never fired: its warmups never took their tasks over.
     */
    @Test
    void shouldFireTheFollowUpOfAMemberAfterMoreThanAThousandOthersWereAssigned() {
        RecordingConsumer consumer = new RecordingConsumer();
        consumer.assignedWithDeadline(OptionalLong.of(DEADLINE));
        List<KeyPreservingAssignor> others = LiveMembers.assigned(consumer.group.groupId(), LiveMembers.MANY);

        assertThat(FollowUpRebalance.triggerIfDue(consumer, DEADLINE)).as("the deadline has passed").isTrue();
        assertThat(consumer.reasons).containsExactly(FollowUpRebalance.REASON);
        assertThat(others).hasSize(LiveMembers.MANY); // alive to the end
    }

    @Test
    void shouldDoNothingWithoutADeadlineOrAGroup() {
        RecordingConsumer consumer = new RecordingConsumer();
        assertThat(FollowUpRebalance.triggerIfDue(consumer)).as("never assigned").isFalse();
        consumer.assignedWithDeadline(OptionalLong.empty());
        assertThat(FollowUpRebalance.triggerIfDue(consumer)).as("no follow-up wanted").isFalse();
        consumer.assignedWithDeadline(OptionalLong.of(DEADLINE));
        consumer.noGroup = true;
        assertThat(FollowUpRebalance.triggerIfDue(consumer, DEADLINE)).isFalse();
        assertThat(consumer.reasons).isEmpty();
    }

    @Test
    void shouldBeTriggeredByTheBarriersPoll() {
        RecordingConsumer consumer = new RecordingConsumer();
        consumer.subscribe(List.of("orders"));
        consumer.rebalance(List.of(new TopicPartition("orders", 0)));
        consumer.updateBeginningOffsets(java.util.Map.of(new TopicPartition("orders", 0), 0L));
        consumer.assignedWithDeadline(OptionalLong.of(DEADLINE));
        MockTime time = new MockTime(DEADLINE - 1);
        ExpansionBarrier<String, String> barrier = new ExpansionBarrier<>(consumer,
                new ExpansionBarrierConfig(java.util.Map.of(ExpansionBarrierConfig.GRACE_MS_CONFIG, 0L)), time);

        barrier.poll(Duration.ZERO);
        assertThat(consumer.reasons).isEmpty();
        time.set(DEADLINE);
        barrier.poll(Duration.ZERO);
        barrier.poll(Duration.ZERO);
        assertThat(consumer.reasons).containsExactly(FollowUpRebalance.REASON);
        barrier.close();
    }

    @Test
    void shouldCarryTheDeadlineFromTheAssignmentToTheHelper() {
        GroupSimulator group = new GroupSimulator(org.apache.kafka.clients.consumer.ConsumerPartitionAssignor
                .RebalanceProtocol.COOPERATIVE, java.util.Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false))
                .topic("orders", 2);
        group.join("a", new GroupSimulator.ScriptedListener(), "orders");
        group.rebalanceUntilStable();
        group.join("b", new GroupSimulator.ScriptedListener(), "orders");
        group.rebalance();
        long deadline = group.member("b").followUpDeadline().orElseThrow();

        assertThat(MemberLayouts.followUpDeadline(GroupSimulator.GROUP, "b")).hasValue(deadline);
        assertThat(MemberLayouts.claimFollowUp(GroupSimulator.GROUP, "b", deadline)).isTrue();
        assertThat(MemberLayouts.followUpDeadline(GroupSimulator.GROUP, "b")).as("claimed").isEmpty();
    }
}
