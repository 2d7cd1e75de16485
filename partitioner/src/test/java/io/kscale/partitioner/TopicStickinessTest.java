package io.kscale.partitioner;

import static io.kscale.partitioner.StickyFixtures.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.partitioner.StickyFixtures.Closed;
import io.kscale.partitioner.StickyFixtures.Ledger;
import io.kscale.partitioner.StickyFixtures.StintLog;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Examples of the pure algorithm, one behaviour each; the properties generalise them. */
class TopicStickinessTest {

    private static final long SEED = 42;

    private final StintLog log = new StintLog();
    private final Ledger ledger = new Ledger();

    private int send(TopicStickiness stickiness, PartitionView view, long bytes) {
        int partition = stickiness.partition(bytes, view);
        ledger.add(partition, bytes);
        return partition;
    }

    @Test
    void shouldSwitchAfterStickyBytes() {
        PartitionView view = PartitionView.allAvailable(3);
        TopicStickiness stickiness = new TopicStickiness(100, SEED, view, log);
        int first = send(stickiness, view, 30);
        assertThat(send(stickiness, view, 30)).isEqualTo(first);
        assertThat(send(stickiness, view, 30)).isEqualTo(first);
        assertThat(log.inOrder()).as("90 of 100 bytes: still sticky").isEmpty();

        assertThat(send(stickiness, view, 30)).as("the record that reaches N is the stint's last").isEqualTo(first);
        assertThat(log.inOrder()).singleElement()
                .satisfies(stint -> assertThat(stint.bytes()).isEqualTo(120))
                .satisfies(stint -> assertThat(stint.partition()).isEqualTo(first));
        assertThat(send(stickiness, view, 30)).isNotEqualTo(first);
    }

    @Test
    void shouldCarryOvershootIntoNextStint() {
        PartitionView view = PartitionView.allAvailable(3);
        TopicStickiness stickiness = new TopicStickiness(100, SEED, view, log);
        for (int i = 0; i < 4 * 3 + 3 * 3 + 3 * 3; i++) {
            send(stickiness, view, 30);
        }
        List<Closed> stints = log.assertValid(100, 30, true);
        // Round 1: 4 records (120) each, carry 20; round 2: target 80, 3 records (90), carry 10;
        // round 3: target 90, 3 records (90), carry 0. Totals after each round: 120, 210, 300.
        assertThat(stints).extracting(Closed::target).containsExactly(100L, 100L, 100L, 80L, 80L, 80L, 90L, 90L, 90L);
        assertThat(stints).extracting(Closed::bytes).containsExactly(120L, 120L, 120L, 90L, 90L, 90L, 90L, 90L, 90L);
        assertThat(ledger.totals(3)).containsExactly(300, 300, 300);
    }

    @Test
    void shouldVisitEveryPartitionOncePerRound() {
        PartitionView view = PartitionView.allAvailable(7);
        TopicStickiness stickiness = new TopicStickiness(50, SEED, view, log);
        for (int i = 0; i < 7 * 20 * 5; i++) {
            send(stickiness, view, 10);
        }
        List<Closed> stints = log.assertValid(50, 10, true);
        for (int round = 0; round + 7 <= stints.size(); round += 7) {
            Set<Integer> visited = new HashSet<>();
            stints.subList(round, round + 7).forEach(stint -> visited.add(stint.partition()));
            assertThat(visited).as("round starting at stint %d", round).hasSize(7);
        }
        assertThat(ledger.totals(7)).containsOnly(ledger.total(0));
    }

    @Test
    void shouldShuffleEveryRoundAnew() {
        PartitionView view = PartitionView.allAvailable(5);
        TopicStickiness stickiness = new TopicStickiness(10, SEED, view, log);
        for (int i = 0; i < 5 * 40; i++) {
            send(stickiness, view, 10);
        }
        List<Closed> stints = log.assertValid(10, 10, true);
        Set<List<Integer>> orders = new HashSet<>();
        for (int round = 0; round + 5 <= stints.size(); round += 5) {
            List<Integer> order = new ArrayList<>();
            stints.subList(round, round + 5).forEach(stint -> order.add(stint.partition()));
            orders.add(order);
        }
        assertThat(orders).as("distinct round orders among 40 rounds").hasSizeGreaterThan(10);
    }

    @Test
    void shouldStartDifferentTopicsOrProducersDifferently() {
        PartitionView view = PartitionView.allAvailable(16);
        Set<Integer> firstPartitions = new HashSet<>();
        for (long seed = 0; seed < 64; seed++) {
            firstPartitions.add(new TopicStickiness(100, seed, view, TopicStickiness.SwitchListener.NONE).currentPartition());
        }
        assertThat(firstPartitions).hasSizeGreaterThan(8);
    }

    @Test
    void shouldStayOnTheOnlyPartition() {
        PartitionView view = PartitionView.allAvailable(1);
        TopicStickiness stickiness = new TopicStickiness(100, SEED, view, log);
        for (int i = 0; i < 1000; i++) {
            assertThat(send(stickiness, view, 37)).isZero();
        }
        assertThat(log.assertValid(100, 37, false)).as("37000 bytes in stints of 100 with carries").hasSize(370);
    }

    @Test
    void shouldSkipPartitionsAWholeStintAheadWhenRecordsExceedStickyBytes() {
        PartitionView view = PartitionView.allAvailable(4);
        TopicStickiness stickiness = new TopicStickiness(10, SEED, view, log);
        long[] sizes = {25, 3, 70, 1, 12, 40};
        for (int i = 0; i < 6000; i++) {
            send(stickiness, view, sizes[i % sizes.length]);
            ledger.assertUniform(10, range(0, 4), "after record " + i);
        }
        log.assertValid(10, 70, true);
    }

    @Test
    void shouldStayUniformWithOneByteStints() {
        PartitionView view = PartitionView.allAvailable(3);
        TopicStickiness stickiness = new TopicStickiness(1, SEED, view, log);
        for (int i = 0; i < 3000; i++) {
            send(stickiness, view, 1 + (i * 7919L) % 500);
            ledger.assertUniform(1, range(0, 3), "after record " + i);
        }
        log.assertValid(1, 500, true);
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS) // without the take-over the next record would wait forever
    void shouldLetTheNextRecordTakeOverAFailedSwitch() {
        PartitionView view = PartitionView.allAvailable(3);
        AtomicBoolean failNext = new AtomicBoolean(true);
        TopicStickiness stickiness = new TopicStickiness(100, SEED, view, (closed, next) -> {
            if (failNext.getAndSet(false)) {
                throw new OutOfMemoryError("injected: the switch fails as if out of memory");
            }
            log.onSwitch(closed, next);
        });
        int first = send(stickiness, view, 60);
        assertThatThrownBy(() -> stickiness.partition(60, view))
                .as("the record that closes the stint gets the switch's error")
                .isInstanceOf(OutOfMemoryError.class);
        assertThat(stickiness.currentPartition()).as("still the closed stint").isEqualTo(first);

        int second = send(stickiness, view, 30);
        assertThat(second).as("the next record took the switch over").isNotEqualTo(first);
        assertThat(log.inOrder()).singleElement().satisfies(stint -> {
            assertThat(stint.partition()).isEqualTo(first);
            assertThat(stint.bytes()).as("the failed record is counted in the stint it closed").isEqualTo(120);
        });
        assertThat(stickiness.switchCount()).isEqualTo(1);
        assertThat(stickiness.current().bytes()).isEqualTo(30);
    }

    @Test
    void shouldRejectStickyBytesBelowOne() {
        PartitionView view = PartitionView.allAvailable(3);
        assertThatThrownBy(() -> new TopicStickiness(0, SEED, view, log))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1, got 0");
    }

    @Test
    void shouldRejectViewWithoutPartitions() {
        assertThatThrownBy(() -> PartitionView.of(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one partition, got 0");
    }
}
