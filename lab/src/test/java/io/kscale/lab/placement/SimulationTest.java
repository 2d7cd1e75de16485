package io.kscale.lab.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SimulationTest {

    /*
     * Hand-checked: 0_0 and 0_1 (50,000 records each, no writes) on c01; c02 joins; both restore
     * 10,000 records/s; acceptable lag 10,000, 2 warmups, probing every 600 s. Balance needs one
     * move. kscale warms one task up on c02 and, told the rate, follows up after
     * (50,000 - 10,000) / 10,000 = 4 s, raised to its 10 s minimum; by then the copy has caught up
     * (5 s) and moves. Kafka's assignor (and kscale without the rate) warm up the same way and
     * look again after the 600 s probing interval.
     */

    @Test
    void shouldMoveOneTaskAfterItsWarmupCaughtUpAtTheFollowUpKscaleAskedFor() {
        PhaseResult result = onlyPhase(new KscaleSimAssignor(KscaleSimAssignor.Rate.GIVEN));

        assertThat(result.rebalances()).isEqualTo(2);
        assertThat(result.idleRebalances()).isZero();
        assertThat(result.roundsToBalance()).isEqualTo(OptionalInt.of(2));
        assertThat(result.secondsToBalance()).isEqualTo(OptionalLong.of(10));
        assertThat(result.totals()).isEqualTo(new World.Totals(0, 0, 50_000, 1, 1));
    }

    @Test
    void shouldFollowUpWhenCopiesSharingAClientsRateHaveCaughtUp() {
        // 4 tasks of 150,000 records on c01; c02 joins and warms up 2 at once, sharing its 10,000
        // records/s. kscale predicts 2 x (150,000 - 10,000) / 10,000 = 28 s: both copies are then
        // within the acceptable lag and move at that follow-up, none comes early. (Predicting from
        // the full rate, as the engine first did, took 4 rebalances, 2 of them idle, and 34 s.)
        PhaseResult result = Simulation.run(SimFixtures.secondClientJoins(4, 150_000), new KscaleSimAssignor(KscaleSimAssignor.Rate.GIVEN)).get(0);

        assertThat(result.rebalances()).isEqualTo(2);
        assertThat(result.idleRebalances()).isZero();
        assertThat(result.secondsToBalance()).isEqualTo(OptionalLong.of(28));
        assertThat(result.totals().moves()).isEqualTo(2);
    }

    @Test
    void shouldMoveOneTaskAtTheProbingRebalanceWithKafkasAssignor() {
        PhaseResult result = onlyPhase(new HighAvailabilitySimAssignor());

        assertThat(result.rebalances()).isEqualTo(2);
        assertThat(result.roundsToBalance()).isEqualTo(OptionalInt.of(2));
        assertThat(result.secondsToBalance()).isEqualTo(OptionalLong.of(600));
        assertThat(result.totals()).isEqualTo(new World.Totals(0, 0, 50_000, 1, 1));
    }

    @Test
    void shouldFollowUpAfterTheProbingIntervalWhenKscaleIsNotToldTheRate() {
        PhaseResult result = onlyPhase(new KscaleSimAssignor(KscaleSimAssignor.Rate.UNKNOWN));

        assertThat(result.roundsToBalance()).isEqualTo(OptionalInt.of(2));
        assertThat(result.secondsToBalance()).isEqualTo(OptionalLong.of(600));
        assertThat(result.totals().moves()).isEqualTo(1);
    }

    @Test
    void shouldMeasureOnceAndThenPromoteWhenTheLearnedRatePredictsLikeTheGivenOne() {
        // 4 tasks of 1,000,000 records on c01; c02 (10,000 records/s) joins and warms up two.
        // Learned: the first follow-up measures after 30 s (each copy 850,000 behind: 10,000/s
        // shared by two), the next comes 2 x 840,000 / 10,000 = 168 s later, when both have
        // caught up. Told the rate: 2 x 990,000 / 10,000 = 198 s at once. Same time, one more
        // (idle) rebalance.
        PlacementScenario scenario = SimFixtures.secondClientJoins(4, 1_000_000);
        PhaseResult learned = Simulation.run(scenario, new KscaleSimAssignor(KscaleSimAssignor.Rate.LEARNED)).get(0);
        PhaseResult given = Simulation.run(scenario, new KscaleSimAssignor(KscaleSimAssignor.Rate.GIVEN)).get(0);

        assertThat(learned.secondsToBalance()).isEqualTo(OptionalLong.of(198));
        assertThat(learned.rebalances()).isEqualTo(3);
        assertThat(learned.idleRebalances()).isEqualTo(1);
        assertThat(given.secondsToBalance()).isEqualTo(OptionalLong.of(198));
        assertThat(given.rebalances()).isEqualTo(2);
    }

    @Test
    void shouldStartEachRunWithoutTheHistoryOfTheLast() {
        KscaleSimAssignor assignor = new KscaleSimAssignor(KscaleSimAssignor.Rate.LEARNED);
        PlacementScenario scenario = SimFixtures.secondClientJoins(4, 1_000_000);

        PhaseResult first = Simulation.run(scenario, assignor).get(0);
        PhaseResult second = Simulation.run(scenario, assignor).get(0);

        assertThat(second).isEqualTo(first);
    }

    @Test
    void shouldCountDowntimeWhenAnAssignorMovesActiveTasksToAClientWithoutState() {
        PhaseResult result = Simulation.run(SimFixtures.secondClientJoins(20_000), SimFixtures.EVERYTHING_ON_THE_NEWEST)
                .get(0);

        // Both tasks restore on c02 at 5,000 records/s each: 4 s each, while c01 was caught up.
        assertThat(result.totals()).isEqualTo(new World.Totals(8, 8, 40_000, 2, 0));
        // Everything on one of two clients is not balanced.
        assertThat(result.roundsToBalance()).isEmpty();
    }

    @Test
    void shouldPrintTheSameTableTwiceForASeed() {
        SimSettings settings = PlacementScenarios.streamsDefaults();
        List<String> names = List.of("scale-out-1-3", "random-standby");

        String first = table(PlacementScenarios.of(names, 42, settings));
        String again = table(PlacementScenarios.of(names, 42, settings));
        String otherSeed = table(PlacementScenarios.of(names, 43, settings));

        assertThat(again).isEqualTo(first);
        assertThat(otherSeed).isNotEqualTo(first);
    }

    private static PhaseResult onlyPhase(SimAssignor assignor) {
        List<PhaseResult> phases = Simulation.run(SimFixtures.secondClientJoins(50_000), assignor);
        assertThat(phases).hasSize(1);
        return phases.get(0);
    }

    private static String table(List<PlacementScenario> scenarios) {
        List<PhaseResult> results = new java.util.ArrayList<>();
        for (PlacementScenario scenario : scenarios) {
            for (SimAssignor assignor : List.of(new KscaleSimAssignor(KscaleSimAssignor.Rate.GIVEN), new HighAvailabilitySimAssignor())) {
                results.addAll(Simulation.run(scenario, assignor));
            }
        }
        return PlacementReport.table(results);
    }
}
