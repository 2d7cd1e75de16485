package io.kscale.streams;

import static io.kscale.streams.StreamsFixtures.A;
import static io.kscale.streams.StreamsFixtures.B;
import static io.kscale.streams.StreamsFixtures.C;
import static io.kscale.streams.StreamsFixtures.D;
import static io.kscale.streams.StreamsFixtures.PROBE;
import static io.kscale.streams.StreamsFixtures.actives;
import static io.kscale.streams.StreamsFixtures.assertValid;
import static io.kscale.streams.StreamsFixtures.assign;
import static io.kscale.streams.StreamsFixtures.byClient;
import static io.kscale.streams.StreamsFixtures.configs;
import static io.kscale.streams.StreamsFixtures.deadlines;
import static io.kscale.streams.StreamsFixtures.standbyCount;
import static io.kscale.streams.StreamsFixtures.standbys;
import static io.kscale.streams.StreamsFixtures.state;
import static io.kscale.streams.StreamsFixtures.task;
import static io.kscale.streams.StreamsFixtures.tasks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.TaskAssignmentException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.junit.jupiter.api.Test;

/** Degenerate and broken inputs: each gives a valid assignment or a clear TaskAssignmentException. */
class WarmupTaskAssignorEdgeTest {

    private static final List<TaskId> STATEFUL = tasks(0, 3);
    private static final List<TaskId> STATELESS = tasks(1, 3);

    @Test
    void shouldKeepEveryActiveOnItsPriorOwnerAndFollowUpWhenLagsAreUnknown() {
        // End offsets could not be looked up: Streams reports -3 for every task a client did not run.
        TestApplicationState state = state().configs(configs(1)).stateful(STATEFUL).stateless(STATELESS)
                .client(A, a -> a.active(STATEFUL).active(STATELESS))
                .client(B, b -> b.otherLag(PlacementInput.UNKNOWN_OFFSET_SUM))
                .client(C, c -> c.otherLag(PlacementInput.UNKNOWN_OFFSET_SUM))
                .build();

        TaskAssignment assignment = assign(state);

        assertThat(actives(assignment, A)).containsAll(STATEFUL);
        assertThat(actives(assignment, B)).as("stateless tasks still balance").isNotEmpty().isSubsetOf(STATELESS);
        assertThat(actives(assignment, C)).isNotEmpty().isSubsetOf(STATELESS);
        assertThat(deadlines(assignment)).as("rebalance again to retry the lookup").containsExactly(Optional.of(PROBE));
    }

    @Test
    void shouldGiveATaskWhoseOwnerLeftToItsFormerStandbyWhenLagsAreUnknown() {
        TestApplicationState state = state().stateful(tasks(0, 4))
                .client(A, a -> a.active(task(0, 1), task(0, 2), task(0, 3))
                        .otherLag(PlacementInput.UNKNOWN_OFFSET_SUM))
                .client(B, b -> b.standby(task(0, 0)).otherLag(PlacementInput.UNKNOWN_OFFSET_SUM)
                        .lag(task(0, 0), PlacementInput.UNKNOWN_OFFSET_SUM))
                .client(C, c -> c.otherLag(PlacementInput.UNKNOWN_OFFSET_SUM))
                .build();

        TaskAssignment assignment = assign(state);

        assertThat(actives(assignment, B)).containsExactly(task(0, 0));
        assertThat(actives(assignment, A)).containsExactly(task(0, 1), task(0, 2), task(0, 3));
    }

    @Test
    void shouldTreatASingleUnknownLagAsUnknownWithoutForcingAFollowUp() {
        TestApplicationState state = state().stateful(STATEFUL)
                .client(A, a -> a.active(task(0, 0)))
                .client(B, b -> b.active(task(0, 1)).lag(task(0, 2), PlacementInput.UNKNOWN_OFFSET_SUM))
                .client(C, c -> c.active(task(0, 2)))
                .build();

        TaskAssignment assignment = assign(state);

        assertThat(actives(assignment, C)).containsExactly(task(0, 2));
        assertThat(deadlines(assignment)).containsExactly(Optional.empty());
    }

    @Test
    void shouldGiveNothingToAClientWithoutThreadsButStillListIt() {
        TestApplicationState state = state().configs(configs(1)).stateful(STATEFUL).stateless(STATELESS)
                .client(A, a -> a.threads(0).active(STATEFUL).active(STATELESS))
                .client(B).client(C)
                .build();

        TaskAssignment assignment = assign(state);

        assertThat(byClient(assignment)).containsKey(A);
        assertThat(byClient(assignment).get(A).tasks()).isEmpty();
        assertThat(actives(assignment, B).size() + actives(assignment, C).size()).isEqualTo(6);
    }

    @Test
    void shouldThrowATaskAssignmentExceptionWhenNoClientHasAThread() {
        TestApplicationState state = state().stateful(STATEFUL)
                .client(A, a -> a.threads(0).active(STATEFUL)).client(B, b -> b.threads(0)).build();

        assertThatThrownBy(() -> assign(state)).isInstanceOf(TaskAssignmentException.class)
                .hasMessageContaining("3 tasks").hasMessageContaining("num.stream.threads");
    }

    @Test
    void shouldThrowATaskAssignmentExceptionWhenThereAreTasksButNoClients() {
        TestApplicationState state = state().stateful(STATEFUL).build();

        assertThatThrownBy(() -> assign(state)).isInstanceOf(TaskAssignmentException.class)
                .hasMessageContaining("0 clients");
    }

    @Test
    void shouldReturnAnEmptyAssignmentWhenThereIsNothingToAssign() {
        assertThat(assign(state().build()).assignment()).isEmpty();
        TaskAssignment idle = assign(state().client(A).client(B, b -> b.threads(0)).build());
        assertThat(idle.assignment()).hasSize(2).allSatisfy(client -> assertThat(client.tasks()).isEmpty());
    }

    @Test
    void shouldPlaceAStandbyOnEveryOtherClientWhenMoreStandbysAreWantedThanThereAreClients() {
        TestApplicationState state = state().configs(configs(3)).stateful(tasks(0, 4))
                .client(A, a -> a.active(task(0, 0), task(0, 1)))
                .client(B, b -> b.active(task(0, 2), task(0, 3)))
                .build();

        TaskAssignment assignment = assign(state);

        assertThat(standbys(assignment, A)).containsExactly(task(0, 2), task(0, 3));
        assertThat(standbys(assignment, B)).containsExactly(task(0, 0), task(0, 1));
    }

    @Test
    void shouldNeverGiveACopyToATaskWithoutStateToRestore() {
        List<TaskId> unlogged = tasks(2, 3);
        TestApplicationState state = state().configs(configs(1)).stateless(STATELESS).unlogged(unlogged)
                .client(A, a -> a.active(STATELESS).active(unlogged)).client(B).client(C)
                .build();

        TaskAssignment assignment = assign(state);

        assertThat(standbyCount(assignment)).isZero();
        assertThat(deadlines(assignment)).as("nothing to warm up").containsExactly(Optional.empty());
        assertThat(actives(assignment, B)).hasSize(2);
        assertThat(actives(assignment, C)).hasSize(2);
    }

    @Test
    void shouldIgnorePriorTasksThatNoLongerExist() {
        TaskId removed = task(9, 0);
        TestApplicationState state = state().configs(configs(1)).stateful(STATEFUL)
                .client(A, a -> a.active(STATEFUL).active(removed))
                .client(B, b -> b.standby(removed))
                .build();

        TaskAssignment assignment = assign(state);

        assertThat(assignment.assignment()).allSatisfy(client -> assertThat(client.tasks()).doesNotContainKey(removed));
    }

    @Test
    void shouldKeepATaskThatTwoClientsClaimActiveOnOneOfThem() {
        TestApplicationState state = state().stateful(STATEFUL)
                .client(A, a -> a.active(STATEFUL))
                .client(B, b -> b.active(task(0, 0)))
                .build();

        TaskAssignment assignment = assign(state);

        assertThat(actives(assignment, A).size() + actives(assignment, B).size()).isEqualTo(3);
        assertThat(actives(assignment, B)).as("B holds the state of 0_0 too: it may take it over at once")
                .contains(task(0, 0));
    }

    @Test
    void shouldThrowATaskAssignmentExceptionForSettingsTheEngineRejects() {
        AssignmentConfigs negativeLag = new AssignmentConfigs(10_000L, 2, 0, 600_000L, List.of(), OptionalInt.empty(),
                OptionalInt.empty(), StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_NONE) {
            @Override
            public long acceptableRecoveryLag() {
                return -1;
            }
        };
        TestApplicationState state = state().configs(negativeLag).stateful(STATEFUL).client(A).build();

        assertThatThrownBy(() -> assign(state)).isInstanceOf(TaskAssignmentException.class)
                .hasMessageContaining("acceptableRecoveryLag is -1");
    }

    @Test
    void shouldReplaceAnInvalidAssignmentWithTheSafeOne() {
        TestApplicationState state = state().configs(configs(1)).stateful(STATEFUL).stateless(STATELESS)
                .client(A, a -> a.active(task(0, 0), task(0, 1)))
                .client(B, b -> b.active(task(0, 2)))
                .client(C)
                .client(D, d -> d.threads(0).active(task(1, 0)))
                .build();
        List<KafkaStreamsAssignment> invalid = new ArrayList<>();
        for (var client : List.of(A, B)) {
            invalid.add(KafkaStreamsAssignment.of(client, new HashSet<>(List.of(
                    new AssignedTask(task(0, 0), AssignedTask.Type.ACTIVE)))));
        }
        TaskAssignment twice = new TaskAssignment(invalid);
        assertThat(TaskAssignmentUtils.validateTaskAssignment(state, twice))
                .isEqualTo(AssignmentError.ACTIVE_TASK_ASSIGNED_MULTIPLE_TIMES);

        TaskAssignment safe = WarmupTaskAssignor.validOrSafe(state, twice, PROBE);

        assertValid(state, safe);
        assertThat(actives(safe, A)).contains(task(0, 0), task(0, 1));
        assertThat(actives(safe, B)).contains(task(0, 2));
        assertThat(actives(safe, C)).as("the rest goes to the least loaded").hasSize(2);
        assertThat(standbyCount(safe)).as("Kafka's default standbys").isEqualTo(3);
        assertThat(deadlines(safe)).containsExactly(Optional.of(PROBE));
    }

    @Test
    void shouldFallBackToTheSafeAssignmentWhenTheEngineFails() {
        TestApplicationState state = state().stateful(STATEFUL)
                .client(A, a -> a.active(STATEFUL)).client(B).build();
        WarmupTaskAssignor failing = new WarmupTaskAssignor(StreamsFixtures.CLOCK, request -> {
            throw new IllegalStateException("a bug");
        });

        TaskAssignment safe = failing.assign(state);

        assertValid(state, safe);
        assertThat(actives(safe, A)).containsExactlyElementsOf(STATEFUL);
        assertThat(deadlines(safe)).containsExactly(Optional.of(PROBE));
    }

    @Test
    void shouldReturnAValidAssignmentUnchanged() {
        TestApplicationState state = state().stateful(STATEFUL).client(A, a -> a.active(STATEFUL)).build();
        TaskAssignment assignment = assign(state);

        assertThat(WarmupTaskAssignor.validOrSafe(state, assignment, PROBE)).isSameAs(assignment);
    }
}
