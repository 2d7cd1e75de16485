package io.kscale.assignor.internals.placement;

import static io.kscale.assignor.internals.placement.PlacementFixtures.A;
import static io.kscale.assignor.internals.placement.PlacementFixtures.ACCEPTABLE_LAG;
import static io.kscale.assignor.internals.placement.PlacementFixtures.B;
import static io.kscale.assignor.internals.placement.PlacementFixtures.C;
import static io.kscale.assignor.internals.placement.PlacementFixtures.client;
import static io.kscale.assignor.internals.placement.PlacementFixtures.stateful;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link RestoreRateLearner}: the rate it measures from lags at successive rebalances (leader's
 * clock only), the measuring follow-up without history, and the back-off that bounds idle
 * follow-ups. Each test drives a small restore model ({@link Scale}): A runs every task, B joins
 * and restores its copies at a rate the test sets, shared by the copies it restores at once.
 */
class RestoreRateLearnerTest {

    private static final PlacementSettings SETTINGS = PlacementSettings.defaults();
    private static final Duration MEASURE = Duration.ofSeconds(30);
    private static final Duration PROBE = PlacementSettings.DEFAULT_PROBING_INTERVAL;
    private static final long START_MS = 1_700_000_000_000L;

    @Test
    void shouldMeasureFirstThenFollowUpWhenTheWorkedExamplePredicts() {
        // The class comment's example: copies lagging 310,000 and 1,010,000 at 5,000 records/s.
        Scale scale = new Scale(new RestoreRateLearner(), 310_000, 1_010_000).restoringAt(5_000);

        assertThat(scale.rebalance()).as("no history: measure").isEqualTo(MEASURE);
        scale.advance(30);
        assertThat(scale.lagsOfB()).containsExactly(235_000L, 935_000L);
        assertThat(scale.rebalance()).as("2 x 225,000 / 5,000").isEqualTo(Duration.ofSeconds(90));
        scale.advance(90);
        scale.rebalance();
        assertThat(scale.activeOnB()).as("caught up when predicted, and moved").containsExactly("t00");
    }

    @Test
    void shouldPredictLikeAConfiguredRateOnceMeasured() {
        Scale learned = new Scale(new RestoreRateLearner(), 2_000_000, 2_000_000).restoringAt(8_000);
        learned.rebalance();
        learned.advance(30);
        Duration predicted = learned.rebalance();

        Placement told = new PlacementEngine().place(learned.request(PlacementSettings.builder()
                .restoreRecordsPerSecond(8_000).build()));

        assertThat(told.followUp().delay()).contains(predicted);
    }

    @Test
    void shouldBackOffAndThenWaitForTheProbingIntervalWhenTheLagsDoNotMove() {
        // A stalled restore: B restores nothing. Each idle follow-up doubles the measuring delay;
        // after three, B's copies wait for the probing interval, as with the built-in.
        Scale scale = new Scale(new RestoreRateLearner(), 500_000, 500_000).restoringAt(0);

        List<Duration> delays = scale.followUps(6);

        assertThat(delays).containsExactly(MEASURE, MEASURE.multipliedBy(2), MEASURE.multipliedBy(4), PROBE, PROBE, PROBE);
    }

    @Test
    void shouldTellItsLearnedRatesInItsSnapshotForMetrics() {
        // The metrics of the Streams assignor read the snapshot: NaN until a rate is measured.
        Scale scale = new Scale(new RestoreRateLearner(), 310_000, 1_010_000).restoringAt(5_000);
        assertThat(scale.learner.snapshot().ratedClients()).isZero();
        assertThat(scale.learner.snapshot().minRate()).isNaN();

        scale.rebalance();
        RestoreRateLearner.Snapshot measuring = scale.learner.snapshot();
        scale.advance(30);
        scale.rebalance();
        RestoreRateLearner.Snapshot measured = scale.learner.snapshot();

        assertThat(measuring.ratedClients()).as("no rate before the measuring follow-up").isZero();
        assertThat(measuring.maxRate()).isNaN();
        assertThat(measured.ratedClients()).as("B; A restores nothing").isEqualTo(1);
        assertThat(measured.minRate()).isEqualTo(5_000.0);
        assertThat(measured.maxRate()).isEqualTo(5_000.0);
        assertThat(measured.backedOffClients()).isZero();
    }

    @Test
    void shouldTellTheBackOffInItsSnapshotForMetrics() {
        Scale scale = new Scale(new RestoreRateLearner(), 500_000, 500_000).restoringAt(0);

        scale.followUps(3);
        RestoreRateLearner.Snapshot beforeBackOff = scale.learner.snapshot();
        scale.followUps(1);
        RestoreRateLearner.Snapshot backedOff = scale.learner.snapshot();

        assertThat(beforeBackOff.maxIdleFollowUps()).isEqualTo(RestoreRateLearner.MAX_IDLE_FOLLOW_UPS - 1);
        assertThat(beforeBackOff.backedOffClients()).isZero();
        assertThat(backedOff.maxIdleFollowUps()).isEqualTo(RestoreRateLearner.MAX_IDLE_FOLLOW_UPS);
        assertThat(backedOff.backedOffClients()).as("B's copies wait for the probing interval").isEqualTo(1);
        assertThat(backedOff.ratedClients()).as("a stalled restore gives no rate").isZero();
    }

    @Test
    void shouldNotPredictFromLagsThatGrowBecauseTheInputIsFasterThanTheRestore() {
        // B restores 2,000 records/s, shared by two copies, while each changelog grows 1,500/s:
        // each copy falls 500 records/s further behind. No rate to predict from, and no storm.
        Scale scale = new Scale(new RestoreRateLearner(), 500_000, 500_000).restoringAt(2_000).writing(1_500);

        List<Duration> delays = scale.followUps(5);

        assertThat(delays).containsExactly(MEASURE, MEASURE.multipliedBy(2), MEASURE.multipliedBy(4), PROBE, PROBE);
        assertThat(scale.lagsOfB().get(0)).isGreaterThan(500_000L);
    }

    @Test
    void shouldBackOffWhenTheRestoreOfAnOrphanStallsWhileItHoldsWarmupsBack() {
        // A runs a00..a03; the owner of d00 crashed and fresh E restores it as active, so E's
        // warmups wait and the follow-up waits for d00. d00's lag does not move: the follow-ups
        // back off to the probing interval as for a stalled warmup.
        RestoreRateLearner learner = new RestoreRateLearner();
        List<TaskDescription> tasks = PlacementFixtures.concat(stateful("a", 4), stateful("d", 1));
        long orphan = ACCEPTABLE_LAG + 1_000_000;
        ClientDescription.Builder e = client(PlacementFixtures.E).lag("d00", orphan);
        PlacementFixtures.ids("a", 4).forEach(task -> e.lag(task, orphan));
        PlacementRequest request = PlacementRequest.of(tasks, List.of(client(A).priorActive(PlacementFixtures.ids("a", 4))
                .lag("d00", orphan).build(), e.build()), SETTINGS);
        List<Duration> delays = new ArrayList<>();
        long now = START_MS;
        for (int i = 0; i < 5; i++) {
            PlacementRequest learned = learner.learn(request, now);
            Placement placement = PlacementFixtures.place(learned);
            learner.remember(learned, placement, now);
            assertThat(placement.client(PlacementFixtures.E).active()).containsExactly("d00");
            assertThat(placement.client(PlacementFixtures.E).warmup()).isEmpty();
            Duration delay = placement.followUp().delay().orElseThrow();
            delays.add(delay);
            now += delay.toMillis();
            ClientDescription.Builder stalled = client(PlacementFixtures.E).priorActive("d00").lag("d00", orphan);
            PlacementFixtures.ids("a", 4).forEach(task -> stalled.lag(task, orphan));
            request = PlacementRequest.of(tasks, List.of(client(A).priorActive(PlacementFixtures.ids("a", 4))
                    .lag("d00", orphan).build(), stalled.build()), SETTINGS);
        }

        assertThat(delays).containsExactly(MEASURE, MEASURE.multipliedBy(2), MEASURE.multipliedBy(4), PROBE, PROBE);
    }

    @Test
    void shouldRecoverOnceAStalledRestoreMovesAgain() {
        Scale scale = new Scale(new RestoreRateLearner(), 500_000, 500_000).restoringAt(0);
        scale.followUps(2);

        scale.restoringAt(10_000);
        scale.advance(1);
        scale.rebalance(); // 1 s of restore in 61 s measured: a low rate, the probing interval
        scale.advance(30);

        assertThat(scale.rebalance()).as("from the rate now").isEqualTo(expected(scale, 10_000));
    }

    @Test
    void shouldMeasureAgainWhenTheLeaderChangesMidScaleOut() {
        // The first leader measured and predicted; it leaves, and the new leader's JVM starts
        // without history: it measures first, then predicts from its own measurement.
        Scale scale = new Scale(new RestoreRateLearner(), 1_000_000, 1_000_000).restoringAt(5_000);
        scale.rebalance();
        scale.advance(30);
        assertThat(scale.rebalance()).as("2 x (925,000 - 10,000) / 5,000").isEqualTo(Duration.ofSeconds(366));
        scale.advance(60);

        scale.newLeader(new RestoreRateLearner());

        assertThat(scale.rebalance()).as("history lost: measure").isEqualTo(MEASURE);
        scale.advance(30);
        assertThat(scale.rebalance()).isEqualTo(expected(scale, 5_000));
    }

    @Test
    void shouldFollowARateThatChanges() {
        Scale scale = new Scale(new RestoreRateLearner(), 3_000_000, 3_000_000).restoringAt(10_000);
        scale.rebalance();
        scale.advance(30);
        scale.rebalance();

        // The instance slows down to a fifth (another workload on its disk): the next follow-up,
        // predicted from 10,000 records/s, comes too early and measures 2,000 records/s.
        scale.restoringAt(2_000);
        scale.advance(60);
        Duration afterSlowdown = scale.rebalance();

        assertThat(afterSlowdown).isEqualTo(PROBE.compareTo(expected(scale, 2_000)) < 0 ? PROBE : expected(scale, 2_000));
        scale.restoringAt(20_000);
        scale.advance(60);
        assertThat(scale.rebalance()).isEqualTo(expected(scale, 20_000));
    }

    @Test
    void shouldCostAtMostOneIdleFollowUpWhenTheMeasuredRateWasTooHigh() {
        // The measuring interval saw a burst (B restored 20,000/s), then B restores 5,000/s.
        Scale scale = new Scale(new RestoreRateLearner(), 1_500_000, 1_500_000).restoringAt(20_000);
        scale.rebalance();
        scale.advance(30);
        scale.restoringAt(5_000);

        // Predicted from 20,000/s: 2 x 1,190,000 / 20,000 = 119 s, too early; that follow-up
        // measures 5,000/s, and the next one, 2 x 892,500 / 5,000 = 357 s later, moves both.
        assertThat(scale.rebalance()).isEqualTo(Duration.ofSeconds(119));
        scale.advance(119);
        assertThat(scale.rebalance()).isEqualTo(Duration.ofSeconds(357));
        assertThat(scale.activeOnB()).as("idle").isEmpty();
        assertThat(scale.learner.idleFollowUps(B)).isEqualTo(1);
        scale.advance(357);
        scale.rebalance();
        assertThat(scale.activeOnB()).containsExactly("t00", "t01");
        assertThat(scale.learner.idleFollowUps(B)).isZero();
    }

    @Test
    void shouldUseOnlyTheLeadersClockWhateverTheMembersClocksSay() {
        // B's clock runs 18 s ahead: it asks for the 30 s measuring follow-up after 12 s of the
        // leader's time. The rate comes from those 12 s, so the prediction is right; a member
        // whose clock is behind (here 40 s of leader time) gives the same prediction.
        Scale early = new Scale(new RestoreRateLearner(), 1_000_000, 1_000_000).restoringAt(5_000);
        Scale late = new Scale(new RestoreRateLearner(), 1_000_000, 1_000_000).restoringAt(5_000);
        early.rebalance();
        late.rebalance();

        early.advance(12);
        late.advance(40);

        assertThat(early.rebalance()).isEqualTo(expected(early, 5_000));
        assertThat(late.rebalance()).isEqualTo(expected(late, 5_000));
        assertThat(early.learner.idleFollowUps(B)).as("an early follow-up is not an idle one").isZero();
    }

    @Test
    void shouldNotMeasureCopiesThatChangedHands() {
        // Between two rebalances of this leader, B lost its copies (restarted on an empty disk):
        // the lags went up, which says nothing about B's rate. B is measured again.
        Scale scale = new Scale(new RestoreRateLearner(), 1_000_000, 1_000_000).restoringAt(5_000);
        scale.rebalance();
        scale.advance(30);
        scale.loseStateOfB();

        assertThat(scale.rebalance()).isEqualTo(MEASURE);
    }

    @Test
    void shouldLeaveTheRequestAsItIsWhenTheSettingsCarryARate() {
        RestoreRateLearner learner = new RestoreRateLearner();
        PlacementSettings configured = PlacementSettings.builder().restoreRecordsPerSecond(5_000).build();
        PlacementRequest request = new Scale(learner, 100_000, 100_000).request(configured);

        assertThat(learner.learn(request, START_MS)).isSameAs(request);
    }

    @Test
    void shouldForgetClientsThatLeftTheGroup() {
        RestoreRateLearner learner = new RestoreRateLearner();
        List<TaskDescription> tasks = stateful("t", 2);
        PlacementRequest three = PlacementRequest.of(tasks, List.of(client(A).priorActive("t00", "t01").build(),
                client(B).build(), client(C).build()), SETTINGS);
        learner.remember(learner.learn(three, START_MS), new PlacementEngine().place(three), START_MS);
        assertThat(learner.size()).isEqualTo(3);

        PlacementRequest two = PlacementRequest.of(tasks, List.of(client(A).priorActive("t00", "t01").build(),
                client(B).build()), SETTINGS);
        learner.learn(two, START_MS + 1_000);

        assertThat(learner.size()).isEqualTo(2);
    }

    @Test
    void shouldGiveAMeasuringDelayOfATenthOfTheProbingIntervalWithinItsBounds() {
        assertThat(RestoreRateLearner.measuringDelay(SETTINGS)).isEqualTo(MEASURE);
        assertThat(RestoreRateLearner.measuringDelay(PlacementSettings.builder().probingInterval(Duration.ofMinutes(1))
                .build())).as("at least the minimum follow-up delay").isEqualTo(Duration.ofSeconds(10));
        assertThat(RestoreRateLearner.measuringDelay(PlacementSettings.builder().probingInterval(Duration.ofMinutes(4))
                .build())).isEqualTo(Duration.ofSeconds(24));
    }

    /** The follow-up predicted for B's first copy at a rate, shared by its two copies. */
    private static Duration expected(Scale scale, long rate) {
        long seconds = WarmupPlanner.catchUpSeconds(scale.lagsOfB().get(0), ACCEPTABLE_LAG, scale.copiesOfB(), rate);
        return Duration.ofSeconds(Math.max(10, Math.min(PROBE.getSeconds(), seconds)));
    }

    /**
     * A scale-out in miniature: A runs tasks t00..t03 (caught up, no writes unless
     * {@link #writing}); B joins and is the target of two moves. B restores its copies at
     * {@link #restoringAt} records/s shared evenly, one simulated second at a time; the leader's
     * clock is {@code START_MS} plus the simulated seconds.
     */
    private static final class Scale {
        private RestoreRateLearner learner;
        private final List<TaskDescription> tasks = stateful("t", 4);
        private final long[] lagOfB;
        private Set<String> activeOfB = new TreeSet<>();
        private Set<String> copiesOfB = new TreeSet<>();
        private long rate;
        private long writes;
        private long seconds;

        Scale(RestoreRateLearner learner, long firstLag, long otherLags) {
            this.learner = learner;
            this.lagOfB = new long[] {firstLag, otherLags, otherLags, otherLags};
        }

        Scale restoringAt(long recordsPerSecond) {
            this.rate = recordsPerSecond;
            return this;
        }

        Scale writing(long recordsPerSecond) {
            this.writes = recordsPerSecond;
            return this;
        }

        void newLeader(RestoreRateLearner next) {
            this.learner = next;
        }

        PlacementRequest request(PlacementSettings settings) {
            Set<String> activeOfA = new TreeSet<>(PlacementFixtures.ids(tasks));
            activeOfA.removeAll(activeOfB);
            ClientDescription.Builder b = client(B).capacity(1).priorActive(activeOfB).priorStandby(copiesOfB);
            for (int t = 0; t < tasks.size(); t++) {
                if (!activeOfB.contains(id(t))) {
                    b.lag(id(t), lagOfB[t]);
                }
            }
            return PlacementRequest.of(tasks, List.of(client(A).capacity(1).priorActive(activeOfA).build(), b.build()),
                    settings);
        }

        /** One rebalance at the current time; returns the follow-up delay (empty: none wanted, as null). */
        Duration rebalance() {
            long now = START_MS + seconds * 1_000;
            PlacementRequest learned = learner.learn(request(SETTINGS), now);
            Placement placement = PlacementFixtures.place(learned);
            learner.remember(learned, placement, now);
            activeOfB = new TreeSet<>(placement.client(B).active());
            copiesOfB = new TreeSet<>(placement.client(B).warmup());
            copiesOfB.addAll(placement.client(B).standby());
            return placement.followUp().delay().orElse(null);
        }

        /** Rebalances at each follow-up, n times; returns the delays. */
        List<Duration> followUps(int n) {
            List<Duration> delays = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Duration delay = rebalance();
                delays.add(delay);
                advance(delay.getSeconds());
            }
            return delays;
        }

        void advance(long s) {
            for (long i = 0; i < s; i++) {
                List<Integer> behind = new ArrayList<>();
                for (int t = 0; t < tasks.size(); t++) {
                    if (copiesOfB.contains(id(t)) && lagOfB[t] > 0) {
                        behind.add(t);
                    }
                }
                for (int t = 0; t < tasks.size(); t++) {
                    if (!activeOfB.contains(id(t))) {
                        lagOfB[t] += writes;
                    }
                }
                for (int t : behind) {
                    lagOfB[t] = Math.max(0, lagOfB[t] - rate / behind.size());
                }
                seconds++;
            }
        }

        void loseStateOfB() {
            copiesOfB = new TreeSet<>();
            java.util.Arrays.fill(lagOfB, 1_200_000);
        }

        /** B's lags on the copies it holds, in task order. */
        List<Long> lagsOfB() {
            Map<String, Long> lags = new TreeMap<>();
            copiesOfB.forEach(task -> lags.put(task, lagOfB[Integer.parseInt(task.substring(1))]));
            return new ArrayList<>(lags.values());
        }

        int copiesOfB() {
            return copiesOfB.size();
        }

        Set<String> activeOnB() {
            return activeOfB;
        }

        private static String id(int t) {
            return String.format("t%02d", t);
        }
    }
}
