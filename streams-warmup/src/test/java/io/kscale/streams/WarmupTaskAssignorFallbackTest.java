package io.kscale.streams;

import static io.kscale.streams.StreamsFixtures.A;
import static io.kscale.streams.StreamsFixtures.B;
import static io.kscale.streams.StreamsFixtures.CLOCK;
import static io.kscale.streams.StreamsFixtures.PROBE;
import static io.kscale.streams.StreamsFixtures.actives;
import static io.kscale.streams.StreamsFixtures.assertValid;
import static io.kscale.streams.StreamsFixtures.configs;
import static io.kscale.streams.StreamsFixtures.deadlines;
import static io.kscale.streams.StreamsFixtures.standbyCount;
import static io.kscale.streams.StreamsFixtures.state;
import static io.kscale.streams.StreamsFixtures.tasks;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.placement.ClientDescription;
import io.kscale.assignor.internals.placement.PlacementEngine;
import io.kscale.assignor.internals.placement.PlacementRequest;
import io.kscale.assignor.internals.placement.PlacementSettings;
import io.kscale.assignor.internals.placement.TaskDescription;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.junit.jupiter.api.Test;

/**
 * Issue 11: every step after the engine runs inside the safe fallback. Before the fix,
 * translating the placement back ({@code AssignmentOutput.of}) and Kafka's tag-aware standbys
 * ({@code addDefaultStandbys}) ran outside it, so an exception there escaped {@code assign()}
 * and killed the Streams leader's thread (and the next leader's, on the same input). Each test
 * injects one such failure and expects the safe assignment instead.
 */
class WarmupTaskAssignorFallbackTest {

    private static final List<TaskId> STATEFUL = tasks(0, 2);

    @Test
    void shouldFallBackToTheSafeAssignmentWhenThePlacementCannotBeTranslatedBack() {
        TestApplicationState state = state().stateful(STATEFUL)
                .client(A, a -> a.active(STATEFUL)).client(B).build();
        // A buggy engine: a placement of tasks the application does not have. They translate to a
        // null task id, on which Streams' own AssignedTask.hashCode throws.
        WarmupTaskAssignor assignor = new WarmupTaskAssignor(CLOCK, request -> new PlacementEngine().place(unknownTasks(request)));

        TaskAssignment safe = assignor.assign(state);

        assertValid(state, safe);
        assertThat(actives(safe, A)).containsExactlyElementsOf(STATEFUL);
        assertThat(deadlines(safe)).containsExactly(Optional.of(PROBE));
    }

    @Test
    void shouldFallBackToActivesOnlyWhenKafkasTagAwareStandbysFail() {
        AssignmentConfigs tagged = configs(2, 1, List.of("zone"));
        TestApplicationState healthy = state().configs(tagged).stateful(STATEFUL)
                .client(A, a -> a.active(STATEFUL)).client(B).build();
        ApplicationState state = withFailingClientTags(healthy);

        TaskAssignment safe = new WarmupTaskAssignor(CLOCK, new PlacementEngine()::place).assign(state);

        assertValid(healthy, safe);
        assertThat(actives(safe, A)).containsExactlyElementsOf(STATEFUL);
        assertThat(standbyCount(safe)).as("no standbys this rebalance: Kafka's standby assignment failed").isZero();
        assertThat(deadlines(safe)).containsExactly(Optional.of(PROBE));
    }

    private static PlacementRequest unknownTasks(PlacementRequest request) {
        List<ClientDescription> clients = new java.util.ArrayList<>();
        request.clients().forEach(client -> clients.add(ClientDescription.builder(client.id()).capacity(1).build()));
        return new PlacementRequest(List.of(TaskDescription.stateful("unknown-1"), TaskDescription.stateful("unknown-2")),
                clients, PlacementSettings.builder().standbyCount(1).build());
    }

    /** The state, except that every client's {@code clientTags()} throws, as only Kafka's tag-aware standby assignment reads them. */
    private static ApplicationState withFailingClientTags(TestApplicationState state) {
        return new ApplicationState() {
            @Override
            public Map<ProcessId, KafkaStreamsState> kafkaStreamsStates(boolean computeTaskLags) {
                Map<ProcessId, KafkaStreamsState> states = new HashMap<>();
                state.kafkaStreamsStates(computeTaskLags).forEach((id, client) -> states.put(id, failingTags(client)));
                return states;
            }

            @Override
            public AssignmentConfigs assignmentConfigs() {
                return state.assignmentConfigs();
            }

            @Override
            public Map<TaskId, TaskInfo> allTasks() {
                return state.allTasks();
            }
        };
    }

    private static KafkaStreamsState failingTags(KafkaStreamsState client) {
        return (KafkaStreamsState) Proxy.newProxyInstance(KafkaStreamsState.class.getClassLoader(),
                new Class<?>[] {KafkaStreamsState.class}, (proxy, method, args) -> {
                    if (method.getName().equals("clientTags")) {
                        throw new IllegalStateException("injected: client tags unavailable");
                    }
                    try {
                        return method.invoke(client, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
