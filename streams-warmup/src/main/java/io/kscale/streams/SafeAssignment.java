package io.kscale.streams;

import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.streams.errors.TaskAssignmentException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The assignment {@link WarmupTaskAssignor} returns instead of one that fails
 * {@code TaskAssignmentUtils.validateTaskAssignment} (which would kill the leader's stream thread,
 * and the next leader would compute the same). Valid by construction from the application state
 * alone: every task active once, on its prior owner if that client still has threads (the first
 * by process id if several claim it), else on the client with the fewest tasks per thread;
 * standbys from Kafka's default standby assignment (none if it fails); no lags, no warmups.
 */
final class SafeAssignment {

    private static final Logger LOG = LoggerFactory.getLogger(WarmupTaskAssignor.class);

    private SafeAssignment() {
    }

    /**
     * Builds the safe assignment.
     *
     * @param state the application state
     * @param followUp when to rebalance again, if at all
     * @return a valid assignment
     * @throws TaskAssignmentException if there are tasks and no client has a thread
     */
    static TaskAssignment of(ApplicationState state, Optional<Instant> followUp) {
        Map<ProcessId, KafkaStreamsState> states = new TreeMap<>(state.kafkaStreamsStates(false));
        Map<ProcessId, KafkaStreamsAssignment> assignments = new LinkedHashMap<>();
        Map<ProcessId, Integer> load = new TreeMap<>();
        states.keySet().forEach(id -> {
            assignments.put(id, KafkaStreamsAssignment.of(id, new HashSet<>()));
            load.put(id, 0);
        });
        for (TaskId task : new TreeMap<>(state.allTasks()).keySet()) {
            ProcessId client = priorOwner(states, task).orElseGet(() -> leastLoaded(states, load, task));
            assignments.get(client).assignTask(new AssignedTask(task, AssignedTask.Type.ACTIVE));
            load.merge(client, 1, Integer::sum);
        }
        addStandbys(state, assignments);
        return AssignmentOutput.withFollowUp(assignments, followUp);
    }

    /**
     * Kafka's default standbys, unless they fail: this is the last resort, so it goes on with the
     * actives alone rather than let an exception kill the leader's stream thread (standbys are
     * only copies; the follow-up rebalance tries again).
     */
    private static void addStandbys(ApplicationState state, Map<ProcessId, KafkaStreamsAssignment> assignments) {
        Map<ProcessId, Set<AssignedTask>> actives = new LinkedHashMap<>();
        assignments.forEach((id, assignment) -> actives.put(id, new HashSet<>(assignment.tasks().values())));
        try {
            AssignmentOutput.addDefaultStandbys(state, assignments);
        } catch (RuntimeException e) {
            LOG.error("WarmupTaskAssignor: Kafka's default standby assignment failed too; assigning active tasks "
                    + "only for this rebalance", e);
            actives.forEach((id, tasks) -> assignments.put(id, KafkaStreamsAssignment.of(id, tasks)));
        }
    }

    private static Optional<ProcessId> priorOwner(Map<ProcessId, KafkaStreamsState> states, TaskId task) {
        return states.values().stream()
                .filter(client -> client.numProcessingThreads() > 0 && client.previousActiveTasks().contains(task))
                .map(KafkaStreamsState::processId)
                .findFirst();
    }

    private static ProcessId leastLoaded(Map<ProcessId, KafkaStreamsState> states, Map<ProcessId, Integer> load,
                                         TaskId task) {
        ProcessId best = null;
        for (KafkaStreamsState client : states.values()) {
            int threads = client.numProcessingThreads();
            if (threads <= 0) {
                continue;
            }
            if (best == null || (long) load.get(client.processId()) * states.get(best).numProcessingThreads()
                    < (long) load.get(best) * threads) {
                best = client.processId();
            }
        }
        if (best == null) {
            throw new TaskAssignmentException("No Kafka Streams client has a processing thread to run task " + task
                    + " (" + states.size() + " clients); start an instance with num.stream.threads of 1 or more");
        }
        return best;
    }
}
