package io.kscale.assignor.internals.placement;

import static io.kscale.assignor.internals.placement.PlacementFixtures.A;
import static io.kscale.assignor.internals.placement.PlacementFixtures.ACCEPTABLE_LAG;
import static io.kscale.assignor.internals.placement.PlacementFixtures.B;
import static io.kscale.assignor.internals.placement.PlacementFixtures.C;
import static io.kscale.assignor.internals.placement.PlacementFixtures.client;
import static io.kscale.assignor.internals.placement.PlacementFixtures.place;
import static io.kscale.assignor.internals.placement.PlacementFixtures.request;
import static io.kscale.assignor.internals.placement.PlacementFixtures.stateful;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Examples of the follow-up rule documented on {@link Placement#followUp()}. */
class FollowUpTest {

    private static final long RATE = 1_000;

    private static PlacementSettings.Builder withRate() {
        return PlacementSettings.builder().restoreRecordsPerSecond(RATE);
    }

    /** A owns t00-t03; B and C warm up one task each, with the given lags. */
    private static Placement warmingUp(PlacementSettings settings, long lagOnB, long lagOnC) {
        return place(request(stateful("t", 3), settings,
                client(A).priorActive("t00", "t01", "t02").build(),
                client(B).priorStandby("t00").lag("t00", lagOnB).build(),
                client(C).priorStandby("t01").lag("t01", lagOnC).build()));
    }

    @Test
    void shouldFollowUpWhenTheClosestWarmupIsPredictedToCatchUp() {
        Placement placement = warmingUp(withRate().build(), ACCEPTABLE_LAG + 30 * RATE, ACCEPTABLE_LAG + 120 * RATE);

        assertThat(placement.client(B).warmup()).containsExactly("t00");
        assertThat(placement.client(C).warmup()).containsExactly("t01");
        assertThat(placement.followUp()).isEqualTo(FollowUp.after(Duration.ofSeconds(30)));
    }

    @Test
    void shouldShareAClientsRestoreRateAmongTheCopiesItRestoresAtOnce() {
        Placement placement = place(request(stateful("t", 4), withRate().build(),
                client(A).priorActive("t00", "t01", "t02", "t03").build(),
                client(B).priorStandby("t00", "t01").lag("t00", ACCEPTABLE_LAG + 30 * RATE)
                        .lag("t01", ACCEPTABLE_LAG + 30 * RATE).build()));

        assertThat(placement.client(B).warmup()).containsExactly("t00", "t01");
        assertThat(placement.followUp()).as("two copies at half the rate each")
                .isEqualTo(FollowUp.after(Duration.ofSeconds(60)));
    }

    @Test
    void shouldRoundThePredictionUpToWholeSeconds() {
        Placement placement = warmingUp(withRate().minFollowUpDelay(Duration.ZERO).build(),
                ACCEPTABLE_LAG + 1, ACCEPTABLE_LAG + 120 * RATE);

        assertThat(placement.followUp()).isEqualTo(FollowUp.after(Duration.ofSeconds(1)));
    }

    @Test
    void shouldNotFollowUpSoonerThanTheMinimumDelay() {
        Placement placement = warmingUp(withRate().minFollowUpDelay(Duration.ofSeconds(45)).build(),
                ACCEPTABLE_LAG + 30 * RATE, ACCEPTABLE_LAG + 120 * RATE);

        assertThat(placement.followUp()).isEqualTo(FollowUp.after(Duration.ofSeconds(45)));
    }

    @Test
    void shouldNotWaitLongerThanTheProbingInterval() {
        Placement placement = warmingUp(withRate().probingInterval(Duration.ofMinutes(1)).build(),
                ACCEPTABLE_LAG + 3600 * RATE, ACCEPTABLE_LAG + 7200 * RATE);

        assertThat(placement.followUp()).isEqualTo(FollowUp.after(Duration.ofMinutes(1)));
    }

    @Test
    void shouldWaitTheProbingIntervalWhenTheRestoreRateIsUnknown() {
        Placement placement = warmingUp(PlacementSettings.defaults(), ACCEPTABLE_LAG + 1, ACCEPTABLE_LAG + 2);

        assertThat(placement.followUp()).isEqualTo(FollowUp.after(PlacementSettings.DEFAULT_PROBING_INTERVAL));
    }

    @Test
    void shouldNotFollowUpWhenNothingIsCatchingUp() {
        Placement placement = place(request(stateful("t", 2), client(A).priorActive("t00").build(),
                client(B).priorActive("t01").build()));

        assertThat(placement.outcome()).isEqualTo(PlacementOutcome.COMPLETE);
        assertThat(placement.followUp()).isEqualTo(FollowUp.none());
        assertThat(placement.followUp().delay()).isEmpty();
    }

    @Test
    void shouldNotFollowUpWhenMovesWaitForABudgetOfZero() {
        PlacementSettings noWarmups = PlacementSettings.builder().maxWarmups(0).build();
        Placement placement = place(request(stateful("t", 2), noWarmups, client(A).priorActive("t00", "t01").build(),
                client(B).build()));

        assertThat(placement.outcome()).isEqualTo(PlacementOutcome.CONVERGING);
        assertThat(placement.deferredMoves()).isEqualTo(1);
        assertThat(placement.followUp()).isEqualTo(FollowUp.none());
    }
}
