package io.kscale.streams;

import static io.kscale.streams.ScaleOutStates.RATE;
import static io.kscale.streams.ScaleOutStates.afterSeconds;
import static io.kscale.streams.ScaleOutStates.scaleOut;
import static io.kscale.streams.StreamsFixtures.A;
import static io.kscale.streams.StreamsFixtures.B;
import static io.kscale.streams.StreamsFixtures.NOW;
import static io.kscale.streams.StreamsFixtures.assertValid;
import static io.kscale.streams.StreamsFixtures.deadlines;
import static io.kscale.streams.StreamsFixtures.standbys;
import static io.kscale.streams.StreamsFixtures.state;
import static io.kscale.streams.StreamsFixtures.task;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.placement.PlacementEngine;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.junit.jupiter.api.Test;

/**
 * Without {@value WarmupTaskAssignorConfig#RESTORE_RECORDS_PER_SECOND_CONFIG}, the leader learns
 * each instance's restore rate across rebalances, although Streams makes a new assignor for each:
 * the history is kept per application id in the leader's JVM ({@link LeaderLearners}), and every
 * time is the leader's clock.
 *
 * <p>The scale-out of every test is {@link ScaleOutStates}'s.
 */
class WarmupTaskAssignorLearningTest {

    private static final Map<String, Object> APP = Map.of("application.id", "orders", "group.id", "orders");

    /** A rebalance as Streams runs it: a new assignor, configured, at the leader's time. */
    private static TaskAssignment rebalance(LeaderLearners jvm, Map<String, ?> configs, Instant at,
                                            TestApplicationState state) {
        WarmupTaskAssignor assignor = new WarmupTaskAssignor(Clock.fixed(at, ZoneOffset.UTC), new PlacementEngine()::place,
                jvm::forApplication);
        assignor.configure(configs);
        TaskAssignment assignment = assignor.assign(state);
        assertValid(state, assignment);
        return assignment;
    }

    @Test
    void shouldMeasureTheRateAtTheFirstFollowUpAndPredictFromItAtTheNext() {
        LeaderLearners jvm = new LeaderLearners();

        TaskAssignment first = rebalance(jvm, APP, NOW, scaleOut());
        TaskAssignment measured = rebalance(jvm, APP, NOW.plusSeconds(30), afterSeconds(30));

        assertThat(standbys(first, B)).containsExactly(task(0, 0), task(0, 1));
        assertThat(deadlines(first)).as("no history: measure").containsExactly(Optional.of(NOW.plusSeconds(30)));
        // 150,000 records in 30 s: 5,000/s for two copies; 0_0 has 225,000 left: 90 s.
        assertThat(deadlines(measured)).containsExactly(Optional.of(NOW.plusSeconds(120)));
    }

    @Test
    void shouldPredictTheSameDeadlineAsAConfiguredRate() {
        TaskAssignment configured = rebalance(new LeaderLearners(), Map.of("application.id", "orders",
                WarmupTaskAssignorConfig.RESTORE_RECORDS_PER_SECOND_CONFIG, RATE), NOW, scaleOut());

        assertThat(deadlines(configured)).as("2 x 300,000 / 5,000").containsExactly(Optional.of(NOW.plusSeconds(120)));
    }

    @Test
    void shouldMeasureOnTheLeadersClockWhenAMembersClockRunsAhead() {
        // B's clock is 18 s ahead, so it asks for the 30 s follow-up after 12 s of the leader's
        // time. The learner divides by the 12 s that passed: same rate, same absolute deadline.
        LeaderLearners jvm = new LeaderLearners();
        rebalance(jvm, APP, NOW, scaleOut());

        TaskAssignment early = rebalance(jvm, APP, NOW.plusSeconds(12), afterSeconds(12));

        assertThat(deadlines(early)).containsExactly(Optional.of(NOW.plusSeconds(120)));
    }

    @Test
    void shouldKeepHistoryPerApplicationAndStartAfreshInAnotherJvm() {
        LeaderLearners jvm = new LeaderLearners();
        rebalance(jvm, APP, NOW, scaleOut());

        TaskAssignment otherApplication = rebalance(jvm, Map.of("application.id", "payments"), NOW.plusSeconds(30),
                afterSeconds(30));
        TaskAssignment newLeaderElsewhere = rebalance(new LeaderLearners(), APP, NOW.plusSeconds(30), afterSeconds(30));

        assertThat(deadlines(otherApplication)).containsExactly(Optional.of(NOW.plusSeconds(60)));
        assertThat(deadlines(newLeaderElsewhere)).as("history lost with the leader: measure again")
                .containsExactly(Optional.of(NOW.plusSeconds(60)));
    }

    @Test
    void shouldKeepAtMostSixtyFourApplicationsInAJvm() {
        LeaderLearners jvm = new LeaderLearners();
        for (int i = 0; i <= LeaderLearners.MAX_APPLICATIONS; i++) {
            jvm.forApplication("app-" + i);
        }

        assertThat(jvm.size()).isEqualTo(LeaderLearners.MAX_APPLICATIONS);
    }

    @Test
    void shouldReadTheApplicationIdStreamsPasses() {
        assertThat(new WarmupTaskAssignorConfig(APP).applicationId()).isEqualTo("orders");
        assertThat(new WarmupTaskAssignorConfig(Map.of("group.id", "orders")).applicationId()).isEqualTo("orders");
        assertThat(new WarmupTaskAssignorConfig(Map.of()).applicationId()).isEmpty();
    }
}
