package io.kscale.lab.placement;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.Task;
import org.apache.kafka.streams.processor.internals.assignment.ClientState;
import org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.RackAwareTaskAssignor;

/**
 * Kafka Streams' own {@code HighAvailabilityTaskAssignor} (kafka-streams 4.4, internal API, the
 * assignor Streams uses when {@code task.assignor.class} is unset) as a simulated assignor.
 *
 * <p>Driven as {@code StreamsPartitionAssignor} drives it: one {@link ClientState} per client with
 * its prior active and standby tasks and its lag per stateful task ({@code -2}, "running", for an
 * active task it runs caught up, as the subscription reports it); rack awareness off (strategy
 * {@code none}, no client racks), so the rack-aware optimizer is a no-op. When the assignor
 * returns that a probing rebalance is needed, Streams schedules one after
 * {@code probing.rebalance.interval.ms}: that is the follow-up. Warmups come back as standbys.
 */
public final class HighAvailabilitySimAssignor implements SimAssignor {

    @Override
    public String name() {
        return "high-availability";
    }

    @Override
    public RoundDecision assign(RoundInput input) {
        SimSettings s = input.settings();
        AssignmentConfigs configs = new AssignmentConfigs(s.acceptableRecoveryLag(), s.maxWarmups(), s.standbys(),
                s.probingInterval().toMillis(), List.of(), OptionalInt.empty(), OptionalInt.empty(),
                StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_NONE);
        RackAwareTaskAssignor rackAwareness = new RackAwareTaskAssignor(Cluster.empty(), Map.of(), Map.of(), Map.of(),
                null, null, configs, Time.SYSTEM);

        Map<String, TaskId> taskIds = new HashMap<>();
        Map<TaskId, String> taskNames = new HashMap<>();
        Set<TaskId> allTasks = new HashSet<>();
        Set<TaskId> statefulTasks = new HashSet<>();
        for (SimTask task : input.tasks()) {
            TaskId id = new TaskId(task.subtopology(), task.partition());
            taskIds.put(task.id(), id);
            taskNames.put(id, task.id());
            allTasks.add(id);
            if (task.stateful()) {
                statefulTasks.add(id);
            }
        }

        // Process ids follow the client order, so ties break the same way for both assignors.
        Map<ProcessId, ClientState> states = new TreeMap<>();
        Map<ProcessId, String> clientIds = new HashMap<>();
        long sequence = 0;
        for (ClientView client : input.clients()) {
            ProcessId process = new ProcessId(new UUID(0, ++sequence));
            Map<TaskId, Long> lags = new HashMap<>();
            client.lags().forEach((task, lag) -> lags.put(taskIds.get(task),
                    lag == 0 && client.priorActive().contains(task) ? Task.LATEST_OFFSET : lag));
            states.put(process, new ClientState(ids(client.priorActive(), taskIds), ids(client.priorStandby(), taskIds),
                    lags, Map.of(), client.capacity(), process));
            clientIds.put(process, client.id());
        }

        boolean probingRebalance = new HighAvailabilityTaskAssignor().assign(states, allTasks, statefulTasks,
                rackAwareness, configs);

        Map<String, Copies> copies = new TreeMap<>();
        states.forEach((process, state) -> copies.put(clientIds.get(process),
                new Copies(names(state.activeTasks(), taskNames), names(state.standbyTasks(), taskNames), Set.of())));
        Optional<Duration> followUp = probingRebalance ? Optional.of(s.probingInterval()) : Optional.empty();
        return new RoundDecision(copies, followUp);
    }

    private static Set<TaskId> ids(Set<String> names, Map<String, TaskId> taskIds) {
        Set<TaskId> ids = new HashSet<>();
        names.forEach(name -> ids.add(taskIds.get(name)));
        return ids;
    }

    private static Set<String> names(Set<TaskId> ids, Map<TaskId, String> taskNames) {
        Set<String> names = new HashSet<>();
        ids.forEach(id -> names.add(taskNames.get(id)));
        return names;
    }
}
