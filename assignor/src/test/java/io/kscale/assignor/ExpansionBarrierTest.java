package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kscale.assignor.internals.barrier.BarrierMetrics;
import io.kscale.assignor.internals.barrier.ReleaseCause;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.member.MemberLayouts;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.store.MockTaskCountTopic;
import io.kscale.assignor.internals.store.StoreClients;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
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
    /** The default max hold. */
    private static final Duration MAX_HOLD = Duration.ofSeconds(30);
    /** The churn test's max hold: short, so that its offline leaders outlast it. */
    private static final Duration CHURN_MAX_HOLD = Duration.ofSeconds(3);
    /** The timeout the tests poll the barrier with; the mock never blocks. */
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    private static final long START = 100;
    /** The randomised test runs seeds BASE_SEED .. BASE_SEED + RUNS - 1. */
    private static final long BASE_SEED = 20_240_611L;
    private static final int RUNS = 200;
    /** The constant in the randomised test's bound on polls once every record is readable. */
    private static final int DRAIN_POLLS = 20;
    private static final AtomicInteger GROUPS = new AtomicInteger();

    private final MockTime time = new MockTime(START);
    private LogConsumer consumer;
    private ExpansionBarrier<String, String> barrier;
    /** Where the test publishes the consumer's layout, as its assignor would; held for the test's length. */
    private final MemberLayouts.Slot published = MemberLayouts.newSlot();
    /** The clients that read the brokers' task count topic on the consumer protocol. */
    private StoreClients storeClients = StoreClients.KAFKA;

    private static TopicPartition orders(int partition) {
        return new TopicPartition(ORDERS, partition);
    }

    private static GroupLayout layout(int taskCount, int partitionCount) {
        return GroupLayout.of(1, List.of(TopicLayout.of(ORDERS, taskCount, partitionCount)));
    }

    /** A fresh consumer with its own group id, so that no other test's published layout applies. */
    private void start(GroupLayout layout, TopicPartition... assigned) {
        start(layout, MAX_HOLD, assigned);
    }

    /** As {@link #start(GroupLayout, TopicPartition...)}, with this max hold; the metrics are named by the group id. */
    private void start(GroupLayout layout, Duration maxHold, TopicPartition... assigned) {
        start(layout, maxHold, Map.of(), assigned);
    }

    /** As above, with more consumer settings handed to the barrier. */
    private void start(GroupLayout layout, Duration maxHold, Map<String, Object> settings, TopicPartition... assigned) {
        if (barrier != null) {
            barrier.close();
        }
        String groupId = "barrier-test-" + GROUPS.incrementAndGet();
        consumer = new LogConsumer(groupId, time::milliseconds);
        consumer.subscribe(List.of(ORDERS, PLAIN));
        consumer.assignAndStart(List.of(assigned));
        if (layout != null) {
            ConsumerGroupMetadata group = consumer.groupMetadata();
            published.publish(group.groupId(), group.memberId(), layout);
        }
        Map<String, Object> barrierSettings = new HashMap<>(settings);
        barrierSettings.put(ExpansionBarrierConfig.GRACE_MS_CONFIG, GRACE.toMillis());
        barrierSettings.put(ExpansionBarrierConfig.MAX_HOLD_MS_CONFIG, maxHold.toMillis());
        barrierSettings.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId);
        barrier = new ExpansionBarrier<>(consumer, new ExpansionBarrierConfig(barrierSettings), time, storeClients);
    }

    @AfterEach
    void closeBarrier() {
        if (barrier != null) {
            barrier.close();
        }
    }

    /** @return the releases of this cause the barrier counted in its metric */
    private double releases(ReleaseCause cause) {
        return barrier.metrics().value(cause);
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

    /**
     * Issue 17 (finding 6): the registry of published layouts kept only the 1,024 members
     * updated last, so in a JVM running more consumers the barrier of a live one lost its layout
     * and passed the child's records through ahead of the parent's. An entry now lives as long
     * as its consumer's assignor, however many there are.
     */
    @Test
    void shouldStillHoldTheChildBackWhileMoreThanAThousandOtherConsumersRunInTheJvm() {
        start(layout(TASKS, 8), orders(1), orders(5));
        List<KeyPreservingAssignor> others = LiveMembers.assigned("barrier-neighbours-" + GROUPS.incrementAndGet(),
                LiveMembers.MANY);
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(5), 110, "k", "k#3");

        consumer.fetchOnly(orders(5));
        assertThat(poll()).as("the child is fetched first and held").isEmpty();
        assertThat(poll()).as("the parent's record first, then the child's").containsExactly("k#1");
        time.set(110 + GRACE.toMillis());
        assertThat(poll()).containsExactly("k#3");
        assertThat(others).hasSize(LiveMembers.MANY); // alive to the end
    }

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
        time.set(130 + GRACE.toMillis());
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
        time.set(100 + GRACE.toMillis());
        assertThat(poll()).containsExactly("k#2");
    }

    @Test
    void shouldReturnOneFetchOfBothPartitionsMergedInTimestampOrder() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 104, "k", "k#3");
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(1), 103, "k", "k#2");
        consumer.append(orders(1), 105, "x", "x");
        consumer.append(orders(5), 106, "k", "k#4");

        assertThat(poll()).as("k#4@106 waits for the parent to pass 106").containsExactly("k#1", "k#2", "k#3", "x");
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
        assertThat(poll()).as("the parent and the child's buffer in timestamp order; z@130 waits for grace")
                .containsExactly("k#1", "k#3", "x", "k#4", "k#5");
        assertThat(consumer.paused()).containsExactly(orders(1));
        time.set(130 + GRACE.toMillis());
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
        List<List<String>> expected = List.of(List.of("a"), List.of("k#3", "b"), List.of("k#4", "c"));
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
        time.set(210 + GRACE.toMillis());
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
        time.set(100 + GRACE.toMillis());
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
                time.sleep(GRACE.toMillis()); // the last record waits for grace
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

    /**
     * The bug this pins: on group.protocol=consumer (KIP-848) no assignment userData carries the
     * layout, and the barrier passed every record through, so the protocol Kafka makes the
     * default kept keys with their task but not their order. T is on the cluster, in the topic
     * where the brokers' assignor keeps it by topic id: the barrier reads it there and merges as
     * on the classic protocol. Until it is read, records pass through.
     */
    /** A consumer on group.protocol=consumer holding partitions 1 and 5, its barrier reading T from a mocked cluster. */
    private MockTaskCountTopic startOnTheConsumerProtocol() {
        MockTaskCountTopic cluster = new MockTaskCountTopic();
        cluster.createTopic(ORDERS);
        storeClients = cluster.clients(settings -> { });
        start(null, MAX_HOLD, Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer"), orders(1), orders(5));
        return cluster;
    }

    @Test
    void shouldMergeByTheTaskCountTheBrokersKeepOnTheConsumerProtocol() {
        MockTaskCountTopic cluster = startOnTheConsumerProtocol();
        consumer.append(orders(5), 110, "k", "k#2");
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.fetchOnly(orders(5));
        assertThat(poll()).as("T not read yet: the child waits for it").isEmpty();
        assertThat(consumer.paused()).containsExactly(orders(5));

        time.set(110 + GRACE.toMillis());
        cluster.record(ORDERS, TASKS);
        List<String> delivered = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            delivered.addAll(poll());
            assertThat(delivered).hasSize(2);
        });

        assertThat(delivered).as("merged once T was read: the parent's earlier record first").containsExactly("k#1", "k#2");
        assertThat(releases(ReleaseCause.UNKNOWN_TASK_COUNT)).isZero();
    }

    /** A topic whose T cannot be read (not assigned by the broker-side assignor) waits max hold, then passes through, counted. */
    @Test
    void shouldPassATopicWithoutARecordedTaskCountThroughAfterMaxHoldCountingIt() {
        startOnTheConsumerProtocol(); // no T is ever recorded for the topic
        consumer.append(orders(1), 100, "k", "k#1");
        assertThat(poll()).isEmpty();

        time.sleep(MAX_HOLD.toMillis());
        assertThat(poll()).as("fetched again after max hold, and let through").containsExactly("k#1");
        consumer.append(orders(1), 200, "k", "k#2");
        assertThat(poll()).containsExactly("k#2");
        assertThat(releases(ReleaseCause.UNKNOWN_TASK_COUNT)).isEqualTo(1);
        assertThat(consumer.paused()).isEmpty();
    }

    /** Wrapped without the consumer's settings, the barrier cannot tell the protocol: the WARN names both. */
    @Test
    void shouldWarnOnceNamingBothProtocolsWhenNoLayoutArrivesForAssignedPartitions() {
        String warnings = stderrDuring(() -> {
            start(null, orders(1), orders(5));
            for (int i = 0; i < 3; i++) {
                consumer.append(orders(1), 100 + i, "k", "parent-" + i);
                assertThat(poll()).containsExactly("parent-" + i);
            }
        });

        assertThat(linesNaming(warnings, consumer.groupMetadata().groupId())).singleElement().asString()
                .contains("WARN", "no task layout", "partition.assignment.strategy=" + KeyPreservingAssignor.class.getName(),
                        "group.protocol=consumer", "io.kscale.assignor.KeyPreservingServerAssignor");
    }

    /** What slf4j-simple, the tests' logger, wrote while {@code action} ran: it looks {@code System.err} up at each line. */
    private static String stderrDuring(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        original.print(text);
        return text;
    }

    private static List<String> linesNaming(String log, String name) {
        return log.lines().filter(line -> line.contains(name)).collect(Collectors.toList());
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
        time.set(100 + GRACE.toMillis());
        assertThat(poll()).containsExactly("k#1");

        assertThat(consumer.paused()).containsExactlyInAnyOrder(orders(1), plain);
    }

    // ---- grace ----

    @Test
    void shouldReleaseAgainstAnIdleCaughtUpSiblingOnlyOnceGraceHasPassed() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 100, "k", "k#1");

        assertThat(poll()).isEmpty();
        time.set(100 + GRACE.toMillis() - 1);
        assertThat(poll()).isEmpty();
        assertThat(consumer.paused()).containsExactly(orders(5));
        time.set(100 + GRACE.toMillis());
        assertThat(poll()).containsExactly("k#1");
        assertThat(consumer.paused()).isEmpty();
    }

    @Test
    void shouldNotReleaseBeforeMaxHoldAgainstASiblingThatHasRecordsLeftToRead() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(5), 110, "k", "k#2");

        for (int i = 0; i < 10; i++) {
            consumer.fetchOnly(orders(5));
            assertThat(poll()).isEmpty();
            time.sleep(GRACE.toMillis());
        }
        assertThat(poll()).as("then the parent is caught up and 110 is long past grace").containsExactly("k#1", "k#2");
        assertThat(consumer.handedOut).as("the child's record was fetched once, however long it waited")
                .containsOnly(Map.entry(orders(1), 1), Map.entry(orders(5), 1));
    }

    // ---- bounded holds (issue 11) ----

    /**
     * The bug this pins: a record stamped in the future (a producer clock running ahead, or an
     * event time the application set) waited for {@code now - grace} to pass its timestamp, so
     * its partition stood still for an hour here. Grace counts from when the barrier fetched it
     * instead: the wait for a caught-up sibling stays {@code grace} whatever the stamp.
     */
    @Test
    void shouldReleaseAFutureStampedRecordGraceAfterItWasFetchedRatherThanGraceAfterItsTimestamp() {
        start(layout(TASKS, 8), orders(1), orders(5));
        long anHourAhead = START + Duration.ofHours(1).toMillis();
        consumer.append(orders(5), anHourAhead, "k", "k#1");
        consumer.append(orders(5), anHourAhead + 1, "k", "k#2");

        assertThat(poll()).as("the parent is caught up, but grace has not passed since the fetch").isEmpty();
        time.set(START + GRACE.toMillis() - 1);
        assertThat(poll()).isEmpty();
        time.set(START + GRACE.toMillis());
        assertThat(poll()).as("grace after the fetch, not an hour later").containsExactly("k#1", "k#2");
        assertThat(consumer.paused()).isEmpty();
        assertThat(releases(ReleaseCause.FUTURE_TIMESTAMP)).as("one poll released the child's records").isEqualTo(1);
        assertThat(releases(ReleaseCause.MAX_HOLD) + releases(ReleaseCause.UNKNOWN_SIBLING_LAG)).isZero();
    }

    /**
     * A delivered record stamped in the future says nothing about what its partition sends next:
     * were its timestamp to count, the child would "pass" every parent record of the coming hour
     * and the parent's records would never wait for the child's.
     */
    @Test
    void shouldNotLetADeliveredFutureStampedRecordPassItsSiblingsRecordsOfTheComingHour() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), START + Duration.ofHours(1).toMillis(), "f", "f");
        assertThat(poll()).isEmpty();
        time.set(START + GRACE.toMillis());
        assertThat(poll()).containsExactly("f");

        consumer.append(orders(1), time.milliseconds(), "x", "x");
        assertThat(poll()).as("the child is caught up: x waits grace, as after any ordinary record").isEmpty();
        time.sleep(GRACE.toMillis());
        assertThat(poll()).containsExactly("x");
    }

    /**
     * The bug this pins: a sibling whose lag is unknown (its leader offline, or a partition
     * that does not exist) held the task back for good. After max hold it no longer does, until
     * it returns a record again; not another max hold per fetch, which would be no progress at
     * all.
     */
    @Test
    void shouldReleaseAgainstASiblingWhoseLagIsUnknownOnceMaxHoldHasPassed() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), START, "k", "k#1");
        consumer.offline.add(orders(1));

        assertThat(poll()).isEmpty();
        time.set(START + MAX_HOLD.toMillis() - 1);
        assertThat(poll()).as("the parent may still have older records").isEmpty();
        time.set(START + MAX_HOLD.toMillis());
        assertThat(poll()).as("max hold reached").containsExactly("k#1");
        assertThat(consumer.paused()).isEmpty();
        assertThat(releases(ReleaseCause.UNKNOWN_SIBLING_LAG)).isEqualTo(1);

        consumer.append(orders(5), time.milliseconds(), "k", "k#2");
        assertThat(poll()).as("the parent, still offline, no longer holds the task back").containsExactly("k#2");
        assertThat(releases(ReleaseCause.UNKNOWN_SIBLING_LAG)).as("counted per poll").isEqualTo(2);

        consumer.offline.clear();
        consumer.append(orders(1), time.milliseconds(), "x", "x");
        consumer.append(orders(5), time.milliseconds() + 1, "k", "k#3");
        assertThat(poll()).as("the parent is back: the merge waits for it again").containsExactly("x");
        assertThat(consumer.paused()).containsExactly(orders(5));
        assertThat(releases(ReleaseCause.UNKNOWN_SIBLING_LAG)).isEqualTo(2);
        assertThat(releases(ReleaseCause.MAX_HOLD)).isZero();
    }

    /**
     * The bug this pins: Kafka 4.4.0's consumer on {@code group.protocol=consumer} can drop a
     * member's partitions between the poll that fetched and the barrier's merge (a member past
     * {@code max.poll.interval.ms}), and its {@code currentLag} then throws "No current assignment"
     * for them. The barrier let that escape from {@code poll}; it now reads the lag as unknown.
     */
    @Test
    void shouldTreatTheLagOfASiblingTheConsumerDroppedAsUnknownInsteadOfThrowing() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), START, "k", "k#1");
        consumer.dropped.add(orders(1));

        assertThat(poll()).as("the parent's lag cannot be read: the child waits, as for an unknown lag").isEmpty();
        time.set(START + MAX_HOLD.toMillis());
        assertThat(poll()).as("max hold reached").containsExactly("k#1");
        assertThat(releases(ReleaseCause.UNKNOWN_SIBLING_LAG)).isEqualTo(1);
    }

    /**
     * The bug this pins: a sibling the application paused with records left to read (or one
     * that is never fetched) held its task back without bound. Streams waits for such a
     * partition without bound too; max hold bounds the wait here.
     */
    @Test
    void shouldReleaseAgainstASiblingThatReturnsNothingWhileBehindOnceMaxHoldHasPassed() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(1), START, "a", "a");
        consumer.append(orders(5), START + 10, "k", "k#1");
        consumer.pause(List.of(orders(1)));

        assertThat(poll()).isEmpty();
        time.set(START + MAX_HOLD.toMillis() - 1);
        assertThat(poll()).as("the parent has a record to read").isEmpty();
        time.set(START + MAX_HOLD.toMillis());
        assertThat(poll()).containsExactly("k#1");
        assertThat(consumer.paused()).as("the application's pause stays").containsExactly(orders(1));
        assertThat(releases(ReleaseCause.MAX_HOLD)).isEqualTo(1);
        assertThat(releases(ReleaseCause.UNKNOWN_SIBLING_LAG)).isZero();
    }

    // ---- no silent breach of order ----

    /**
     * The bug this pins: a sibling whose {@code currentLag} read 0 while its producer still held
     * older records (a leader failover: the retried batch reaches the log seconds later, with its
     * old timestamp) counted as "nothing more to read", so the child's later record went after
     * grace, and the parent's older one came after it with nothing counted and nothing logged.
     * Such a record cannot be foreseen, but once it is returned the barrier knows it came out of
     * order: it counts it and warns, naming both partitions.
     */
    @Test
    void shouldCountAndWarnOfAParentRecordThatReachesTheLogAfterGraceBehindALaterChildRecord() {
        String warnings = stderrDuring(() -> {
            start(layout(TASKS, 8), orders(1), orders(5));
            time.set(110);
            consumer.append(orders(1), 100, "k", "k#1");
            consumer.append(orders(1), 105, "k", "k#2", 5_000); // retried through a failover: readable at 5 s
            consumer.append(orders(5), 110, "k", "k#3");

            assertThat(poll()).as("k#1; the child waits: the parent's lag reads 0, grace has not passed").containsExactly("k#1");
            time.set(110 + GRACE.toMillis());
            assertThat(poll()).as("the stale lag lets the child go after grace").containsExactly("k#3");
            assertThat(barrier.metrics().outOfOrderRecords()).isZero();
            time.set(5_000);
            assertThat(poll()).containsExactly("k#2");
        });

        assertThat(barrier.metrics().outOfOrderRecords()).as("k#2 came after k#3").isEqualTo(1);
        assertThat(releases(ReleaseCause.FUTURE_TIMESTAMP) + releases(ReleaseCause.MAX_HOLD)
                + releases(ReleaseCause.UNKNOWN_SIBLING_LAG)).as("no bound was involved").isZero();
        assertThat(linesNaming(warnings, "out-of-order-records-total")).singleElement().asString()
                .contains("WARN", orders(1).toString(), orders(5).toString(), "kscale.barrier.grace.ms");
    }

    /**
     * Seen on real brokers, 8 -> 16 partitions: the producers wrote to the new partition 9 before
     * the group assigned it, while this member went on returning 1 and 5; 9's first records were
     * then older than theirs. No key came out of order (a producer's records of a key reach 9 only
     * after its last ones in 1), so none is counted: only what a sibling returned after the two
     * were merged counts.
     */
    @Test
    void shouldNotCountAPartitionAssignedLateForRecordsItsSiblingsReturnedBeforeIt() {
        start(GroupLayout.of(1, List.of(TopicLayout.of(ORDERS, TASKS, 16))), orders(1), orders(5));
        consumer.append(orders(1), 100, "a", "a");
        consumer.append(orders(5), 900, "b", "b");
        consumer.append(orders(1), 1000, "c", "c");
        time.set(1000 + GRACE.toMillis());
        assertThat(poll()).containsExactly("a", "b", "c");

        consumer.rebalance(List.of(orders(1), orders(5), orders(9), orders(13)));
        consumer.append(orders(9), 500, "k", "k#1");
        assertThat(poll()).containsExactly("k#1");
        assertThat(barrier.metrics().outOfOrderRecords()).isZero();

        consumer.append(orders(1), 2000, "d", "d");
        consumer.append(orders(9), 1500, "k", "k#2", 2000 + 2 * GRACE.toMillis());
        time.set(2000 + GRACE.toMillis());
        assertThat(poll()).as("9's lag reads 0: d goes after grace").containsExactly("d");
        time.set(2000 + 2 * GRACE.toMillis());
        assertThat(poll()).containsExactly("k#2");
        assertThat(barrier.metrics().outOfOrderRecords()).as("k#2 after d, both merged").isEqualTo(1);
    }

    /** Records returned again after a seek back were seen before, in order: they are not counted. */
    @Test
    void shouldNotCountRecordsReturnedAgainAfterASeekBack() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(5), 110, "k", "k#2");
        consumer.append(orders(1), 120, "x", "x");
        assertThat(poll()).containsExactly("k#1", "k#2");
        time.set(120 + GRACE.toMillis());
        assertThat(poll()).containsExactly("x");

        consumer.seek(orders(1), 0);
        consumer.seek(orders(5), 0);
        assertThat(poll()).containsExactly("k#1", "k#2", "x");
        assertThat(barrier.metrics().outOfOrderRecords()).isZero();
    }

    /**
     * The bug this pins: the result was built by partition, and {@link ConsumerRecords} iterates
     * partition by partition, so every record of the parent came before any of the child. A key
     * sent back to the parent (a producer whose metadata fell back to the old count) then came
     * out of order within one batch although the merge had ordered it.
     */
    @Test
    void shouldIterateABatchInTheMergesOrderWhenAKeyGoesBackToTheParent() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(5), 110, "k", "k#2");
        consumer.append(orders(1), 130, "k", "k#3"); // the producer's metadata fell back to 4 partitions
        time.set(130 + GRACE.toMillis());

        ConsumerRecords<String, String> records = pollRecords();

        assertThat(values(records)).containsExactly("k#1", "k#2", "k#3");
        List<String> ofTopic = new ArrayList<>();
        records.records(ORDERS).forEach(record -> ofTopic.add(record.value()));
        assertThat(ofTopic).containsExactly("k#1", "k#2", "k#3");
        assertThat(records.records(orders(1))).extracting(ConsumerRecord::value).containsExactly("k#1", "k#3");
        assertThat(records.count()).isEqualTo(3);
    }

    /** Parent 1 returns k#1@100 and z@200, child 5 returns k#2@110, in that order: the parent vouches up to 200. */
    private void deliverParentAndChildThenALaterParentRecord() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(5), 110, "k", "k#2");
        time.set(110 + GRACE.toMillis());
        assertThat(poll()).containsExactly("k#1", "k#2");
        consumer.append(orders(1), 200, "z", "z");
        time.set(200 + GRACE.toMillis());
        assertThat(poll()).containsExactly("z");
    }

    /**
     * The bug this pins: only a buffered partition's rewind was noticed. A parent the application
     * sought back while it was not held kept its "returned up to 200", so the child's record read
     * again counted as passed and went ahead of the parent's older records read again.
     */
    @Test
    void shouldNotLetAParentSoughtBackWhileNotHeldVouchForItsOldPosition() {
        deliverParentAndChildThenALaterParentRecord();

        consumer.seek(orders(1), 0);
        consumer.seek(orders(5), 0);
        consumer.fetchOnly(orders(5));
        assertThat(poll()).as("the parent has records to read again before 110").isEmpty();
        assertThat(poll()).as("z waits for the child's position to pass its drained buffer").containsExactly("k#1", "k#2");
        assertThat(poll()).containsExactly("z");
    }

    /** As above, for a parent revoked and assigned again within one poll: its position went back to the committed offset. */
    @Test
    void shouldNotLetAParentRevokedAndAssignedAgainWithinOnePollVouchForItsOldPosition() {
        deliverParentAndChildThenALaterParentRecord();

        consumer.duringPoll = () -> {
            consumer.rebalance(List.of());
            consumer.rebalance(List.of(orders(1), orders(5)));
        };
        consumer.fetchOnly(orders(5));
        // Not poll(): the positions went back to the committed offsets inside this poll.
        assertThat(values(barrier.poll(POLL_TIMEOUT))).as("the parent is read again from offset 0, before 110").isEmpty();
        assertThat(poll()).containsExactly("k#1", "k#2");
        assertThat(poll()).containsExactly("z");
    }

    /** A sibling that keeps returning records is worked through, however long that takes: no release. */
    @Test
    void shouldNotReleaseAgainstASiblingThatKeepsReturningEarlierRecords() {
        start(layout(TASKS, 8), orders(1), orders(5));
        int backlog = 50;
        for (int i = 0; i < backlog; i++) {
            consumer.append(orders(1), START + i, "a", "a" + i);
        }
        consumer.append(orders(5), START + backlog, "k", "k#1");
        consumer.maxPerPartition = 1;

        consumer.fetchOnly(orders(5));
        assertThat(poll()).isEmpty();
        List<String> delivered = new ArrayList<>();
        for (int i = 0; i < backlog; i++) {
            time.sleep(MAX_HOLD.toMillis() / 10); // the parent returns one record per 3 s: slow, but it moves
            delivered.addAll(poll());
        }
        assertThat(delivered).as("the parent's backlog, in order, and the child's record after it")
                .hasSize(backlog + 1).endsWith("a" + (backlog - 1), "k#1");
        assertThat(forcedReleases()).isZero();
    }

    /** The barrier must not sleep in consumer.poll past the time a held record may go by the clock alone. */
    @Test
    void shouldPollNoLongerThanUntilAHeldRecordMayGo() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), START, "k", "k#1");

        barrier.poll(Duration.ofMinutes(1));
        assertThat(consumer.lastTimeout).as("nothing buffered before this poll").isEqualTo(Duration.ofMinutes(1));
        time.sleep(400);
        barrier.poll(Duration.ofMinutes(1));
        assertThat(consumer.lastTimeout).as("k#1 may go once grace has passed").isEqualTo(GRACE.minusMillis(400));
    }

    // ---- the application's seeks (issue 11) ----

    enum AppSeek {
        SEEK_BACK, SEEK_FORWARD, SEEK_OFFSET_AND_METADATA, SEEK_TO_BEGINNING, SEEK_TO_END, SEEK_IN_REBALANCE_LISTENER
    }

    /**
     * The bug this pins: after the application moved a held partition (an error handler seeking
     * back, a replay from the beginning, a skip to the end), the barrier still returned the
     * partition's stale buffer and, once that was drained, sought past the application's
     * position. Now the application's position wins: the buffer is dropped and the partition
     * read from where the application put it.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(AppSeek.class)
    void shouldDropTheBufferAndReadFromTheApplicationsPositionWhenItSeeksAHeldPartition(AppSeek seek) {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 100, "k", "c0");
        consumer.append(orders(5), 105, "k", "c1");
        consumer.append(orders(5), 150, "k", "c2");
        consumer.append(orders(5), 160, "k", "c3");
        consumer.append(orders(1), 120, "a", "p0");
        assertThat(poll()).as("in the merge's order").containsExactly("c0", "c1", "p0");
        assertThat(consumer.paused()).as("c2@150 held: the parent has shown nothing as late").containsExactly(orders(5));
        assertThat(consumer.position(orders(5))).isEqualTo(2);

        long from;
        switch (seek) {
            case SEEK_BACK: consumer.seek(orders(5), 1); from = 1; break;
            case SEEK_FORWARD: consumer.seek(orders(5), 3); from = 3; break;
            case SEEK_OFFSET_AND_METADATA: consumer.seek(orders(5), new OffsetAndMetadata(0)); from = 0; break;
            case SEEK_TO_BEGINNING: consumer.seekToBeginning(List.of(orders(5))); from = 0; break;
            case SEEK_TO_END: consumer.seekToEnd(List.of(orders(5))); from = 4; break;
            case SEEK_IN_REBALANCE_LISTENER:
                consumer.duringPoll = () -> consumer.seek(orders(5), 0);
                from = 0;
                assertThat(values(barrier.poll(POLL_TIMEOUT))).as("the seek came inside this poll").isEmpty();
                break;
            default: throw new AssertionError(seek);
        }
        time.set(160 + GRACE.toMillis());
        List<String> delivered = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            delivered.addAll(poll());
        }

        List<String> expected = new ArrayList<>();
        for (long offset = from; offset < 4; offset++) {
            expected.add("c" + offset);
        }
        assertThat(delivered).as("the child from offset %d, as the application asked", from).containsExactlyElementsOf(expected);
        assertThat(consumer.position(orders(5))).isEqualTo(4);
        assertThat(consumer.paused()).isEmpty();
    }

    /** A seek to the held record itself changes nothing: the buffer holds exactly what the consumer would fetch. */
    @Test
    void shouldKeepTheBufferWhenTheApplicationSeeksAHeldPartitionToTheHeldRecord() {
        start(layout(TASKS, 8), orders(1), orders(5));
        consumer.append(orders(5), 110, "k", "k#2");
        consumer.append(orders(1), 100, "k", "k#1");
        consumer.append(orders(1), 200, "z", "z");
        consumer.fetchOnly(orders(5));
        assertThat(poll()).isEmpty();

        consumer.seek(orders(5), 0);
        assertThat(poll()).containsExactly("k#1", "k#2");
        assertThat(consumer.handedOut).as("fetched once").containsEntry(orders(5), 1);
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
        time.sleep(10 * GRACE.toMillis());
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
        time.sleep(10 * GRACE.toMillis());
        assertThat(poll()).isEmpty();

        assertThat(consumer.paused()).containsExactlyInAnyOrder(orders(1), orders(5));
    }

    @Test
    void shouldRejectANegativeGrace() {
        start(null);
        assertThatThrownBy(() -> ExpansionBarrier.wrap(consumer, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-0.001S");
    }

    // ---- settings and metrics ----

    @Test
    void shouldDefaultToAGraceOfOneSecondAndAMaxHoldOfThirtySeconds() {
        ExpansionBarrierConfig config = new ExpansionBarrierConfig(Map.of("bootstrap.servers", "localhost:9092"));

        assertThat(config.grace()).isEqualTo(Duration.ofSeconds(1)).isEqualTo(ExpansionBarrier.DEFAULT_GRACE);
        assertThat(config.maxHold()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void shouldReadTheSettingsFromStringsAsInAConsumersProperties() {
        ExpansionBarrierConfig config = new ExpansionBarrierConfig(Map.of(
                ExpansionBarrierConfig.GRACE_MS_CONFIG, "250", ExpansionBarrierConfig.MAX_HOLD_MS_CONFIG, "5000"));

        assertThat(config.grace()).isEqualTo(Duration.ofMillis(250));
        assertThat(config.maxHold()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void shouldRejectANegativeMaxHoldNamingTheKeyTheValueAndWhatIsAllowed() {
        assertThatThrownBy(() -> new ExpansionBarrierConfig(Map.of(ExpansionBarrierConfig.MAX_HOLD_MS_CONFIG, -1L)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(ExpansionBarrierConfig.MAX_HOLD_MS_CONFIG).hasMessageContaining("-1")
                .hasMessageContaining("at least 0");
    }

    @Test
    void shouldRejectAMaxHoldShorterThanGraceNamingBothKeys() {
        assertThatThrownBy(() -> new ExpansionBarrierConfig(Map.of(
                ExpansionBarrierConfig.GRACE_MS_CONFIG, 2_000L, ExpansionBarrierConfig.MAX_HOLD_MS_CONFIG, 1_000L)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Invalid value 1000 for configuration " + ExpansionBarrierConfig.MAX_HOLD_MS_CONFIG)
                .hasMessageContaining("must be at least " + ExpansionBarrierConfig.GRACE_MS_CONFIG + " (2000)");
    }

    @Test
    void shouldRejectABadValueGivenToWrap() {
        start(null);
        assertThatThrownBy(() -> ExpansionBarrier.wrap(consumer, Map.of(ExpansionBarrierConfig.GRACE_MS_CONFIG, "soon")))
                .isInstanceOf(ConfigException.class).hasMessageContaining(ExpansionBarrierConfig.GRACE_MS_CONFIG);
    }

    @Test
    void shouldKeepAGraceLongerThanTheDefaultMaxHoldWhenGivenAsADuration() {
        start(null);
        ExpansionBarrier<String, String> longGrace = ExpansionBarrier.wrap(consumer, Duration.ofMinutes(1));
        try {
            assertThat(longGrace.toString()).contains("grace 60000 ms, max hold 60000 ms");
        } finally {
            longGrace.close();
        }
    }

    @Test
    void shouldRegisterTheReleaseMetricsUnderTheClientIdAndRemoveThemOnClose() {
        start(layout(TASKS, 8), orders(1), orders(5));
        String clientId = consumer.groupMetadata().groupId();
        // Held open here, so that it can be looked into after the barrier released it.
        org.apache.kafka.common.metrics.Metrics registry = AssignorMetrics.Registry.SHARED.acquire("barrier-test");
        try {
            for (ReleaseCause cause : ReleaseCause.values()) {
                assertThat(registry.metric(registry.metricName(cause.metricName(), BarrierMetrics.GROUP,
                        Map.of("client-id", clientId)))).as(cause.metricName()).isNotNull();
            }
            assertThat(ReleaseCause.FUTURE_TIMESTAMP.metricName()).isEqualTo("future-timestamp-releases-total");
            assertThat(ReleaseCause.MAX_HOLD.metricName()).isEqualTo("max-hold-releases-total");
            assertThat(ReleaseCause.UNKNOWN_SIBLING_LAG.metricName()).isEqualTo("unknown-lag-releases-total");

            barrier.close();
            for (ReleaseCause cause : ReleaseCause.values()) {
                assertThat(registry.metric(registry.metricName(cause.metricName(), BarrierMetrics.GROUP,
                        Map.of("client-id", clientId)))).as(cause.metricName()).isNull();
            }
        } finally {
            AssignorMetrics.Registry.SHARED.release("barrier-test", () -> { });
        }
        barrier = null;
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
            simulate(seed, false);
        }
    }

    /**
     * As above, but during a random stretch of the sends one random partition's records become
     * readable up to 5 x grace after their timestamp (its leader failing over while the producer
     * retries), so that its lag reads 0 while older records are still on their way: records may
     * then come out of order, but never more than the barrier counted in
     * {@code out-of-order-records-total}. Across the runs some must come out of order, or the
     * check would be vacuous.
     */
    @Test
    void shouldCountAtLeastEveryRecordReturnedAfterALaterRecordOfItsKeyWhenAFailoverOutlastsGrace() {
        long inverted = 0;
        for (long seed = BASE_SEED; seed < BASE_SEED + RUNS; seed++) {
            inverted += simulate(seed, true);
        }
        assertThat(inverted).as("records returned after a later record of their key, over all runs").isPositive();
    }

    /** @return the records returned after a later record of their key (0 unless {@code failover}) */
    private long simulate(long seed, boolean failover) {
        String reproduce = "seed " + seed + " (rerun: simulate(" + seed + "L, " + failover + "))";
        Random random = new Random(seed);
        time.set(START);
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
        int failStart = random.nextInt(total);
        int failEnd = failStart + random.nextInt(total - failStart + 1);
        TopicPartition failing = assigned.get(random.nextInt(assigned.size()));
        for (int i = 0; i < total; i++) {
            timestamp += random.nextInt(step);
            int k = random.nextInt(keys);
            int partitions = i < firstRefresh ? 4 : i < secondRefresh ? 8 : 16;
            TopicPartition tp = orders(hash[k] % partitions);
            long delay = failover && tp.equals(failing) && i >= failStart && i < failEnd
                    ? 5 * GRACE.toMillis() : GRACE.toMillis();
            long visibleAt = Math.max(lastVisible.getOrDefault(tp, Long.MIN_VALUE), timestamp + random.nextInt((int) delay + 1));
            lastVisible.put(tp, visibleAt);
            consumer.append(tp, timestamp, "k" + k, "k" + k + "#" + sent[k]++, visibleAt);
        }

        int[] next = new int[keys];
        long inverted = 0;
        Map<TopicPartition, Long> returned = new HashMap<>();
        int delivered = 0;
        int fetchCap = random.nextBoolean() ? 4 : 50;
        long allReadable = lastVisible.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        int readablePoll = -1;
        int leftWhenReadable = total;
        for (int polls = 0; delivered < total; polls++) {
            assertThat(polls).as("%s: stuck with %d of %d records returned", reproduce, delivered, total).isLessThan(100_000);
            time.sleep(random.nextInt(80));
            if (readablePoll < 0 && time.milliseconds() >= allReadable) {
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
                if (failover) {
                    // next[k]: one past the latest sequence number of the key returned so far.
                    inverted += seq < next[k] ? 1 : 0;
                    next[k] = Math.max(next[k], seq + 1);
                } else {
                    assertThat(seq).as("%s: key %s at poll %d, time %d, from %s", reproduce, record.key(), polls,
                            time.milliseconds(), new TopicPartition(record.topic(), record.partition())).isEqualTo(next[k]);
                    next[k]++;
                }
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
        if (failover) {
            assertThat(barrier.metrics().outOfOrderRecords()).as("%s: records counted out of order", reproduce)
                    .isGreaterThanOrEqualTo(inverted);
        } else {
            assertThat(barrier.metrics().outOfOrderRecords()).as("%s: records counted out of order", reproduce).isZero();
        }
        return inverted;
    }

    // ---- randomised: seeks, pauses, expansions, rebalances and offline leaders (issue 11) ----

    /** The churn test runs seeds CHURN_SEED .. CHURN_SEED + CHURN_RUNS - 1. */
    private static final long CHURN_SEED = 20_251_104L;
    private static final int CHURN_RUNS = 150;

    /**
     * Exactly once, and per-key order, whatever the application does around the barrier: see
     * {@link Churn}. A failure names the seed and how to rerun just that run.
     */
    @Test
    void shouldDeliverEveryRecordOnceAndEachKeyInOrderThroughRandomSeeksPausesExpansionsAndRebalances() {
        for (long seed = CHURN_SEED; seed < CHURN_SEED + CHURN_RUNS; seed++) {
            try {
                new Churn(seed).run();
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + " (rerun: new Churn(" + seed + "L).run()): " + e.getMessage(), e);
            }
        }
    }

    /**
     * One run of the churn test. A producer with a sane clock writes keys of tasks 1 and 3
     * (T = 4) while the topic grows 4 -> 8 -> 16 partitions; each record becomes readable within
     * grace of its timestamp. The member starts with partitions 1 and 3 and gets each
     * expansion's new partitions at a rebalance a while after the producer started writing to
     * them. Meanwhile the application, at random: seeks a partition (back, forward, to its
     * committed offset, to the beginning, to the end), pauses one for a few polls, commits, loses
     * a whole task to a rebalance and gets it back later (from the committed offsets), or has a
     * task revoked and assigned again inside one poll. In one run in four a partition's leader
     * also goes offline for a while (not fetched, lag unknown), up to twice max hold, and at the
     * end one partition stays offline for good: the rest of its task must still drain.
     *
     * <p>Checked after every poll:
     * <ul>
     *   <li>Exactly once from the application's position: each partition's records come out at
     *       consecutive offsets from where the application last saw or put its position (its
     *       seeks, a reassignment from the committed offset), the consumer's position is the
     *       offset after the last record returned, and at the end every partition but the one
     *       left offline has been read to its end, with nothing held back. So nothing is skipped
     *       unless the application skipped it, and nothing comes twice unless the application
     *       went back.</li>
     *   <li>Per-key order: the first delivery of each record (an offset beyond everything its
     *       partition returned or the application skipped) comes in send order per key. A run
     *       with an offline leader checks this only until the barrier counts its first forced
     *       release; every other run must count none.</li>
     * </ul>
     */
    private final class Churn {
        /** Not {@link Random}: its first outputs barely differ between consecutive seeds, so "one run in four" would not hold. */
        private final SplittableRandom random;
        private final boolean offlineLeaders;
        /** The offset the application expects next from each assigned partition. */
        private final Map<TopicPartition, Long> expected = new HashMap<>();
        /** Per partition, one past the highest offset returned or skipped by a seek forward. */
        private final Map<TopicPartition, Long> frontier = new HashMap<>();
        private final Map<TopicPartition, Integer> appPausedUntilPoll = new HashMap<>();
        private final Map<Integer, Integer> revokedTaskBackAtPoll = new HashMap<>();
        private final Map<TopicPartition, Long> offlineUntil = new HashMap<>();
        private final Set<Integer> tasks = new HashSet<>(Set.of(1, 3));
        private int[] lastFirstSeq;
        private int partitionCount = 4;
        private long epoch = 1;
        private int polls;
        private boolean checkOrder = true;
        /** In a run with offline leaders, the partition that stays offline while the rest drains. */
        private TopicPartition dead;

        Churn(long seed) {
            this.random = new SplittableRandom(seed);
            this.offlineLeaders = random.nextInt(4) == 0;
        }

        void run() {
            time.set(START);
            start(GroupLayout.of(epoch, List.of(TopicLayout.of(ORDERS, TASKS, partitionCount))), CHURN_MAX_HOLD,
                    orders(1), orders(3));
            expected.put(orders(1), 0L);
            expected.put(orders(3), 0L);

            // The producer: keys of tasks 1 and 3, refreshing its metadata (4 -> 8 -> 16) at two random records.
            int keys = 3 + random.nextInt(10);
            lastFirstSeq = new int[keys];
            Arrays.fill(lastFirstSeq, -1);
            int[] hash = new int[keys];
            for (int k = 0; k < keys; k++) {
                hash[k] = 2 * random.nextInt(1 << 20) + 1;
            }
            int[] sent = new int[keys];
            int total = 100 + random.nextInt(300);
            int firstRefresh = random.nextInt(total);
            int secondRefresh = firstRefresh + random.nextInt(total - firstRefresh);
            long[] grownAt = {Long.MAX_VALUE, Long.MAX_VALUE};
            Map<TopicPartition, Long> lastVisible = new HashMap<>();
            long timestamp = START;
            int step = 1 + random.nextInt(40);
            for (int i = 0; i < total; i++) {
                timestamp += random.nextInt(step);
                if (i == firstRefresh) {
                    grownAt[0] = timestamp;
                }
                if (i == secondRefresh) {
                    grownAt[1] = timestamp;
                }
                int k = random.nextInt(keys);
                TopicPartition tp = orders(hash[k] % (i < firstRefresh ? 4 : i < secondRefresh ? 8 : 16));
                long visibleAt = Math.max(lastVisible.getOrDefault(tp, Long.MIN_VALUE),
                        timestamp + random.nextInt((int) GRACE.toMillis() + 1));
                lastVisible.put(tp, visibleAt);
                consumer.append(tp, timestamp, "k" + k, "k" + k + "#" + sent[k]++, visibleAt);
            }
            // The group leader notices each expansion up to 3 s after the producer did.
            long[] assignedAt = {grownAt[0] + random.nextInt(3000), grownAt[1] + random.nextInt(3000)};
            long runUntil = Math.max(lastVisible.values().stream().mapToLong(Long::longValue).max().orElseThrow(),
                    START + 4 * CHURN_MAX_HOLD.toMillis());

            while (time.milliseconds() < runUntil) {
                time.sleep(random.nextInt(80));
                if (partitionCount < 16 && time.milliseconds() >= assignedAt[partitionCount == 4 ? 0 : 1]) {
                    partitionCount *= 2;
                    epoch++;
                    published.publish(consumer.groupMetadata().groupId(), consumer.groupMetadata().memberId(),
                            GroupLayout.of(epoch, List.of(TopicLayout.of(ORDERS, TASKS, partitionCount))));
                    reassign();
                }
                applicationActs();
                pollAndCheck();
            }

            // Everything back to normal: the rest must drain.
            revokedTaskBackAtPoll.clear();
            tasks.addAll(Set.of(1, 3));
            partitionCount = 16;
            epoch++;
            published.publish(consumer.groupMetadata().groupId(), consumer.groupMetadata().memberId(),
                    GroupLayout.of(epoch, List.of(TopicLayout.of(ORDERS, TASKS, partitionCount))));
            reassign();
            consumer.resume(appPausedUntilPoll.keySet());
            appPausedUntilPoll.clear();
            consumer.offline.clear();
            offlineUntil.clear();
            if (offlineLeaders) {
                // One partition never comes back (its leader lost, or it does not exist): its task must drain without it.
                dead = orders(2 * random.nextInt(8) + 1);
                consumer.offline.add(dead);
            }
            for (int drain = 0; !drained(); drain++) {
                assertThat(drain).as("stuck draining at %s", positions()).isLessThan(5_000);
                time.sleep(random.nextInt(80));
                pollAndCheck();
            }
            if (!offlineLeaders) {
                assertThat(forcedReleases()).as("forced releases without an offline leader").isZero();
            }
        }

        /** @return whether every partition but the dead one was read to its end, and the barrier holds nothing back */
        private boolean drained() {
            if (!consumer.paused().isEmpty()) {
                return false;
            }
            for (TopicPartition tp : consumer.assignment()) {
                if (!tp.equals(dead) && expected.get(tp) < consumer.logSize(tp)) {
                    return false;
                }
            }
            return true;
        }

        private Set<TopicPartition> assignmentFor(Set<Integer> taskIds) {
            Set<TopicPartition> partitions = new HashSet<>();
            for (int p = 0; p < partitionCount; p++) {
                if (taskIds.contains(p % TASKS)) {
                    partitions.add(orders(p));
                }
            }
            return partitions;
        }

        /** A rebalance to the tasks held now: partitions new to this member start at their committed offset. */
        private void reassign() {
            Set<TopicPartition> before = new HashSet<>(consumer.assignment());
            Set<TopicPartition> after = assignmentFor(tasks);
            consumer.rebalance(after);
            for (TopicPartition tp : before) {
                if (!after.contains(tp)) {
                    expected.remove(tp);
                    appPausedUntilPoll.remove(tp);
                }
            }
            for (TopicPartition tp : after) {
                if (!before.contains(tp)) {
                    expected.put(tp, committed(tp));
                }
            }
        }

        private long committed(TopicPartition tp) {
            OffsetAndMetadata committed = consumer.committed(Set.of(tp)).get(tp);
            return committed == null ? 0 : committed.offset();
        }

        private void applicationActs() {
            for (Iterator<Map.Entry<TopicPartition, Integer>> it = appPausedUntilPoll.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<TopicPartition, Integer> pause = it.next();
                if (polls >= pause.getValue()) {
                    consumer.resume(List.of(pause.getKey()));
                    it.remove();
                }
            }
            for (Iterator<Map.Entry<Integer, Integer>> it = revokedTaskBackAtPoll.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Integer, Integer> revoked = it.next();
                if (polls >= revoked.getValue()) {
                    it.remove();
                    tasks.add(revoked.getKey());
                    reassign();
                }
            }
            for (Iterator<Map.Entry<TopicPartition, Long>> it = offlineUntil.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<TopicPartition, Long> offline = it.next();
                if (time.milliseconds() >= offline.getValue()) {
                    consumer.offline.remove(offline.getKey());
                    it.remove();
                }
            }
            List<TopicPartition> assigned = new ArrayList<>(consumer.assignment());
            assigned.sort(PARTITION_ORDER_FOR_TESTS);
            if (assigned.isEmpty()) {
                return;
            }
            TopicPartition tp = assigned.get(random.nextInt(assigned.size()));
            int dice = random.nextInt(100);
            if (dice < 5) {
                seek(tp);
            } else if (dice < 8 && !appPausedUntilPoll.containsKey(tp)) {
                consumer.pause(List.of(tp));
                appPausedUntilPoll.put(tp, polls + 1 + random.nextInt(10));
            } else if (dice < 10 && tasks.size() > 1) {
                int task = tp.partition() % TASKS;
                if (random.nextBoolean()) {
                    consumer.commitSync();
                }
                tasks.remove(task);
                reassign();
                revokedTaskBackAtPoll.put(task, polls + 1 + random.nextInt(20));
            } else if (dice < 11) {
                // An eager rebalance inside the next poll: revoked and assigned again, back at the committed offsets.
                Set<TopicPartition> all = new HashSet<>(consumer.assignment());
                Set<TopicPartition> without = new HashSet<>(all);
                without.removeIf(p -> p.partition() % TASKS == tp.partition() % TASKS);
                consumer.duringPoll = () -> {
                    consumer.rebalance(without);
                    consumer.rebalance(all);
                };
                for (TopicPartition bounced : all) {
                    if (!without.contains(bounced)) {
                        expected.put(bounced, committed(bounced));
                        appPausedUntilPoll.remove(bounced);
                    }
                }
            } else if (dice < 12 && offlineLeaders && !offlineUntil.containsKey(tp)) {
                consumer.offline.add(tp);
                offlineUntil.put(tp, time.milliseconds() + CHURN_MAX_HOLD.toMillis() / 2 + random.nextInt(2 * (int) CHURN_MAX_HOLD.toMillis()));
            }
        }

        private void seek(TopicPartition tp) {
            long position = expected.get(tp);
            long end = consumer.readableEnd(tp);
            long target;
            switch (random.nextInt(5)) {
                case 0:
                    target = (long) random.nextInt((int) position + 1);
                    consumer.seek(tp, target);
                    break;
                case 1:
                    target = position + random.nextInt((int) Math.max(0, end - position) + 1);
                    consumer.seek(tp, target);
                    break;
                case 2:
                    target = committed(tp);
                    consumer.seek(tp, new OffsetAndMetadata(target));
                    break;
                case 3:
                    target = 0;
                    consumer.seekToBeginning(List.of(tp));
                    break;
                default:
                    target = end;
                    consumer.seekToEnd(List.of(tp));
                    break;
            }
            expected.put(tp, target);
            frontier.merge(tp, target, Math::max);
        }

        private void pollAndCheck() {
            consumer.fetchOnly(consumer.assignment().stream().filter(p -> random.nextInt(10) < 7).toArray(TopicPartition[]::new));
            consumer.maxPerPartition = 1 + random.nextInt(random.nextBoolean() ? 4 : 50);
            ConsumerRecords<String, String> records = barrier.poll(POLL_TIMEOUT);
            polls++;
            if (checkOrder && forcedReleases() > 0) {
                assertThat(offlineLeaders).as("a forced release without an offline leader, at poll %d", polls).isTrue();
                checkOrder = false;
            }
            for (ConsumerRecord<String, String> record : records) {
                TopicPartition tp = new TopicPartition(record.topic(), record.partition());
                assertThat(record.offset()).as("next offset of %s at poll %d, time %d", tp, polls, time.milliseconds())
                        .isEqualTo(expected.get(tp));
                expected.put(tp, record.offset() + 1);
                if (record.offset() >= frontier.getOrDefault(tp, 0L)) {
                    frontier.put(tp, record.offset() + 1);
                    int k = Integer.parseInt(record.key().substring(1));
                    int seq = Integer.parseInt(record.value().substring(record.value().indexOf('#') + 1));
                    if (checkOrder) {
                        assertThat(seq).as("first delivery of key %s from %s at poll %d, time %d (last was #%d)",
                                record.key(), tp, polls, time.milliseconds(), lastFirstSeq[k]).isGreaterThan(lastFirstSeq[k]);
                    }
                    lastFirstSeq[k] = Math.max(lastFirstSeq[k], seq);
                }
            }
            for (TopicPartition tp : consumer.assignment()) {
                assertThat(consumer.position(tp)).as("position of %s after poll %d", tp, polls).isEqualTo(expected.get(tp));
            }
            if (random.nextInt(10) < 3) {
                consumer.commitSync();
            }
        }
    }

    /** @return the releases the barrier counted in its metrics, all causes */
    private double forcedReleases() {
        double total = 0;
        for (ReleaseCause cause : ReleaseCause.values()) {
            total += releases(cause);
        }
        return total;
    }

    private static final Comparator<TopicPartition> PARTITION_ORDER_FOR_TESTS =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

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
        /** Partitions whose currentLag throws, as Kafka 4.4.0's consumer does once it dropped them. */
        final Set<TopicPartition> dropped = new HashSet<>();
        /** Partitions whose leader is offline: never fetched, lag unknown. */
        final Set<TopicPartition> offline = new HashSet<>();
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

        int readableEnd(TopicPartition tp) {
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
                if (paused.contains(tp) || offline.contains(tp) || fetchOnly != null && !fetchOnly.contains(tp)) {
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

        /**
         * A revoked partition is no longer paused, as in KafkaConsumer (MockConsumer keeps it in
         * {@code paused()}); a partition without a committed offset starts at 0.
         */
        @Override
        public synchronized void rebalance(Collection<TopicPartition> newAssignment) {
            Set<TopicPartition> revoked = new HashSet<>(assignment());
            revoked.removeAll(newAssignment);
            resume(revoked);
            Map<TopicPartition, Long> beginning = new HashMap<>();
            newAssignment.forEach(tp -> beginning.put(tp, 0L));
            updateBeginningOffsets(beginning);
            super.rebalance(newAssignment);
        }

        /** The end is the readable end, as a broker's high watermark; resolved lazily, as KafkaConsumer does. */
        @Override
        public synchronized void seekToEnd(Collection<TopicPartition> partitions) {
            Map<TopicPartition, Long> ends = new HashMap<>();
            partitions.forEach(tp -> ends.put(tp, (long) readableEnd(tp)));
            updateEndOffsets(ends);
            super.seekToEnd(partitions);
        }

        long logSize(TopicPartition tp) {
            return logs.getOrDefault(tp, List.of()).size();
        }

        @Override
        public synchronized void losePartitions(Collection<TopicPartition> lost) {
            // client-compat runs this test on older kafka-clients too: skip, do not fail, there.
            assumeTrue(Arrays.stream(MockConsumer.class.getMethods()).anyMatch(m -> m.getName().equals("losePartitions")),
                    "MockConsumer.losePartitions came with kafka-clients 4.4: lost partitions are tested on 4.4 only");
            resume(lost);
            super.losePartitions(lost);
        }

        @Override
        public synchronized OptionalLong currentLag(TopicPartition tp) {
            if (dropped.contains(tp)) {
                throw new IllegalStateException("No current assignment for partition " + tp);
            }
            return unknownLag.contains(tp) || offline.contains(tp) ? OptionalLong.empty() : OptionalLong.of(readableEnd(tp) - position(tp));
        }

        @Override
        public ConsumerGroupMetadata groupMetadata() {
            return group;
        }
    }
}
