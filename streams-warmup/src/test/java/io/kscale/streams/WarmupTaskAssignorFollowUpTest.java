package io.kscale.streams;

import static io.kscale.streams.StreamsFixtures.A;
import static io.kscale.streams.StreamsFixtures.ACCEPTABLE_LAG;
import static io.kscale.streams.StreamsFixtures.B;
import static io.kscale.streams.StreamsFixtures.CLOCK;
import static io.kscale.streams.StreamsFixtures.NOW;
import static io.kscale.streams.StreamsFixtures.PROBE;
import static io.kscale.streams.StreamsFixtures.assertValid;
import static io.kscale.streams.StreamsFixtures.deadlines;
import static io.kscale.streams.StreamsFixtures.standbyCount;
import static io.kscale.streams.StreamsFixtures.state;
import static io.kscale.streams.StreamsFixtures.task;
import static io.kscale.streams.StreamsFixtures.tasks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.assignor.internals.placement.PlacementEngine;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.junit.jupiter.api.Test;

/**
 * The follow-up deadline of {@link WarmupTaskAssignor} follows the predicted catch-up time when
 * {@value WarmupTaskAssignorConfig#RESTORE_RECORDS_PER_SECOND_CONFIG} is set, and is a measuring
 * follow-up without it and without history (see {@link WarmupTaskAssignorLearningTest}); a bad
 * value fails in {@code configure}, as Streams calls it.
 */
class WarmupTaskAssignorFollowUpTest {

    private static final String RATE = WarmupTaskAssignorConfig.RESTORE_RECORDS_PER_SECOND_CONFIG;
    private static final List<TaskId> FOUR = tasks(0, 4);

    /**
     * A owns four stateful tasks, B joins with copies lagging {@code ACCEPTABLE_LAG} plus 60 s of
     * restore at 5,000 records/s (task 0_0) and 200 s (the others). B warms up two of them at
     * once, so each restores at half the rate.
     */
    private static TestApplicationState scaleOutWithLags() {
        return state().stateful(FOUR).client(A, a -> a.active(FOUR))
                .client(B, b -> b.otherLag(ACCEPTABLE_LAG + 200 * 5_000).lag(task(0, 0), ACCEPTABLE_LAG + 60 * 5_000))
                .build();
    }

    private static TaskAssignment assign(TestApplicationState state, Map<String, ?> configs) {
        WarmupTaskAssignor assignor = new WarmupTaskAssignor(CLOCK, new PlacementEngine()::place);
        assignor.configure(configs);
        TaskAssignment assignment = assignor.assign(state);
        assertValid(state, assignment);
        return assignment;
    }

    @Test
    void shouldScheduleTheFollowUpAtTheSoonestPredictedCatchUpWithARestoreRate() {
        // Streams passes its settings as given, here a string as in a properties file.
        TaskAssignment assignment = assign(scaleOutWithLags(), Map.of(RATE, "5000"));

        assertThat(standbyCount(assignment)).as("warmups").isEqualTo(2);
        assertThat(deadlines(assignment)).as("60 s of restore at half the rate")
                .containsExactly(Optional.of(NOW.plus(Duration.ofSeconds(120))));
    }

    @Test
    void shouldRoundThePredictionUpToWholeSecondsAndKeepItWithinTheBounds() {
        TaskAssignment slow = assign(scaleOutWithLags(), Map.of(RATE, 7L));
        TaskAssignment fast = assign(scaleOutWithLags(), Map.of(RATE, 1_000_000_000L));
        TaskAssignment uneven = assign(scaleOutWithLags(), Map.of(RATE, 7_000L));

        assertThat(deadlines(slow)).as("capped at the probing interval").containsExactly(Optional.of(PROBE));
        assertThat(deadlines(fast)).as("at least 10 s").containsExactly(Optional.of(NOW.plusSeconds(10)));
        // 300,000 records at 3,500/s (two copies share 7,000/s): 85.7 s, rounded up so the copy
        // has caught up when the rebalance comes.
        assertThat(deadlines(uneven)).containsExactly(Optional.of(NOW.plusSeconds(86)));
    }

    @Test
    void shouldScheduleAMeasuringFollowUpWithoutARestoreRateOrHistory() {
        TaskAssignment unset = assign(scaleOutWithLags(), Map.of());
        TaskAssignment zero = assign(scaleOutWithLags(), Map.of(RATE, 0L));
        TaskAssignment notConfigured = StreamsFixtures.assign(scaleOutWithLags());

        assertThat(deadlines(unset)).containsExactly(Optional.of(StreamsFixtures.MEASURE));
        assertThat(deadlines(zero)).containsExactly(Optional.of(StreamsFixtures.MEASURE));
        assertThat(deadlines(notConfigured)).containsExactly(Optional.of(StreamsFixtures.MEASURE));
    }

    @Test
    void shouldIgnoreTheRateForACopyWhoseLagIsUnknown() {
        TestApplicationState unknownLags = state().stateful(FOUR).client(A, a -> a.active(FOUR))
                .client(B, b -> b.otherLag(PlacementInput.UNKNOWN_OFFSET_SUM)).build();

        assertThat(deadlines(assign(unknownLags, Map.of(RATE, 5_000L)))).containsExactly(Optional.of(PROBE));
    }

    @Test
    void shouldFailConfigureNamingTheKeyTheValueAndWhatIsAllowedForANegativeRate() {
        WarmupTaskAssignor assignor = new WarmupTaskAssignor();

        assertThatThrownBy(() -> assignor.configure(Map.of(RATE, -1L)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(RATE).hasMessageContaining("-1").hasMessageContaining("at least 0");
    }

    @Test
    void shouldFailConfigureNamingTheKeyAndTheValueForARateThatIsNotANumber() {
        WarmupTaskAssignor assignor = new WarmupTaskAssignor();

        assertThatThrownBy(() -> assignor.configure(Map.of(RATE, "fast")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(RATE).hasMessageContaining("fast").hasMessageContaining("LONG");
    }
}
