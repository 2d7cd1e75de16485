package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.assignor.layout.GroupLayout;
import io.kscale.assignor.layout.TopicLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ExpansionBarrier} against a {@link MockConsumer} that reads from in-memory partition
 * logs ({@link LogConsumer}), so that a partition is fetched from its position as a broker
 * would, and the tests can count how often each record was fetched and with which timeout the
 * consumer was polled. Time is injected; nothing sleeps. Every poll goes through {@link #poll()},
 * which checks that the consumer's position moved exactly past the records returned and no
 * further (it is the offset of the next record not returned), and that {@code nextOffsets()}
 * agrees.
 */
class ExpansionBarrierTest {

    private static final String ORDERS = "orders";
    private static final String PLAIN = "plain";
    private static final int TASKS = 4;
    private static final Duration GRACE = Duration.ofMillis(1000);
    /** The timeout the tests poll the barrier with; the mock never blocks. */
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    private static final long START = 100;
    /** The randomised test runs seeds BASE_SEED .. BASE_SEED + RUNS - 1. */
    private static final long BASE_SEED = 20_240_611L;
    private static final int RUNS = 200;
    /** The constant in the randomised test's bound on polls once every record is readable. */
    private static final int DRAIN_POLLS = 20;
    private static final AtomicInteger GROUPS = new AtomicInteger();

    private long now = START;
    private LogConsumer consumer;
    private ExpansionBarrier<String, String> barrier;

    private static TopicPartition orders(int partition) {
        return new TopicPartition(ORDERS, partition);
    }

    private static GroupLayout layout(int taskCount, int partitionCount) {
        return GroupLayout.of(1, List.of(TopicLayout.of(ORDERS, taskCount, partitionCount)));
    }

    /** A fresh consumer with its own group id, so that no other test's published layout applies. */
    private void start(GroupLayout layout, TopicPartition... assigned) {
        consumer = new LogConsumer("barrier-test-" + GROUPS.incrementAndGet(), () -> now);
        consumer.subscribe(List.of(ORDERS, PLAIN));
        consumer.assignAndStart(List.of(assigned));
        if (layout != null) {
            ConsumerGroupMetadata group = consumer.groupMetadata();
            MemberLayouts.publish(group.groupId(), group.memberId(), layout);
        }
        barrier = new ExpansionBarrier<>(consumer, GRACE, () -> now);
    }

    /** Polls through the barrier and checks the position rule; returns the values in iteration order. */
    private List<String> poll() {
        return values(pollRecords());
    }

    private ConsumerRecords<String, String> pollRecords() {
        Map<TopicPartition, Long> before = positions();
        ConsumerRecords<String, String> records = barrier.poll(POLL_TIMEOUT);
        for (TopicPartition tp : consumer.assignment()) {
            List<ConsumerRecord<String, String>> returned = records.records(tp);
            long expected = returned.isEmpty()
                    ? before.getOrDefault(tp, 0L)
                    : returned.get(returned.size() - 1).offset() + 1;
            assertThat(consumer.position(tp)).as("position of %s after a poll", tp).isEqualTo(expected);
            if (!returned.isEmpty()) {
                assertThat(records.nextOffsets().get(tp)).as("next offset of %s", tp).isEqualTo(new OffsetAndMetadata(expected));
            }
        }
        return records;
    }

    private Map<TopicPartition, Long> positions() {
        Map<TopicPartition, Long> positions = new HashMap<>();
        for (TopicPartition tp : consumer.assignment()) {
            positions.put(tp, consumer.position(tp));
        }
        return positions;
    }

    private static List<String> values(ConsumerRecords<String, String> records) {
        List<String> values = new ArrayList<>();
        records.forEach(record -> values.add(record.value()));
        return values;
    }

    // ---- the class comment's worked example, and holding back ----

    @Test
    void shouldReturnTheParentsEarlierRecordsBeforeTheChildsWhenTheChildIsFetchedFirst() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(1), 105, "k", "k#2");
        consumer.append(orders(1), 108, "x", "x");
        consumer.append(orders(5), 110, "k", "k#3");
        consumer.append(orders(5), 120, "k", "k#4");

        consumer.fetchOnly(orders(5));
        assertThat(poll()).as("poll 1: the child is fetched first and held").isEmpty();
        assertThat(consumer.paused()).containsExactly(orders(5));
        assertThat(poll()).as("poll 2: the parent's records are all earlier than the held 110").containsExactly("k#1", "k#2", "x");
        consumer.append(orders(1), 130, "y", "y");
        assertThat(poll()).as("poll 3: y@130 is later than the child's buffered 110 and 120").containsExactly("k#3", "k#4");
        assertThat(consumer.paused()).as("the child's buffer is drained, the parent holds y").containsExactly(orders(1));
        assertThat(consumer.position(orders(5))).isEqualTo(2);
        assertThat(poll()).as("the child is caught up but grace has not passed").isEmpty();
        now = 130 + GRACE.toMillis();
        assertThat(poll()).as("poll 4").containsExactly("y");
        assertThat(consumer.lastTimeout).as("y could go before the poll").isEqualTo(Duration.ZERO);

        assertThat(consumer.paused()).isEmpty();
        assertThat(consumer.position(orders(1))).isEqualTo(4);
        assertThat(barrier.deliveredRecords()).isEqualTo(6);
        assertThat(barrier.heldBackRecords()).as("k#3, k#4 once, y once").isEqualTo(3);
        assertThat(consumer.handedOut).as("each record fetched once").containsOnly(Map.entry(orders(1), 4), Map.entry(orders(5), 2));
    }

    @Test
    void shouldSeekBackAndPauseAHeldPartitionSoThatACommitNeverPassesItThenDeliverItFromTheBuffer() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(1), 150, "z", "z");
        consumer.append(orders(5), 110, "k", "k#2");
        consumer.append(orders(5), 111, "k", "k#3");

        consumer.fetchOnly(orders(5));
        ConsumerRecords<String, String> first = pollRecords();

        assertThat(first.isEmpty()).isTrue();
        assertThat(consumer.paused()).containsExactly(orders(5));
        assertThat(consumer.position(orders(5))).isZero();
        assertThat(first.nextOffsets()).containsEntry(orders(5), new OffsetAndMetadata(0));
        assertThat(barrier.heldBackRecords()).isEqualTo(2);
        consumer.commitSync();
        assertThat(consumer.committed(Set.of(orders(5))).get(orders(5)).offset()).as("committed offset of the held child").isZero();

        assertThat(poll()).as("k#1, then the child's buffer: z@150 is later; z waits for grace").containsExactly("k#1", "k#2", "k#3");
        assertThat(consumer.paused()).as("the child is drained and resumed, the parent holds z").containsExactly(orders(1));
        assertThat(consumer.position(orders(1))).isEqualTo(1);
        assertThat(consumer.position(orders(5))).isEqualTo(2);
        consumer.commitSync();
        assertThat(consumer.committed(Set.of(orders(1), orders(5))))
                .containsEntry(orders(1), new OffsetAndMetadata(1)).containsEntry(orders(5), new OffsetAndMetadata(2));
    }

    @Test
    void shouldReturnRecordsWithEqualTimestampsLowerPartitionFirst() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(5), 100, "k", "k#2");

        consumer.fetchOnly(orders(5));
        assertThat(poll()).isEmpty();
        assertThat(poll()).containsExactly("k#1");
        assertThat(poll()).as("the parent may still send more at 100 until grace has passed").isEmpty();
        now = 100 + GRACE.toMillis();
        assertThat(poll()).containsExactly("k#2");
    }

    @Test
    void shouldReturnOneFetchOfBothPartitionsMergedWithTheParentFirstInIterationOrder() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 104, "k", "k#3");
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(1), 103, "k", "k#2");
        consumer.append(orders(1), 105, "x", "x");
        consumer.append(orders(5), 106, "k", "k#4");

        assertThat(poll()).as("k#4@106 waits for the parent to pass 106").containsExactly("k#1", "k#2", "x", "k#3");
        assertThat(consumer.paused()).containsExactly(orders(5));
    }

    // ---- the buffer ----

    /** The bug this pins: the barrier dropped the records after a held one and fetched them again later. */
    @Test
    void shouldDeliverTheRecordsAfterAHeldOneFromTheBufferWithoutFetchingThemAgain() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 110, "k", "k#3");
        consumer.append(orders(5), 120, "k", "k#4");
        consumer.append(orders(5), 125, "k", "k#5");
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(1), 115, "x", "x");
        consumer.append(orders(1), 130, "z", "z");

        consumer.fetchOnly(orders(5));
        assertThat(poll()).isEmpty();
        assertThat(consumer.paused()).containsExactly(orders(5));
        assertThat(poll()).as("the parent, then the child's buffer behind k#3; z@130 waits for grace")
                .containsExactly("k#1", "x", "k#3", "k#4", "k#5");
        assertThat(consumer.paused()).containsExactly(orders(1));
        now = 130 + GRACE.toMillis();
        assertThat(poll()).containsExactly("z");

        assertThat(consumer.handedOut).as("each record fetched once").containsOnly(Map.entry(orders(1), 3), Map.entry(orders(5), 3));
        assertThat(barrier.heldBackRecords()).as("k#3, k#4, k#5 once, z once").isEqualTo(4);
        assertThat(consumer.paused()).isEmpty();
    }

    @Test
    void shouldKeepThePositionAtTheNextUndeliveredRecordWhileABufferDrainsOverSeveralPolls() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 110, "k", "k#3");
        consumer.append(orders(5), 120, "k", "k#4");
        consumer.append(orders(5), 140, "k", "k#5");
        consumer.append(orders(1), 100, "a", "a");
        consumer.append(orders(1), 115, "b", "b");
        consumer.append(orders(1), 130, "c", "c");
        consumer.append(orders(1), 150, "d", "d");

        consumer.fetchOnly(orders(5));
        assertThat(poll()).isEmpty();
        assertThat(consumer.position(orders(5))).as("k#3 held, k#4 and k#5 buffered behind it").isZero();
        consumer.maxPerPartition = 1; // the parent comes a record per fetch
        List<List<String>> expected = List.of(List.of("a"), List.of("b", "k#3"), List.of("c", "k#4"));
        for (int i = 0; i < expected.size(); i++) {
            ConsumerRecords<String, String> records = pollRecords();
            assertThat(values(records)).as("poll %d", i + 2).containsExactlyElementsOf(expected.get(i));
            assertThat(consumer.position(orders(5))).as("next undelivered record of the child after poll %d", i + 2).isEqualTo(i);
            assertThat(records.nextOffsets()).as("after poll %d", i + 2).containsEntry(orders(5), new OffsetAndMetadata(i));
            assertThat(consumer.paused()).as("after poll %d", i + 2).containsExactly(orders(5));
        }
        assertThat(poll()).as("k#5@140 goes before d@150; d waits for grace").containsExactly("k#5");
        assertThat(consumer.position(orders(5))).isEqualTo(3);
        assertThat(consumer.position(orders(1))).as("d held").isEqualTo(3);
        assertThat(consumer.handedOut).containsOnly(Map.entry(orders(1), 4), Map.entry(orders(5), 3));
    }

    @Test
    void shouldResumeADrainedPartitionWhereItsBufferedFetchEnded() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 110, "k", "k#3");
        consumer.append(orders(5), 120, "k", "k#4");
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(1), 200, "z", "z");

        consumer.fetchOnly(orders(5));
        assertThat(poll()).isEmpty();
        ConsumerRecords<String, String> drained = pollRecords();
        assertThat(values(drained)).containsExactly("k#1", "k#3", "k#4");
        assertThat(consumer.paused()).as("the child resumed, the parent holding z").containsExactly(orders(1));
        assertThat(consumer.position(orders(5))).isEqualTo(2);
        assertThat(drained.nextOffsets()).containsEntry(orders(5), new OffsetAndMetadata(2)).containsEntry(orders(1), new OffsetAndMetadata(1));

        consumer.append(orders(5), 210, "k", "k#5");
        assertThat(poll()).as("the child's next fetch starts after its buffer: z@200 goes before k#5@210").containsExactly("z");
        assertThat(consumer.lastPolled.records(orders(5))).extracting(ConsumerRecord::offset).containsExactly(2L);
        now = 210 + GRACE.toMillis();
        assertThat(poll()).containsExactly("k#5");
        assertThat(consumer.paused()).isEmpty();
        assertThat(consumer.handedOut).containsOnly(Map.entry(orders(1), 2), Map.entry(orders(5), 3));
    }

    @Test
    void shouldPollWithAZeroTimeoutOnlyWhileABufferedRecordMayGo() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 100, "k", "k#1");

        assertThat(poll()).isEmpty();
        assertThat(consumer.lastTimeout).as("nothing buffered before the poll").isEqualTo(POLL_TIMEOUT);
        assertThat(poll()).isEmpty();
        assertThat(consumer.lastTimeout).as("k#1 buffered, but the parent has not passed it").isEqualTo(POLL_TIMEOUT);
        now = 100 + GRACE.toMillis();
        assertThat(poll()).containsExactly("k#1");
        assertThat(consumer.lastTimeout).as("k#1 may go: the poll must not block").isEqualTo(Duration.ZERO);
        assertThat(poll()).isEmpty();
        assertThat(consumer.lastTimeout).as("nothing buffered any more").isEqualTo(POLL_TIMEOUT);
        assertThat(consumer.polls).isEqualTo(4);
    }

    /**
     * The bug this pins, measured on real brokers: a parent and a child that both receive
     * records have interleaved timestamps, so each fetch can go only up to the sibling's head.
     * Dropping the rest of the fetch made the partitions take turns a record or so per poll, and
     * a group tailing a busy topic fell behind. With the buffer, each record is fetched once and
     * the backlog drains in about two polls per fetch of both partitions.
     */
    @Test
    void shouldDrainTwoBusySiblingsAFetchAtATimeWithoutFetchingARecordTwice() {
        start(layout(TASKS, 8), orders(1), orders(5));
        int total = 1000;
        int fetchSize = 50;
        for (int i = 0; i < total; i++) {
            consumer.append(orders(i % 2 == 0 ? 1 : 5), START + i, "k" + i % 7, "r" + i);
        }
        consumer.maxPerPartition = fetchSize;

        Map<TopicPartition, Long> next = new HashMap<>();
        int delivered = 0;
        while (delivered < total && consumer.polls <= total) {
            ConsumerRecords<String, String> records = pollRecords();
            for (ConsumerRecord<String, String> record : records) {
                TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                assertThat(record.offset()).as("offset order of %s", tp).isEqualTo(next.getOrDefault(tp, 0L));
                next.put(tp, record.offset() + 1);
                delivered++;
            }
            if (records.isEmpty()) {
                now += GRACE.toMillis(); // the last record waits for grace
            }
        }

        assertThat(delivered).isEqualTo(total);
        assertThat(consumer.handedOut).as("each record fetched once").containsOnly(Map.entry(orders(1), total / 2), Map.entry(orders(5), total / 2));
        assertThat(consumer.polls).as("consumer polls for %d records fetched %d per partition", total, fetchSize)
                .isLessThanOrEqualTo(total / fetchSize * 2 + 3);
    }

    @Test
    void shouldDropTheBufferAndSeekBackToTheHeldRecordWhenTheApplicationResumesThePartition() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 110, "k", "k#3");
        consumer.append(orders(5), 120, "k", "k#4");
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(1), 200, "z", "z");
        consumer.fetchOnly(orders(5));
        assertThat(poll()).isEmpty();

        consumer.resume(List.of(orders(5)));
        assertThat(poll()).as("the child's records fetched again from the held one: nothing skipped").containsExactly("k#1", "k#3", "k#4");
        assertThat(consumer.handedOut).as("the child's records were fetched twice").containsEntry(orders(5), 4);
        assertThat(consumer.paused()).as("z held").containsExactly(orders(1));
    }

    @ParameterizedTest(name = "lost: {0}")
    @ValueSource(booleans = {false, true})
    void shouldDropTheBufferOfARevokedPartitionSoThatItsRecordsAreReadAgainWhenItComesBack(boolean lost) {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 110, "k", "k#3");
        consumer.append(orders(5), 120, "k", "k#4");
        consumer.fetchOnly(orders(5));
        assertThat(poll()).isEmpty();
        consumer.commitSync();

        if (lost) {
            consumer.losePartitions(List.of(orders(5)));
        } else {
            consumer.rebalance(List.of(orders(1)));
        }
        assertThat(poll()).isEmpty();
        assertThat(consumer.committed(Set.of(orders(5))).get(orders(5)).offset()).as("committed offset of the held child").isZero();

        consumer.rebalance(List.of(orders(1), orders(5)));
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(1), 200, "z", "z");
        assertThat(poll()).as("read again from the committed offset").containsExactly("k#1", "k#3", "k#4");
        assertThat(consumer.handedOut).containsEntry(orders(5), 4);
    }

    // ---- what passes through ----

    @Test
    void shouldPassThroughSinglePartitionTasksAndTopicsWithoutALayoutAtOnce() {
        start(layout(TASKS, 8), orders(1), orders(2), new TopicPartition(PLAIN, 0), new TopicPartition(PLAIN, 1));
        consumer.append(orders(2), 500, "a", "a");
        consumer.append(orders(1), 300, "b", "b");
        consumer.append(new TopicPartition(PLAIN, 0), 900, "c", "c");
        consumer.append(new TopicPartition(PLAIN, 1), 50, "d", "d");

        assertThat(poll()).containsExactlyInAnyOrder("a", "b", "c", "d");
        assertThat(consumer.paused()).isEmpty();
        assertThat(barrier.heldBackRecords()).isZero();
        assertThat(barrier.deliveredRecords()).isEqualTo(4);
    }

    @Test
    void shouldPassThroughATopicWhosePartitionCountEqualsT() {
        start(layout(TASKS, TASKS), orders(0), orders(1), orders(2), orders(3));
        consumer.append(orders(3), 500, "a", "a");
        consumer.append(orders(0), 100, "b", "b");

        assertThat(poll()).containsExactlyInAnyOrder("a", "b");
        assertThat(consumer.paused()).isEmpty();
    }

    @Test
    void shouldReturnTheConsumersOwnRecordsWhenNoLayoutWasPublished() {
        start(null, orders(1), orders(5));
        consumer.append(orders(5), 500, "a", "a");
        consumer.append(orders(1), 100, "b", "b");

        ConsumerRecords<String, String> records = pollRecords();

        assertThat(records).isSameAs(consumer.lastPolled);
        assertThat(values(records)).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void shouldKeepPartitionsTheApplicationPausedPaused() {
        TopicPartition plain = new TopicPartition(PLAIN, 0);
        start(layout(TASKS, 8), orders(1), orders(5), plain);
        consumer.append(orders(5), 100, "k", "k#1");
        consumer.append(plain, 100, "p", "p");
        consumer.pause(List.of(orders(1), plain));

        assertThat(poll()).as("the parent is paused, caught up, and grace has not passed").isEmpty();
        assertThat(consumer.paused()).containsExactlyInAnyOrder(orders(1), orders(5), plain);
        now = 100 + GRACE.toMillis();
        assertThat(poll()).containsExactly("k#1");

        assertThat(consumer.paused()).containsExactlyInAnyOrder(orders(1), plain);
    }

    // ---- grace ----

    @Test
    void shouldReleaseAgainstAnIdleCaughtUpSiblingOnlyOnceGraceHasPassed() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 100, "k", "k#1");

        assertThat(poll()).isEmpty();
        now = 100 + GRACE.toMillis() - 1;
        assertThat(poll()).isEmpty();
        assertThat(consumer.paused()).containsExactly(orders(5));
        now = 100 + GRACE.toMillis();
        assertThat(poll()).containsExactly("k#1");
        assertThat(consumer.paused()).isEmpty();
    }

    @Test
    void shouldNeverReleaseAgainstASiblingThatHasRecordsLeftToRead() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(5), 110, "k", "k#2");

        for (int i = 0; i < 10; i++) {
            consumer.fetchOnly(orders(5));
            assertThat(poll()).isEmpty();
            now += GRACE.toMillis();
        }
        assertThat(poll()).as("then the parent is caught up and 110 is long past grace").containsExactly("k#1", "k#2");
        assertThat(consumer.handedOut).as("the child's record was fetched once, however long it waited")
                .containsOnly(Map.entry(orders(1), 1), Map.entry(orders(5), 1));
    }

    @Test
    void shouldNeverReleaseAgainstASiblingWhoseLagIsUnknown() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 100, "k", "k#1");
        consumer.unknownLag.add(orders(1));

        now += 10 * GRACE.toMillis();
        assertThat(poll()).isEmpty();
        assertThat(poll()).isEmpty();
        consumer.unknownLag.clear();
        assertThat(poll()).containsExactly("k#1");
    }

    // ---- rebalances ----

    @ParameterizedTest(name = "lost: {0}")
    @ValueSource(booleans = {false, true})
    void shouldForgetAHeldPartitionWhenItIsRevokedOrLost(boolean lost) {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 110, "k", "k#2");
        assertThat(poll()).isEmpty();
        assertThat(consumer.paused()).containsExactly(orders(5));

        if (lost) {
            consumer.losePartitions(List.of(orders(5)));
        } else {
            consumer.rebalance(List.of(orders(1)));
        }
        consumer.append(orders(1), 500, "x", "x");
        assertThat(poll()).as("the parent alone in its task now: passes through").containsExactly("x");

        consumer.rebalance(List.of(orders(1), orders(5)));
        consumer.pause(List.of(orders(5)));
        consumer.append(orders(1), 600, "y", "y");
        assertThat(poll()).as("y@600 waits: the child, paused by the application, has a record to read").isEmpty();
        now += 10 * GRACE.toMillis();
        assertThat(poll()).isEmpty();
        assertThat(consumer.paused()).as("the barrier must not resume the child: it did not pause it this time")
                .containsExactlyInAnyOrder(orders(1), orders(5));
    }

    /**
     * An eager rebalance can revoke and assign a partition again inside one consumer poll: the
     * assignment looks the same, but the partition is no longer paused and its position went
     * back to the committed offset. Were its buffer still trusted, the barrier would return k#2
     * from it ahead of the records the consumer reads again, and resume the child once that
     * buffer is drained although the application paused it since.
     */
    @Test
    void shouldForgetAHeldPartitionRevokedAndAssignedAgainWithinOnePoll() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(1), 200, "z", "z");
        consumer.append(orders(5), 110, "k", "k#2");
        consumer.fetchOnly(orders(5));
        assertThat(poll()).isEmpty();

        consumer.duringPoll = () -> {
            consumer.rebalance(List.of(orders(1)));
            consumer.rebalance(List.of(orders(1), orders(5)));
        };
        consumer.fetchOnly(orders(1));
        assertThat(poll()).as("the child's held record is forgotten; its lag holds k#1 back").isEmpty();
        consumer.pause(List.of(orders(5)));
        now += 10 * GRACE.toMillis();
        assertThat(poll()).isEmpty();

        assertThat(consumer.paused()).containsExactlyInAnyOrder(orders(1), orders(5));
    }

    @Test
    void shouldRejectANegativeGrace() {
        start(null);
        assertThatThrownBy(() -> ExpansionBarrier.wrap(consumer, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-0.001S");
    }

    // ---- randomised ----

    /**
     * One producer, monotonic timestamps (often equal, in some runs all equal), a topic of T = 4 grown 4 -> 8 -> 16 while
     * it writes keys of tasks 1 and 3; each record becomes readable a random delay within grace
     * after its timestamp, in send order per partition. The consumer fetches random subsets of
     * partitions, up to 4 or up to 50 records each (by run). Every key's sequence numbers must
     * come out 0, 1, 2, ..., every position must equal the number of records returned from its
     * partition, and each record must be fetched once. Once every record is readable, the rest
     * must drain in at most 2 polls per mean fetch size of records plus {@link #DRAIN_POLLS}: were
     * the barrier to drop records after a held one and fetch them again, partitions with a
     * backlog would take turns a few records per poll, and runs with large fetches would fail.
     */
    @Test
    void shouldReturnEachKeysRecordsInSendOrderThroughRandomExpansionsAndFetches() {
        for (long seed = BASE_SEED; seed < BASE_SEED + RUNS; seed++) {
            simulate(seed);
        }
    }

    private void simulate(long seed) {
        String reproduce = "seed " + seed + " (rerun: simulate(" + seed + "L))";
        Random random = new Random(seed);
        now = START;
        List<TopicPartition> assigned = new ArrayList<>();
        for (int p = 1; p < 16; p += 2) {
            assigned.add(orders(p));
        }
        start(layout(TASKS, 16), assigned.toArray(new TopicPartition[0]));

        int keys = 3 + random.nextInt(10);
        int[] hash = new int[keys];
        for (int k = 0; k < keys; k++) {
            hash[k] = 2 * random.nextInt(1 << 20) + 1; // odd: tasks 1 and 3, the ones assigned here
        }
        int[] sent = new int[keys];
        Map<TopicPartition, Long> lastVisible = new HashMap<>();
        int total = 100 + random.nextInt(300);
        // The producer's metadata refreshes, after which it sends to 8 and then 16 partitions.
        int firstRefresh = random.nextInt(total);
        int secondRefresh = firstRefresh + random.nextInt(total - firstRefresh);
        long timestamp = START;
        int step = 1 + random.nextInt(4); // 1: every record at the same millisecond
        for (int i = 0; i < total; i++) {
            timestamp += random.nextInt(step);
            int k = random.nextInt(keys);
            int partitions = i < firstRefresh ? 4 : i < secondRefresh ? 8 : 16;
            TopicPartition tp = orders(hash[k] % partitions);
            long visibleAt = Math.max(lastVisible.getOrDefault(tp, Long.MIN_VALUE), timestamp + random.nextInt((int) GRACE.toMillis() + 1));
            lastVisible.put(tp, visibleAt);
            consumer.append(tp, timestamp, "k" + k, "k" + k + "#" + sent[k]++, visibleAt);
        }

        int[] next = new int[keys];
        Map<TopicPartition, Long> returned = new HashMap<>();
        int delivered = 0;
        int fetchCap = random.nextBoolean() ? 4 : 50;
        long allReadable = lastVisible.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        int readablePoll = -1;
        int leftWhenReadable = total;
        for (int polls = 0; delivered < total; polls++) {
            assertThat(polls).as("%s: stuck with %d of %d records returned", reproduce, delivered, total).isLessThan(100_000);
            now += random.nextInt(80);
            if (readablePoll < 0 && now >= allReadable) {
                readablePoll = polls;
                leftWhenReadable = total - delivered;
            }
            Set<TopicPartition> fetch = assigned.stream().filter(tp -> random.nextInt(10) < 7).collect(Collectors.toSet());
            consumer.fetchOnly(fetch.toArray(new TopicPartition[0]));
            consumer.maxPerPartition = 1 + random.nextInt(fetchCap);
            ConsumerRecords<String, String> records = barrier.poll(POLL_TIMEOUT);
            for (ConsumerRecord<String, String> record : records) {
                int k = Integer.parseInt(record.key().substring(1));
                int seq = Integer.parseInt(record.value().substring(record.value().indexOf('#') + 1));
                assertThat(seq).as("%s: key %s at poll %d, time %d, from %s", reproduce, record.key(), polls, now,
                        new TopicPartition(record.topic(), record.partition())).isEqualTo(next[k]);
                next[k]++;
                returned.merge(new TopicPartition(record.topic(), record.partition()), 1L, Long::sum);
                delivered++;
            }
            for (TopicPartition tp : assigned) {
                assertThat(consumer.position(tp)).as("%s: position of %s at poll %d", reproduce, tp, polls)
                        .isEqualTo(returned.getOrDefault(tp, 0L));
            }
        }
        assertThat(barrier.deliveredRecords()).as(reproduce).isEqualTo(total);
        assertThat(consumer.paused()).as(reproduce).isEmpty();
        assertThat(consumer.handedOut.values().stream().mapToInt(Integer::intValue).sum())
                .as("%s: records fetched, each once", reproduce).isEqualTo(total);
        double meanFetch = (fetchCap + 1) / 2.0;
        assertThat(consumer.polls - readablePoll)
                .as("%s: polls to return the %d records left once all were readable, fetching up to %d per partition",
                        reproduce, leftWhenReadable, fetchCap)
                .isLessThanOrEqualTo((int) Math.ceil(2 * leftWhenReadable / meanFetch) + DRAIN_POLLS);
    }

    /**
     * A {@link MockConsumer} that fetches from in-memory logs from its position, as a broker
     * would: {@link MockConsumer#addRecord} hands a record out once, but a record the barrier
     * seeks back to must be fetched again. Records can become readable later than they are
     * appended ({@code visibleAt}); {@code currentLag} counts readable records.
     */
    private static final class LogConsumer extends MockConsumer<String, String> {

        private final ConsumerGroupMetadata group;
        private final java.util.function.LongSupplier clock;
        private final Map<TopicPartition, List<ConsumerRecord<String, String>>> logs = new HashMap<>();
        private final Map<TopicPartition, List<Long>> visibleAt = new HashMap<>();
        final Set<TopicPartition> unknownLag = new HashSet<>();
        int maxPerPartition = Integer.MAX_VALUE;
        Runnable duringPoll;
        ConsumerRecords<String, String> lastPolled;
        /** The timeout of the last {@link #poll}. */
        Duration lastTimeout;
        /** How many times {@link #poll} was called. */
        int polls;
        /** How many records each partition's fetches returned: more than its log holds means some were fetched again. */
        final Map<TopicPartition, Integer> handedOut = new HashMap<>();
        private Set<TopicPartition> fetchOnly;

        LogConsumer(String groupId, java.util.function.LongSupplier clock) {
            super("earliest");
            this.group = new ConsumerGroupMetadata(groupId, 1, "member-1", Optional.empty());
            this.clock = clock;
        }

        void assignAndStart(Collection<TopicPartition> partitions) {
            Map<TopicPartition, Long> beginning = new HashMap<>();
            partitions.forEach(tp -> beginning.put(tp, 0L));
            updateBeginningOffsets(beginning);
            rebalance(partitions);
        }

        void append(TopicPartition tp, long timestamp, String key, String value) {
            append(tp, timestamp, key, value, Long.MIN_VALUE);
        }

        void append(TopicPartition tp, long timestamp, String key, String value, long readableAt) {
            List<ConsumerRecord<String, String>> log = logs.computeIfAbsent(tp, p -> new ArrayList<>());
            log.add(new ConsumerRecord<>(tp.topic(), tp.partition(), log.size(), timestamp, TimestampType.CREATE_TIME,
                    -1, -1, key, value, new RecordHeaders(), Optional.empty()));
            visibleAt.computeIfAbsent(tp, p -> new ArrayList<>()).add(readableAt);
        }

        /** The next poll fetches only these partitions (the others' fetches have not come back yet). */
        void fetchOnly(TopicPartition... partitions) {
            fetchOnly = Set.of(partitions);
        }

        private int readableEnd(TopicPartition tp) {
            List<Long> times = visibleAt.getOrDefault(tp, List.of());
            long time = clock.getAsLong();
            int end = 0;
            while (end < times.size() && times.get(end) <= time) {
                end++;
            }
            return end;
        }

        @Override
        public synchronized ConsumerRecords<String, String> poll(Duration timeout) {
            lastTimeout = timeout;
            polls++;
            if (duringPoll != null) {
                Runnable task = duringPoll;
                duringPoll = null;
                task.run();
            }
            Map<TopicPartition, List<ConsumerRecord<String, String>>> fetched = new LinkedHashMap<>();
            Map<TopicPartition, OffsetAndMetadata> nextOffsets = new HashMap<>();
            Set<TopicPartition> paused = paused();
            List<TopicPartition> partitions = new ArrayList<>(assignment());
            partitions.sort(Comparator.comparing(TopicPartition::toString));
            for (TopicPartition tp : partitions) {
                if (paused.contains(tp) || fetchOnly != null && !fetchOnly.contains(tp)) {
                    continue;
                }
                int position = (int) position(tp);
                int upTo = (int) Math.min(readableEnd(tp), (long) position + maxPerPartition);
                if (upTo > position) {
                    fetched.put(tp, new ArrayList<>(logs.get(tp).subList(position, upTo)));
                    handedOut.merge(tp, upTo - position, Integer::sum);
                    seek(tp, upTo);
                    nextOffsets.put(tp, new OffsetAndMetadata(upTo));
                }
            }
            fetchOnly = null;
            lastPolled = new ConsumerRecords<>(fetched, nextOffsets);
            return lastPolled;
        }

        /** A revoked partition is no longer paused, as in KafkaConsumer (MockConsumer keeps it in {@code paused()}). */
        @Override
        public synchronized void rebalance(Collection<TopicPartition> newAssignment) {
            Set<TopicPartition> revoked = new HashSet<>(assignment());
            revoked.removeAll(newAssignment);
            resume(revoked);
            super.rebalance(newAssignment);
        }

        @Override
        public synchronized void losePartitions(Collection<TopicPartition> lost) {
            resume(lost);
            super.losePartitions(lost);
        }

        @Override
        public synchronized OptionalLong currentLag(TopicPartition tp) {
            return unknownLag.contains(tp) ? OptionalLong.empty() : OptionalLong.of(readableEnd(tp) - position(tp));
        }

        @Override
        public ConsumerGroupMetadata groupMetadata() {
            return group;
        }
    }
}
