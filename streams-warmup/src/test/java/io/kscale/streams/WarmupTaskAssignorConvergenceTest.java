package io.kscale.streams;

import static io.kscale.streams.StreamsFixtures.assign;
import static io.kscale.streams.StreamsFixtures.configs;
import static io.kscale.streams.StreamsFixtures.deadlines;
import static io.kscale.streams.StreamsFixtures.next;
import static io.kscale.streams.StreamsFixtures.process;
import static io.kscale.streams.StreamsFixtures.state;
import static io.kscale.streams.StreamsFixtures.tasks;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Scale-outs run round by round, each assignment fed back as the next rebalance's prior state
 * with every standby caught up: no task is ever active on a client without its state, every round
 * is valid, and the rounds end balanced and then stable.
 */
class WarmupTaskAssignorConvergenceTest {

    @ParameterizedTest(name = "{0} -> {1} clients, {2} sub-topologies x {3} tasks, {4} standbys, {5} warmups")
    @CsvSource({
        "1, 3, 1, 6, 0, 2",
        "1, 3, 2, 6, 1, 2",
        "2, 4, 1, 8, 1, 1",
        "3, 5, 2, 10, 2, 3",
        "1, 4, 3, 4, 0, 1",
    })
    void shouldScaleOutWithoutRestoringAnActiveTaskAndEndBalancedAndStable(int before, int after,
            int subtopologies, int perSubtopology, int standbys, int warmups) {
        TestApplicationState state = scaleOut(before, after, subtopologies, perSubtopology, standbys, warmups);
        int size = state.allTasks().size();

        TaskAssignment assignment = null;
        int rounds = 0;
        do {
            TaskAssignment previous = assignment;
            assignment = assign(state);
            rounds++;
            if (previous != null) {
                assertActivesHadTheirState(state, assignment);
            }
            state = next(state, assignment);
        } while (StreamsFixtures.followUpWanted(assignment) && rounds < 50);

        assertThat(deadlines(assignment)).as("converged after %s rounds", rounds).containsExactly(Optional.empty());
        for (KafkaStreamsAssignment client : assignment.assignment()) {
            assertThat(actives(client)).as("actives of %s", client.processId())
                    .hasSizeBetween(size / after, (size + after - 1) / after);
        }
        TaskAssignment again = assign(state);
        assertThat(byType(again)).as("stable").isEqualTo(byType(assignment));
    }

    /**
     * Regression: when a scale-out took several rounds, the engine re-planned which stateful tasks
     * move each round from group counts taken before any move, so every task of a sub-topology
     * tied and low ids won; the rounds ended balanced but with a sub-topology clustered (1 -> 4
     * clients, 3 x 4 tasks, 1 warmup: A ended with 1_3, 2_2, 2_3 and D with 0_1, 0_2, 1_1, where
     * one task of each is possible). The engine now counts groups as it picks the moves
     * ({@code UnitBalancer}).
     */
    @ParameterizedTest(name = "{0} -> {1} clients, {2} sub-topologies x {3} tasks, {4} standbys, {5} warmups")
    @CsvSource({
        "1, 3, 2, 6, 1, 2",
        "1, 4, 3, 4, 0, 1",
    })
    void shouldEndAScaleOutWithEachSubtopologySpread(int before, int after, int subtopologies, int perSubtopology,
                                                     int standbys, int warmups) {
        TestApplicationState state = scaleOut(before, after, subtopologies, perSubtopology, standbys, warmups);
        TaskAssignment assignment;
        int rounds = 0;
        do {
            assignment = assign(state);
            state = next(state, assignment);
        } while (StreamsFixtures.followUpWanted(assignment) && ++rounds < 50);

        for (KafkaStreamsAssignment client : assignment.assignment()) {
            Map<Integer, Long> bySubtopology = actives(client).stream()
                    .collect(Collectors.groupingBy(TaskId::subtopology, Collectors.counting()));
            assertThat(bySubtopology.values()).as("sub-topologies on %s", client.processId())
                    .allSatisfy(count -> assertThat(count).isLessThanOrEqualTo((perSubtopology + after - 1) / after));
        }
    }

    /** {@code before} clients own the tasks round-robin; {@code after - before} clients join with no state. */
    private static TestApplicationState scaleOut(int before, int after, int subtopologies, int perSubtopology,
                                                 int standbys, int warmups) {
        List<TaskId> all = new ArrayList<>();
        for (int s = 0; s < subtopologies; s++) {
            all.addAll(tasks(s, perSubtopology));
        }
        StreamsFixtures.StateBuilder builder = state().configs(configs(warmups, standbys, List.of())).stateful(all);
        for (int c = 0; c < after; c++) {
            int client = c;
            List<TaskId> owned = all.stream().filter(t -> client < before && all.indexOf(t) % before == client)
                    .collect(Collectors.toList());
            builder.client(process(client + 1), spec -> spec.active(owned));
        }
        return builder.build();
    }

    private static List<TaskId> actives(KafkaStreamsAssignment client) {
        return client.tasks().values().stream().filter(t -> t.type() == AssignedTask.Type.ACTIVE)
                .map(AssignedTask::id).collect(Collectors.toList());
    }

    /** Every active task was active or a standby (caught up, in these rounds) on its client before. */
    private static void assertActivesHadTheirState(TestApplicationState prior, TaskAssignment assignment) {
        for (KafkaStreamsAssignment client : assignment.assignment()) {
            TestApplicationState.Client before = prior.clients().get(client.processId());
            client.tasks().values().stream().filter(t -> t.type() == AssignedTask.Type.ACTIVE).forEach(task ->
                    assertThat(before.previousActive.contains(task.id()) || before.previousStandby.contains(task.id()))
                            .as("%s active on %s, which had its state", task.id(), client.processId()).isTrue());
        }
    }

    private static Map<ProcessId, Map<TaskId, AssignedTask.Type>> byType(TaskAssignment assignment) {
        return assignment.assignment().stream().collect(Collectors.toMap(KafkaStreamsAssignment::processId,
                client -> client.tasks().values().stream()
                        .collect(Collectors.toMap(AssignedTask::id, AssignedTask::type))));
    }
}
