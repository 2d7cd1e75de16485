package io.kscale.streams;

import io.kscale.assignor.internals.placement.ClientPlacement;
import io.kscale.assignor.internals.placement.Placement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;

/**
 * Translates a {@link Placement} back into Kafka Streams' types: actives as
 * {@link AssignedTask.Type#ACTIVE}, standbys and warmups as {@link AssignedTask.Type#STANDBY}
 * (Streams has no warmup type: a warmup is a standby plus a follow-up rebalance).
 */
final class AssignmentOutput {

    private AssignmentOutput() {
    }

    /**
     * One assignment per client of the placement, including clients given nothing (Streams
     * rejects an assignment that leaves a client out).
     *
     * @param input the translation the placement came from
     * @param placement the engine's placement
     * @return the assignments by process id, in process id order; mutable
     */
    static Map<ProcessId, KafkaStreamsAssignment> of(PlacementInput input, Placement placement) {
        Map<ProcessId, KafkaStreamsAssignment> assignments = new LinkedHashMap<>();
        for (ClientPlacement client : placement.clients().values()) {
            Set<AssignedTask> tasks = new HashSet<>();
            add(tasks, input, client.active(), AssignedTask.Type.ACTIVE);
            add(tasks, input, client.standby(), AssignedTask.Type.STANDBY);
            add(tasks, input, client.warmup(), AssignedTask.Type.STANDBY);
            ProcessId processId = input.processIds.get(client.clientId());
            assignments.put(processId, KafkaStreamsAssignment.of(processId, tasks));
        }
        return assignments;
    }

    private static void add(Set<AssignedTask> tasks, PlacementInput input, Set<String> ids, AssignedTask.Type type) {
        for (String id : ids) {
            tasks.add(new AssignedTask(input.taskIds.get(id), type));
        }
    }

    /**
     * Adds standbys with Kafka's own default standby assignment, which honours
     * {@code rack.aware.assignment.tags}; drops any it put on a client without threads.
     *
     * @param state the application state
     * @param assignments the assignments with actives (and warmups) placed; changed in place
     */
    static void addDefaultStandbys(ApplicationState state, Map<ProcessId, KafkaStreamsAssignment> assignments) {
        TaskAssignmentUtils.defaultStandbyTaskAssignment(state, assignments);
        Map<ProcessId, KafkaStreamsState> states = state.kafkaStreamsStates(false);
        for (KafkaStreamsAssignment assignment : assignments.values()) {
            if (states.get(assignment.processId()).numProcessingThreads() > 0) {
                continue;
            }
            List<AssignedTask> standbys = new ArrayList<>();
            for (AssignedTask task : assignment.tasks().values()) {
                if (task.type() == AssignedTask.Type.STANDBY) {
                    standbys.add(task);
                }
            }
            standbys.forEach(assignment::removeTask);
        }
    }

    /**
     * The task assignment, with the follow-up deadline on every client: any client may leave
     * before the deadline, and the same instant everywhere makes one rebalance.
     *
     * @param assignments the assignments
     * @param followUp when to rebalance again, if at all
     * @return the task assignment
     */
    static TaskAssignment withFollowUp(Map<ProcessId, KafkaStreamsAssignment> assignments, Optional<Instant> followUp) {
        List<KafkaStreamsAssignment> result = new ArrayList<>(assignments.size());
        for (KafkaStreamsAssignment assignment : assignments.values()) {
            result.add(followUp.isPresent() ? assignment.withFollowupRebalance(followUp.get()) : assignment);
        }
        return new TaskAssignment(result);
    }
}
