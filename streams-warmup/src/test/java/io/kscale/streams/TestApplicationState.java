package io.kscale.streams;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;
import org.apache.kafka.streams.state.HostInfo;

/**
 * A hand-built {@link ApplicationState} that behaves like Kafka Streams' own
 * ({@code DefaultApplicationState}, {@code DefaultKafkaStreamsState}): {@code lagFor} throws
 * {@link UnsupportedOperationException} unless lags were requested and
 * {@link IllegalStateException} for a task without a changelog.
 */
final class TestApplicationState implements ApplicationState {

    private final AssignmentConfigs configs;
    private final Map<TaskId, TaskInfo> tasks;
    private final Map<ProcessId, Client> clients;

    TestApplicationState(AssignmentConfigs configs, Map<TaskId, TaskInfo> tasks, Map<ProcessId, Client> clients) {
        this.configs = configs;
        this.tasks = Collections.unmodifiableMap(new TreeMap<>(tasks));
        this.clients = Collections.unmodifiableMap(new TreeMap<>(clients));
    }

    @Override
    public Map<ProcessId, KafkaStreamsState> kafkaStreamsStates(boolean computeTaskLags) {
        Map<ProcessId, KafkaStreamsState> states = new HashMap<>();
        clients.forEach((id, client) -> states.put(id, new State(client, computeTaskLags)));
        return states;
    }

    @Override
    public AssignmentConfigs assignmentConfigs() {
        return configs;
    }

    @Override
    public Map<TaskId, TaskInfo> allTasks() {
        return tasks;
    }

    Map<ProcessId, Client> clients() {
        return clients;
    }

    /** What one Kafka Streams client reports; lags only for stateful tasks, like Streams. */
    static final class Client {
        final ProcessId processId;
        final int threads;
        final Optional<String> rack;
        final Map<String, String> tags;
        final SortedSet<TaskId> previousActive;
        final SortedSet<TaskId> previousStandby;
        final Map<TaskId, Long> lags;

        Client(ProcessId processId, int threads, Optional<String> rack, Map<String, String> tags,
               Set<TaskId> previousActive, Set<TaskId> previousStandby, Map<TaskId, Long> lags) {
            this.processId = processId;
            this.threads = threads;
            this.rack = rack;
            this.tags = Map.copyOf(tags);
            this.previousActive = Collections.unmodifiableSortedSet(new TreeSet<>(previousActive));
            this.previousStandby = Collections.unmodifiableSortedSet(new TreeSet<>(previousStandby));
            this.lags = Map.copyOf(lags);
        }
    }

    private static final class State implements KafkaStreamsState {
        private final Client client;
        private final boolean lagsComputed;

        State(Client client, boolean lagsComputed) {
            this.client = client;
            this.lagsComputed = lagsComputed;
        }

        @Override
        public ProcessId processId() {
            return client.processId;
        }

        @Override
        public int numProcessingThreads() {
            return client.threads;
        }

        @Override
        public SortedSet<String> consumerClientIds() {
            return new TreeSet<>(List.of(client.processId + "-consumer"));
        }

        @Override
        public SortedSet<TaskId> previousActiveTasks() {
            return client.previousActive;
        }

        @Override
        public SortedSet<TaskId> previousStandbyTasks() {
            return client.previousStandby;
        }

        @Override
        public long lagFor(TaskId task) {
            if (!lagsComputed) {
                throw new UnsupportedOperationException("Lag computation was not requested for " + client.processId);
            }
            Long lag = client.lags.get(task);
            if (lag == null) {
                throw new IllegalStateException("Tried to lookup lag for unknown task " + task);
            }
            return lag;
        }

        @Override
        public SortedSet<TaskId> prevTasksByLag(String consumerClientId) {
            return client.previousActive.stream().filter(client.lags::containsKey)
                    .collect(Collectors.toCollection(TreeSet::new));
        }

        @Override
        public Map<TaskId, Long> statefulTasksToLagSums() {
            Map<TaskId, Long> lags = new LinkedHashMap<>();
            client.lags.keySet().forEach(task -> lags.put(task, lagFor(task)));
            return lags;
        }

        @Override
        public Optional<HostInfo> hostInfo() {
            return Optional.empty();
        }

        @Override
        public Map<String, String> clientTags() {
            return client.tags;
        }

        @Override
        public Optional<String> rackId() {
            return client.rack;
        }
    }

    /** A task of a sub-topology: a source partition, and a changelog partition if it is logged. */
    static final class Task implements TaskInfo {
        private final TaskId id;
        private final Set<String> stores;
        private final Set<TaskTopicPartition> partitions;

        Task(TaskId id, Set<String> stores, boolean logged) {
            this.id = id;
            this.stores = Set.copyOf(stores);
            Set<TaskTopicPartition> partitions = new java.util.HashSet<>();
            partitions.add(new Partition(new TopicPartition("input-" + id.subtopology(), id.partition()), true, false));
            if (logged) {
                for (String store : stores) {
                    partitions.add(new Partition(new TopicPartition("app-" + store + "-changelog", id.partition()),
                            false, true));
                }
            }
            this.partitions = Set.copyOf(partitions);
        }

        @Override
        public TaskId id() {
            return id;
        }

        @Override
        public boolean isStateful() {
            return !stores.isEmpty();
        }

        @Override
        public Set<String> stateStoreNames() {
            return stores;
        }

        @Override
        public Set<TaskTopicPartition> topicPartitions() {
            return partitions;
        }
    }

    private static final class Partition implements TaskTopicPartition {
        private final TopicPartition partition;
        private final boolean source;
        private final boolean changelog;

        Partition(TopicPartition partition, boolean source, boolean changelog) {
            this.partition = partition;
            this.source = source;
            this.changelog = changelog;
        }

        @Override
        public TopicPartition topicPartition() {
            return partition;
        }

        @Override
        public boolean isSource() {
            return source;
        }

        @Override
        public boolean isChangelog() {
            return changelog;
        }

        @Override
        public Optional<Set<String>> rackIds() {
            return Optional.empty();
        }

        @Override
        public String toString() {
            return partition + (changelog ? " (changelog)" : "");
        }
    }
}
