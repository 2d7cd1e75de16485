package io.kscale.streams;

import static io.kscale.streams.ScaleOutStates.FOUR;
import static io.kscale.streams.ScaleOutStates.RATE;
import static io.kscale.streams.ScaleOutStates.afterSeconds;
import static io.kscale.streams.ScaleOutStates.scaleOut;
import static io.kscale.streams.StreamsFixtures.A;
import static io.kscale.streams.StreamsFixtures.B;
import static io.kscale.streams.StreamsFixtures.NOW;
import static io.kscale.streams.StreamsFixtures.PROBING_MS;
import static io.kscale.streams.StreamsFixtures.assertValid;
import static io.kscale.streams.StreamsFixtures.state;
import static io.kscale.streams.StreamsFixtures.task;
import static io.kscale.streams.StreamsFixtures.tasks;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.placement.Placement;
import io.kscale.assignor.internals.placement.PlacementEngine;
import io.kscale.assignor.internals.placement.PlacementRequest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WarmupAssignorMetrics}: the values after scripted rebalances. Streams makes a new
 * assignor per rebalance, so each rebalance here is a new assignor on the same JVM-wide learner
 * and metrics, as {@link LeaderLearners} and {@link LeaderMetrics} keep them.
 *
 * <p>The scale-out is the learning test's, {@link ScaleOutStates}.
 */
class WarmupTaskAssignorMetricsTest {

    private static final String CLIENT_ID = "orders-1-StreamThread-1-consumer";
    private static final Map<String, Object> CONFIGS = Map.of("application.id", "orders", "client.id", CLIENT_ID);

    private LeaderLearners learners;
    private WarmupAssignorMetrics metrics;

    @BeforeEach
    void newLeaderJvm() {
        learners = new LeaderLearners();
        // Outside JMX: the values are what these tests pin; LeaderMetricsTest pins the MBeans.
        metrics = new WarmupAssignorMetrics(new AssignorMetrics.Registry(null), CLIENT_ID);
    }

    @Test
    void shouldDescribeAScaleOutThatWarmsUpBeforeItMoves() {
        rebalance(NOW, scaleOut());

        assertThat(metrics.value("assignments-total")).isEqualTo(1.0);
        assertThat(metrics.value("fallbacks-total")).isZero();
        assertThat(metrics.value("moved-active-tasks")).as("A keeps its tasks while B warms up").isZero();
        assertThat(metrics.value("warmup-tasks")).isEqualTo(2.0);
        assertThat(metrics.value("standby-tasks")).as("warmups are not counted as standbys").isZero();
        assertThat(metrics.value("pending-moves")).as("0_0 and 0_1 to B, waiting for their warmups").isEqualTo(2.0);
        assertThat(metrics.value("follow-up-delay-ms")).as("no history: measure after 30 s").isEqualTo(30_000.0);
        assertThat(metrics.value("learned-restore-rate-clients")).isZero();
        assertThat(metrics.value("learned-restore-rate-min")).as("no rate known").isNaN();
        assertThat(metrics.value("learned-restore-rate-max")).isNaN();
    }

    @Test
    void shouldTellTheRateTheLeaderLearnedAtTheMeasuringFollowUp() {
        rebalance(NOW, scaleOut());
        rebalance(NOW.plusSeconds(30), afterSeconds(30));

        assertThat(metrics.value("assignments-total")).isEqualTo(2.0);
        assertThat(metrics.value("learned-restore-rate-clients")).as("B").isEqualTo(1.0);
        assertThat(metrics.value("learned-restore-rate-min")).isEqualTo((double) RATE);
        assertThat(metrics.value("learned-restore-rate-max")).isEqualTo((double) RATE);
        // 150,000 records in 30 s: 5,000/s for two copies; 0_0 has 225,000 left: 90 s.
        assertThat(metrics.value("follow-up-delay-ms")).isEqualTo(90_000.0);
        assertThat(metrics.value("idle-follow-ups-max")).isZero();
        assertThat(metrics.value("backed-off-clients")).isZero();
    }

    @Test
    void shouldCountTheMovesOnceTheWarmupsHaveCaughtUp() {
        rebalance(NOW, scaleOut());
        rebalance(NOW.plusSeconds(120), caughtUp());

        assertThat(metrics.value("moved-active-tasks")).as("0_0 and 0_1 to B").isEqualTo(2.0);
        assertThat(metrics.value("warmup-tasks")).isZero();
        assertThat(metrics.value("pending-moves")).isZero();
        assertThat(metrics.value("follow-up-delay-ms")).as("balanced: no follow-up").isZero();
    }

    @Test
    void shouldCountAFallbackWhenEveryLagIsUnknown() {
        TestApplicationState unknownLags = state().stateful(FOUR).client(A, a -> a.active(FOUR))
                .client(B, b -> b.otherLag(PlacementInput.UNKNOWN_OFFSET_SUM)).build();

        rebalance(NOW, unknownLags);

        assertThat(metrics.value("assignments-total")).isEqualTo(1.0);
        assertThat(metrics.value("fallbacks-total")).isEqualTo(1.0);
        assertThat(metrics.value("moved-active-tasks")).as("every active task stays on its prior owner").isZero();
        assertThat(metrics.value("follow-up-delay-ms")).as("look the lags up again").isEqualTo((double) PROBING_MS);
    }

    @Test
    void shouldCountAFallbackWhenTheSafeAssignmentReplacesAFailedPlacement() {
        Function<PlacementRequest, Placement> failing = request -> {
            throw new IllegalStateException("a bug in the engine");
        };

        rebalance(NOW, scaleOut(), failing);

        assertThat(metrics.value("assignments-total")).isEqualTo(1.0);
        assertThat(metrics.value("fallbacks-total")).isEqualTo(1.0);
        assertThat(metrics.value("moved-active-tasks")).as("every task on its prior owner").isZero();
        assertThat(metrics.value("warmup-tasks")).isZero();
        assertThat(metrics.value("pending-moves")).isZero();
        assertThat(metrics.value("follow-up-delay-ms")).isEqualTo((double) PROBING_MS);
    }

    @Test
    void shouldCountStandbysApartFromWarmups() {
        TestApplicationState withStandbys = state().configs(StreamsFixtures.configs(1)).stateful(FOUR)
                .client(A, a -> a.active(FOUR)).client(B, b -> b.standby(FOUR)).build();

        rebalance(NOW, withStandbys);

        // B's standbys are caught up (lag 0): two tasks move to it, and A gets their standbys.
        assertThat(metrics.value("moved-active-tasks")).isEqualTo(2.0);
        assertThat(metrics.value("warmup-tasks")).isZero();
        assertThat(metrics.value("standby-tasks")).as("one per task").isEqualTo(4.0);
    }

    private void rebalance(Instant at, TestApplicationState state) {
        rebalance(at, state, new PlacementEngine()::place);
    }

    /** A rebalance as Streams runs it: a new assignor, configured, at the leader's time. */
    private void rebalance(Instant at, TestApplicationState state, Function<PlacementRequest, Placement> engine) {
        WarmupTaskAssignor assignor = new WarmupTaskAssignor(Clock.fixed(at, ZoneOffset.UTC), engine,
                learners::forApplication, clientId -> {
                    assertThat(clientId).as("the consumer's client.id").isEqualTo(CLIENT_ID);
                    return metrics;
                });
        assignor.configure(CONFIGS);
        TaskAssignment assignment = assignor.assign(state);
        assertValid(state, assignment);
    }

    /** B's copies of 0_0 and 0_1 within the acceptable lag. */
    private static TestApplicationState caughtUp() {
        return state().stateful(FOUR).client(A, a -> a.active(FOUR))
                .client(B, b -> b.otherLag(1_010_000).standby(task(0, 0), task(0, 1))
                        .lag(task(0, 0), 0).lag(task(0, 1), 0))
                .build();
    }
}
