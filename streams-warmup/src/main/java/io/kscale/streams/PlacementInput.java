package io.kscale.streams;

import io.kscale.assignor.internals.placement.ClientDescription;
import io.kscale.assignor.internals.placement.PlacementRequest;
import io.kscale.assignor.internals.placement.PlacementSettings;
import io.kscale.assignor.internals.placement.TaskDescription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.streams.errors.TaskAssignmentException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;

/**
 * One rebalance's {@link ApplicationState} translated into a {@link PlacementRequest}, with the
 * id maps to translate the placement back and the counts the assignor logs.
 *
 * <p>Rules of the translation:
 * <ul>
 *   <li>a task is stateful for placement when {@link TaskInfo#isStateful()} and it has a
 *       changelog partition: a task whose stores are not logged has nothing to restore or warm
 *       up (Kafka's standby assignment skips it too), so it is balanced freely;</li>
 *   <li>every task weighs 1, and its group is its sub-topology, so each sub-topology is spread;</li>
 *   <li>prior tasks that no longer exist are dropped; a task that several clients claim as prior
 *       active stays prior active on the first by process id and is a prior standby of the
 *       others (they all ran it, so they all have its state);</li>
 *   <li>lags ({@link KafkaStreamsState#lagFor}) of stateful tasks: {@value #LATEST_OFFSET}
 *       (ran active there) is 0; {@value #UNKNOWN_OFFSET_SUM} or any other negative value is
 *       unknown, except that a client holding a prior standby of the task gets
 *       {@link #UNKNOWN_LAG_WITH_STATE}: it ranks behind every known lag but ahead of clients with
 *       no state, so a task whose owner left goes to a former standby, as in Kafka's
 *       {@code FallbackPriorTaskAssignor}.</li>
 * </ul>
 */
final class PlacementInput {

    /** Kafka Streams' {@code Task.LATEST_OFFSET}: the client ran the task as active. */
    static final long LATEST_OFFSET = -2;
    /** Kafka Streams' {@code UNKNOWN_OFFSET_SUM}: the lag could not be computed. */
    static final long UNKNOWN_OFFSET_SUM = -3;
    /** The lag given to a prior standby whose real lag is unknown: known to be large, not unknown. */
    static final long UNKNOWN_LAG_WITH_STATE = Long.MAX_VALUE - 1;

    final PlacementRequest request;
    /** Engine task id to Kafka task id, in id order. */
    final Map<String, TaskId> taskIds;
    /** Engine client id to Kafka process id, in id order. */
    final Map<String, ProcessId> processIds;
    final int statefulTasks;
    /** Stateful lags that were unknown (sentinel {@value #UNKNOWN_OFFSET_SUM} or other negative). */
    final int unknownLags;
    /** Stateful lags that were known and not the prior-active sentinel. */
    final int knownLags;
    /** Tasks claimed as prior active by more than one client. */
    final int conflictingOwners;
    /** Whether standbys come from Kafka's client-tag-aware assignment instead of the engine. */
    final boolean tagAwareStandbys;
    final Duration probingInterval;

    private PlacementInput(Builder b) {
        this.request = b.request;
        this.taskIds = Collections.unmodifiableMap(b.taskIds);
        this.processIds = Collections.unmodifiableMap(b.processIds);
        this.statefulTasks = b.statefulTasks;
        this.unknownLags = b.unknownLags;
        this.knownLags = b.knownLags;
        this.conflictingOwners = b.conflictingOwners;
        this.tagAwareStandbys = b.tagAwareStandbys;
        this.probingInterval = b.probingInterval;
    }

    /**
     * Translates an application state.
     *
     * @param state the state of this rebalance
     * @param config kscale's own settings of the assignor
     * @return the translation
     * @throws TaskAssignmentException if the state breaks a rule of the engine (a negative
     *         setting, say); Streams validates its settings, so this means a broken state
     */
    static PlacementInput of(ApplicationState state, WarmupTaskAssignorConfig config) {
        try {
            return new Builder(state, config).build();
        } catch (IllegalArgumentException e) {
            throw new TaskAssignmentException("WarmupTaskAssignor cannot translate this rebalance's application state: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Whether the changelog end offsets could not be looked up: some lags are unknown and none is
     * known. Streams then reports {@value #UNKNOWN_OFFSET_SUM} for every task a client did not run.
     *
     * @return whether the assignor falls back to the prior assignment
     */
    boolean endOffsetsUnknown() {
        return unknownLags > 0 && knownLags == 0;
    }

    /**
     * The placement settings from Streams' assignment configs and kscale's own settings.
     *
     * @param configs the configs
     * @param config kscale's settings: the restore rate that predicts when a warmup catches up
     * @param tagAwareStandbys whether Kafka places the standbys (then the engine places none)
     * @return the settings
     */
    static PlacementSettings settings(AssignmentConfigs configs, WarmupTaskAssignorConfig config,
                                      boolean tagAwareStandbys) {
        Duration probing = Duration.ofMillis(configs.probingRebalanceIntervalMs());
        Duration minFollowUp = PlacementSettings.DEFAULT_MIN_FOLLOW_UP_DELAY.compareTo(probing) <= 0
                ? PlacementSettings.DEFAULT_MIN_FOLLOW_UP_DELAY : probing;
        return PlacementSettings.builder()
                .acceptableRecoveryLag(configs.acceptableRecoveryLag())
                .maxWarmups(configs.maxWarmupReplicas())
                .standbyCount(tagAwareStandbys ? 0 : configs.numStandbyReplicas())
                .probingInterval(probing)
                .minFollowUpDelay(minFollowUp)
                .restoreRecordsPerSecond(config.restoreRecordsPerSecond())
                .build();
    }

    /** The group of a task: its sub-topology (within its named topology, if any). */
    static String group(TaskId task) {
        String subtopology = "subtopology-" + task.subtopology();
        return task.topologyName() == null ? subtopology : task.topologyName() + "/" + subtopology;
    }

    static boolean isStateful(TaskInfo task) {
        return task.isStateful() && task.topicPartitions().stream().anyMatch(TaskTopicPartition::isChangelog);
    }

    private static final class Builder {
        private final ApplicationState state;
        private final WarmupTaskAssignorConfig config;
        private final Map<String, TaskId> taskIds = new LinkedHashMap<>();
        private final Map<String, ProcessId> processIds = new LinkedHashMap<>();
        private final Set<TaskId> stateful = new HashSet<>();
        private final Map<TaskId, String> activeOwner = new TreeMap<>();
        private PlacementRequest request;
        private int statefulTasks;
        private int unknownLags;
        private int knownLags;
        private int conflictingOwners;
        private boolean tagAwareStandbys;
        private Duration probingInterval;

        Builder(ApplicationState state, WarmupTaskAssignorConfig config) {
            this.state = state;
            this.config = config;
        }

        PlacementInput build() {
            AssignmentConfigs configs = state.assignmentConfigs();
            tagAwareStandbys = !configs.rackAwareAssignmentTags().isEmpty() && configs.numStandbyReplicas() > 0;
            PlacementSettings settings = settings(configs, config, tagAwareStandbys);
            probingInterval = settings.probingInterval();
            List<TaskDescription> tasks = tasks();
            List<ClientDescription> clients = clients();
            request = PlacementRequest.of(tasks, clients, settings);
            return new PlacementInput(this);
        }

        private List<TaskDescription> tasks() {
            List<TaskDescription> tasks = new ArrayList<>();
            for (TaskInfo info : new TreeMap<>(state.allTasks()).values()) {
                TaskId id = info.id();
                boolean isStateful = isStateful(info);
                if (isStateful) {
                    stateful.add(id);
                    statefulTasks++;
                }
                taskIds.put(id.toString(), id);
                TaskDescription task = isStateful ? TaskDescription.stateful(id.toString())
                        : TaskDescription.stateless(id.toString());
                tasks.add(task.inGroup(group(id)));
            }
            return tasks;
        }

        private List<ClientDescription> clients() {
            Map<ProcessId, KafkaStreamsState> states = new TreeMap<>(state.kafkaStreamsStates(true));
            List<ClientDescription> clients = new ArrayList<>(states.size());
            for (KafkaStreamsState client : states.values()) {
                String id = client.processId().id().toString();
                processIds.put(id, client.processId());
                clients.add(client(id, client));
            }
            return clients;
        }

        private ClientDescription client(String id, KafkaStreamsState client) {
            Set<String> active = new HashSet<>();
            Set<String> standby = new HashSet<>();
            for (TaskId task : client.previousActiveTasks()) {
                if (!state.allTasks().containsKey(task)) {
                    continue;
                }
                String owner = activeOwner.putIfAbsent(task, id);
                if (owner == null) {
                    active.add(task.toString());
                } else {
                    conflictingOwners++;
                    standby.add(task.toString());
                }
            }
            for (TaskId task : client.previousStandbyTasks()) {
                if (state.allTasks().containsKey(task) && !active.contains(task.toString())) {
                    standby.add(task.toString());
                }
            }
            ClientDescription.Builder builder = ClientDescription.builder(id)
                    .capacity(Math.max(0, client.numProcessingThreads()))
                    .rack(client.rackId().orElse(null))
                    .priorActive(active)
                    .priorStandby(standby);
            for (TaskId task : stateful) {
                long lag = lag(client, task);
                if (lag == LATEST_OFFSET) {
                    builder.lag(task.toString(), 0);
                } else if (lag >= 0) {
                    knownLags++;
                    builder.lag(task.toString(), lag);
                } else {
                    unknownLags++;
                    if (standby.contains(task.toString())) {
                        builder.lag(task.toString(), UNKNOWN_LAG_WITH_STATE);
                    }
                }
            }
            return builder.build();
        }

        /** Streams throws for a task it computed no lag for; that lag is simply unknown. */
        private static long lag(KafkaStreamsState client, TaskId task) {
            try {
                return client.lagFor(task);
            } catch (IllegalStateException | UnsupportedOperationException e) {
                return UNKNOWN_OFFSET_SUM;
            }
        }
    }
}
