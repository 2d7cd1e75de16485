package io.kscale.streams;

import static io.kscale.streams.StreamsFixtures.A;
import static io.kscale.streams.StreamsFixtures.B;
import static io.kscale.streams.StreamsFixtures.C;
import static io.kscale.streams.StreamsFixtures.actives;
import static io.kscale.streams.StreamsFixtures.assign;
import static io.kscale.streams.StreamsFixtures.configs;
import static io.kscale.streams.StreamsFixtures.deadlines;
import static io.kscale.streams.StreamsFixtures.next;
import static io.kscale.streams.StreamsFixtures.standbyCount;
import static io.kscale.streams.StreamsFixtures.standbys;
import static io.kscale.streams.StreamsFixtures.state;
import static io.kscale.streams.StreamsFixtures.task;
import static io.kscale.streams.StreamsFixtures.tasks;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.junit.jupiter.api.Test;

/** The behaviour the class comment promises, on ordinary inputs; every result is checked valid by the fixtures. */
class WarmupTaskAssignorTest {

    private static final List<TaskId> SIX = tasks(0, 6);

    /** The worked example of the class comment, round 1: one instance owns six stateful tasks, two join. */
    private static TestApplicationState scaleOutOneToThree() {
        return state().configs(configs(0)).stateful(SIX).client(A, a -> a.active(SIX)).client(B).client(C).build();
    }

    @Test
    void shouldKeepActivesOnTheCaughtUpInstanceAndWarmUpTheNewOnesWhenScalingOutOneToThree() {
        TaskAssignment round1 = assign(scaleOutOneToThree());

        assertThat(actives(round1, A)).containsExactlyElementsOf(SIX);
        assertThat(actives(round1, B)).isEmpty();
        assertThat(actives(round1, C)).isEmpty();
        assertThat(standbys(round1, A)).isEmpty();
        assertThat(standbys(round1, B)).as("one warmup on each newcomer: they restore in parallel")
                .containsExactly(task(0, 0));
        assertThat(standbys(round1, C)).containsExactly(task(0, 1));
        assertThat(standbyCount(round1)).as("warmups: max.warmup.replicas").isEqualTo(2);
        assertThat(deadlines(round1)).as("the same follow-up on every client: a measuring one")
                .containsExactly(Optional.of(StreamsFixtures.MEASURE));
    }

    @Test
    void shouldPromoteCaughtUpWarmupsAtTheNextRebalanceAndWarmUpTheRest() {
        TaskAssignment round2 = assign(next(scaleOutOneToThree(), assign(scaleOutOneToThree())));

        assertThat(actives(round2, B)).containsExactly(task(0, 0));
        assertThat(actives(round2, C)).containsExactly(task(0, 1));
        assertThat(standbys(round2, B)).as("a promoted warmup is dropped, the next starts").containsExactly(task(0, 2));
        assertThat(actives(round2, A)).containsExactly(task(0, 2), task(0, 3), task(0, 4), task(0, 5));
        assertThat(standbys(round2, C)).containsExactly(task(0, 3));
        assertThat(deadlines(round2)).as("each round's assignor is fresh here: it measures")
                .containsExactly(Optional.of(StreamsFixtures.MEASURE));
    }

    @Test
    void shouldReachTheBalancedSpreadInThreeRebalancesAndThenStayPut() {
        TestApplicationState state = scaleOutOneToThree();
        List<TaskAssignment> rounds = new ArrayList<>();
        do {
            rounds.add(assign(state));
            state = next(state, rounds.get(rounds.size() - 1));
        } while (StreamsFixtures.followUpWanted(rounds.get(rounds.size() - 1)) && rounds.size() < 10);

        // 4 moves, 2 warmups at a time: ceil(4 / 2) + 1 rebalances (the engine's convergence bound).
        assertThat(rounds).hasSize(3);
        TaskAssignment last = rounds.get(2);
        assertThat(actives(last, A)).containsExactly(task(0, 4), task(0, 5));
        assertThat(actives(last, B)).containsExactly(task(0, 0), task(0, 2));
        assertThat(actives(last, C)).containsExactly(task(0, 1), task(0, 3));
        assertThat(standbyCount(last)).isZero();
        assertThat(deadlines(last)).containsExactly(Optional.empty());
        assertThat(tasksByClient(assign(state))).isEqualTo(tasksByClient(last));
    }

    @Test
    void shouldReturnThePriorAssignmentForAStableInput() {
        TestApplicationState stable = state().configs(configs(1)).stateful(SIX)
                .client(A, a -> a.active(task(0, 0), task(0, 1)).standby(task(0, 2), task(0, 4)))
                .client(B, b -> b.active(task(0, 2), task(0, 3)).standby(task(0, 0), task(0, 5)))
                .client(C, c -> c.active(task(0, 4), task(0, 5)).standby(task(0, 1), task(0, 3)))
                .build();

        TaskAssignment assignment = assign(stable);

        assertThat(tasksByClient(assignment)).isEqualTo(tasksByClient(stable));
        assertThat(deadlines(assignment)).containsExactly(Optional.empty());
        assertThat(tasksByClient(assign(stable))).as("same input, same output").isEqualTo(tasksByClient(assignment));
    }

    @Test
    void shouldBalanceStatelessTasksFreelyAtOnce() {
        TestApplicationState state = state().configs(configs(1)).stateless(SIX)
                .client(A, a -> a.active(SIX)).client(B).client(C).build();

        TaskAssignment assignment = assign(state);

        for (ProcessId client : List.of(A, B, C)) {
            assertThat(actives(assignment, client)).hasSize(2);
        }
        assertThat(actives(assignment, A)).as("A keeps what balance allows").isSubsetOf(SIX);
        assertThat(standbyCount(assignment)).as("no standbys or warmups of stateless tasks").isZero();
        assertThat(deadlines(assignment)).containsExactly(Optional.empty());
    }

    @Test
    void shouldSpreadEachSubtopologyAcrossTheClients() {
        List<TaskId> all = new ArrayList<>(tasks(0, 3));
        all.addAll(tasks(1, 3));
        TestApplicationState fresh = state().stateful(all).client(A).client(B).client(C).build();

        TaskAssignment assignment = assign(fresh);

        for (ProcessId client : List.of(A, B, C)) {
            assertThat(actives(assignment, client).stream().map(TaskId::subtopology).collect(Collectors.toList()))
                    .as("sub-topologies of %s", client).containsExactlyInAnyOrder(0, 1);
        }
    }

    @Test
    void shouldPutAStandbyOnAnotherRack() {
        TestApplicationState state = state().configs(configs(1)).stateful(List.of(task(0, 0)))
                .client(A, a -> a.rack("rack-1").active(task(0, 0)))
                .client(B, b -> b.rack("rack-1"))
                .client(C, c -> c.rack("rack-2"))
                .build();

        assertThat(standbys(assign(state), C)).containsExactly(task(0, 0));
    }

    @Test
    void shouldPlaceStandbysOnOtherTagValuesWithKafkaTagAwareAssignmentWhenTagsAreSet() {
        TestApplicationState state = state().configs(configs(2, 1, List.of("zone"))).stateful(SIX)
                .client(A, a -> a.tag("zone", "z1").active(task(0, 0), task(0, 1)))
                .client(B, b -> b.tag("zone", "z1").active(task(0, 2), task(0, 3)))
                .client(C, c -> c.tag("zone", "z2").active(task(0, 4), task(0, 5)))
                .build();

        TaskAssignment assignment = assign(state);

        Map<ProcessId, String> zone = Map.of(A, "z1", B, "z1", C, "z2");
        for (TaskId task : SIX) {
            ProcessId active = owner(assignment, task, AssignedTask.Type.ACTIVE).get(0);
            List<ProcessId> standby = owner(assignment, task, AssignedTask.Type.STANDBY);
            assertThat(standby).as("standbys of %s", task).hasSize(1);
            assertThat(zone.get(standby.get(0))).as("zone of the standby of %s", task).isNotEqualTo(zone.get(active));
        }
        assertThat(deadlines(assignment)).containsExactly(Optional.empty());
    }

    @Test
    void shouldMoveATaskToACaughtUpStandbyWithoutAWarmup() {
        TestApplicationState state = state().configs(configs(1)).stateful(tasks(0, 2))
                .client(A, a -> a.active(tasks(0, 2)))
                .client(B, b -> b.standby(task(0, 0), task(0, 1)))
                .build();

        TaskAssignment assignment = assign(state);

        assertThat(actives(assignment, A)).hasSize(1);
        assertThat(actives(assignment, B)).hasSize(1);
        assertThat(deadlines(assignment)).as("nothing waits to catch up").containsExactly(Optional.empty());
    }

    private static List<ProcessId> owner(TaskAssignment assignment, TaskId task, AssignedTask.Type type) {
        List<ProcessId> owners = new ArrayList<>();
        for (KafkaStreamsAssignment client : assignment.assignment()) {
            AssignedTask assigned = client.tasks().get(task);
            if (assigned != null && assigned.type() == type) {
                owners.add(client.processId());
            }
        }
        return owners;
    }

    private static Map<ProcessId, Map<TaskId, AssignedTask.Type>> tasksByClient(TaskAssignment assignment) {
        Map<ProcessId, Map<TaskId, AssignedTask.Type>> byClient = new HashMap<>();
        for (KafkaStreamsAssignment client : assignment.assignment()) {
            Map<TaskId, AssignedTask.Type> tasks = new HashMap<>();
            client.tasks().forEach((id, task) -> tasks.put(id, task.type()));
            byClient.put(client.processId(), tasks);
        }
        return byClient;
    }

    private static Map<ProcessId, Map<TaskId, AssignedTask.Type>> tasksByClient(TestApplicationState state) {
        Map<ProcessId, Map<TaskId, AssignedTask.Type>> byClient = new HashMap<>();
        state.clients().forEach((id, client) -> {
            Map<TaskId, AssignedTask.Type> tasks = new HashMap<>();
            client.previousActive.forEach(task -> tasks.put(task, AssignedTask.Type.ACTIVE));
            client.previousStandby.forEach(task -> tasks.put(task, AssignedTask.Type.STANDBY));
            byClient.put(id, tasks);
        });
        return byClient;
    }
}
