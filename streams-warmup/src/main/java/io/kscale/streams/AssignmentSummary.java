package io.kscale.streams;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * What one assignment does, counted from what Streams is handed, for the INFO line and the
 * gauges of {@link WarmupAssignorMetrics}. Immutable, so that a gauge never mixes two rebalances.
 *
 * <p>A task moved is an active task given to a client other than every client that ran it as
 * active before: a task that no present client ran (new, or its owner left the group) is not a
 * move, it is placed. Warmups are the engine's (Streams sees them as standbys); standbys are the
 * other standby copies.
 */
final class AssignmentSummary {

    /** Before the first assignment. */
    static final AssignmentSummary NONE = new AssignmentSummary(0, 0, 0, 0, Optional.empty());

    final int movedActives;
    final int warmups;
    final int standbys;
    final int pendingMoves;
    final Optional<Duration> followUp;

    private AssignmentSummary(int movedActives, int warmups, int standbys, int pendingMoves,
                              Optional<Duration> followUp) {
        this.movedActives = movedActives;
        this.warmups = warmups;
        this.standbys = standbys;
        this.pendingMoves = pendingMoves;
        this.followUp = followUp;
    }

    /**
     * @param state the application state, for the prior active owners
     * @param assignments the assignment of every client
     * @param warmups how many of the standby copies are warmups
     * @param pendingMoves the moves the engine defers until a warmup has caught up
     * @param followUp the delay of the follow-up rebalance, if any
     * @return the summary
     */
    static AssignmentSummary of(ApplicationState state, Collection<KafkaStreamsAssignment> assignments, int warmups,
                                int pendingMoves, Optional<Duration> followUp) {
        Map<TaskId, Set<ProcessId>> priorOwners = new HashMap<>();
        for (KafkaStreamsState client : state.kafkaStreamsStates(false).values()) {
            client.previousActiveTasks().forEach(task ->
                    priorOwners.computeIfAbsent(task, t -> new HashSet<>()).add(client.processId()));
        }
        int moved = 0;
        int standbyCopies = 0;
        for (KafkaStreamsAssignment assignment : assignments) {
            for (AssignedTask task : assignment.tasks().values()) {
                if (task.type() == AssignedTask.Type.STANDBY) {
                    standbyCopies++;
                    continue;
                }
                Set<ProcessId> owners = priorOwners.get(task.id());
                if (owners != null && !owners.contains(assignment.processId())) {
                    moved++;
                }
            }
        }
        return new AssignmentSummary(moved, warmups, standbyCopies - warmups, pendingMoves, followUp);
    }
}
