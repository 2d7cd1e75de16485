package io.kscale.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.placement.PlacementEngine;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.apache.kafka.streams.processor.assignment.TaskInfo;

/**
 * Shared fixtures of the WarmupTaskAssignor tests (in the manner of Kafka Streams'
 * AssignmentTestUtils): named clients, tasks, settings, a builder of application states, the
 * assignor run with the validity check, and the round-by-round feedback of an assignment as the
 * next rebalance's prior state.
 */
final class StreamsFixtures {

    static final ProcessId A = process(1);
    static final ProcessId B = process(2);
    static final ProcessId C = process(3);
    static final ProcessId D = process(4);
    /** Kafka Streams' default acceptable.recovery.lag. */
    static final long ACCEPTABLE_LAG = 10_000;
    /** A lag well past the acceptable one: the client must restore before it can run the task. */
    static final long FAR_BEHIND = 50 * ACCEPTABLE_LAG;
    /** Kafka Streams' default probing.rebalance.interval.ms. */
    static final long PROBING_MS = 600_000;
    static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    static final Instant PROBE = NOW.plusMillis(PROBING_MS);
    /** A measuring follow-up: the leader has no restore-rate history yet (a tenth of the probing interval, at most 30 s). */
    static final Instant MEASURE = NOW.plusSeconds(30);
    static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    private StreamsFixtures() {
    }

    static ProcessId process(int n) {
        return new ProcessId(new UUID(0, n));
    }

    static TaskId task(int subtopology, int partition) {
        return new TaskId(subtopology, partition);
    }

    /** Tasks {@code subtopology_0 .. subtopology_(count-1)}. */
    static List<TaskId> tasks(int subtopology, int count) {
        return IntStream.range(0, count).mapToObj(p -> task(subtopology, p)).collect(Collectors.toList());
    }

    /** Streams' defaults (2 warmups) with the given standbys, no tags. */
    static AssignmentConfigs configs(int standbys) {
        return configs(2, standbys, List.of());
    }

    static AssignmentConfigs configs(int maxWarmups, int standbys, List<String> tags) {
        return new AssignmentConfigs(ACCEPTABLE_LAG, maxWarmups, standbys, PROBING_MS, tags, OptionalInt.empty(),
                OptionalInt.empty(), StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_NONE);
    }

    static StateBuilder state() {
        return new StateBuilder();
    }

    /** Runs a fresh assignor, as Streams does every rebalance, and checks the result is valid. */
    static TaskAssignment assign(TestApplicationState state) {
        TaskAssignment assignment = new WarmupTaskAssignor(CLOCK, new PlacementEngine()::place).assign(state);
        assertValid(state, assignment);
        return assignment;
    }

    /**
     * The checks every result must pass: Streams' own validation, and beyond it, every task active
     * exactly once on a client with threads, nothing at all on clients without threads.
     */
    static void assertValid(TestApplicationState state, TaskAssignment assignment) {
        assertThat(TaskAssignmentUtils.validateTaskAssignment(state, assignment)).isEqualTo(AssignmentError.NONE);
        List<TaskId> actives = new ArrayList<>();
        for (KafkaStreamsAssignment client : assignment.assignment()) {
            actives.addAll(of(client, AssignedTask.Type.ACTIVE));
            if (state.clients().get(client.processId()).threads == 0) {
                assertThat(client.tasks()).as("tasks of %s, which has no threads", client.processId()).isEmpty();
            }
        }
        assertThat(actives).as("active tasks").containsExactlyInAnyOrderElementsOf(state.allTasks().keySet());
    }

    static Map<ProcessId, KafkaStreamsAssignment> byClient(TaskAssignment assignment) {
        Map<ProcessId, KafkaStreamsAssignment> byClient = new HashMap<>();
        assignment.assignment().forEach(client -> byClient.put(client.processId(), client));
        return byClient;
    }

    static Set<TaskId> actives(TaskAssignment assignment, ProcessId client) {
        return of(byClient(assignment).get(client), AssignedTask.Type.ACTIVE);
    }

    static Set<TaskId> standbys(TaskAssignment assignment, ProcessId client) {
        return of(byClient(assignment).get(client), AssignedTask.Type.STANDBY);
    }

    static int standbyCount(TaskAssignment assignment) {
        return assignment.assignment().stream().mapToInt(client -> of(client, AssignedTask.Type.STANDBY).size()).sum();
    }

    /** @return the follow-up deadlines of the clients, empty if none wants one */
    static Set<Optional<Instant>> deadlines(TaskAssignment assignment) {
        return assignment.assignment().stream().map(KafkaStreamsAssignment::followupRebalanceDeadline)
                .collect(Collectors.toSet());
    }

    /** @return whether some client got a follow-up deadline */
    static boolean followUpWanted(TaskAssignment assignment) {
        return deadlines(assignment).stream().anyMatch(Optional::isPresent);
    }

    private static Set<TaskId> of(KafkaStreamsAssignment client, AssignedTask.Type type) {
        return client.tasks().values().stream().filter(task -> task.type() == type).map(AssignedTask::id)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * The next rebalance after an assignment ran long enough for every standby to catch up: the
     * same tasks, clients and settings, with prior tasks from the assignment, lag
     * {@link PlacementInput#LATEST_OFFSET} for actives, 0 for standbys, {@link #FAR_BEHIND} elsewhere.
     */
    static TestApplicationState next(TestApplicationState state, TaskAssignment assignment) {
        Map<ProcessId, KafkaStreamsAssignment> byClient = byClient(assignment);
        Map<ProcessId, TestApplicationState.Client> clients = new LinkedHashMap<>();
        state.clients().forEach((id, client) -> {
            Set<TaskId> active = of(byClient.get(id), AssignedTask.Type.ACTIVE);
            Set<TaskId> standby = of(byClient.get(id), AssignedTask.Type.STANDBY);
            clients.put(id, new TestApplicationState.Client(id, client.threads, client.rack, client.tags, active,
                    standby, lags(state.allTasks().values(), active, standby, FAR_BEHIND, Map.of())));
        });
        return new TestApplicationState(state.assignmentConfigs(), state.allTasks(), clients);
    }

    private static Map<TaskId, Long> lags(Collection<TaskInfo> tasks, Set<TaskId> active, Set<TaskId> standby,
                                          long otherLag, Map<TaskId, Long> overrides) {
        Map<TaskId, Long> lags = new HashMap<>();
        for (TaskInfo task : tasks) {
            if (!PlacementInput.isStateful(task)) {
                continue;
            }
            long lag = active.contains(task.id()) ? PlacementInput.LATEST_OFFSET
                    : standby.contains(task.id()) ? 0 : otherLag;
            lags.put(task.id(), overrides.getOrDefault(task.id(), lag));
        }
        return lags;
    }

    /** Builds a {@link TestApplicationState}; clients report lags only for logged stateful tasks, as in Streams. */
    static final class StateBuilder {
        private AssignmentConfigs configs = StreamsFixtures.configs(0);
        private final Map<TaskId, TaskInfo> tasks = new LinkedHashMap<>();
        private final Map<ProcessId, ClientBuilder> clients = new LinkedHashMap<>();

        StateBuilder configs(AssignmentConfigs configs) {
            this.configs = configs;
            return this;
        }

        /** Tasks with a logged store {@code store-<subtopology>}. */
        StateBuilder stateful(Collection<TaskId> ids) {
            ids.forEach(id -> tasks.put(id,
                    new TestApplicationState.Task(id, Set.of("store-" + id.subtopology()), true)));
            return this;
        }

        /** Tasks without stores. */
        StateBuilder stateless(Collection<TaskId> ids) {
            ids.forEach(id -> tasks.put(id, new TestApplicationState.Task(id, Set.of(), false)));
            return this;
        }

        /** Tasks with a store whose logging is disabled: stateful to Streams, but nothing to restore. */
        StateBuilder unlogged(Collection<TaskId> ids) {
            ids.forEach(id -> tasks.put(id,
                    new TestApplicationState.Task(id, Set.of("cache-" + id.subtopology()), false)));
            return this;
        }

        StateBuilder client(ProcessId id) {
            return client(id, client -> { });
        }

        StateBuilder client(ProcessId id, Consumer<ClientBuilder> spec) {
            ClientBuilder client = new ClientBuilder(id);
            spec.accept(client);
            clients.put(id, client);
            return this;
        }

        TestApplicationState build() {
            Map<ProcessId, TestApplicationState.Client> built = new LinkedHashMap<>();
            clients.forEach((id, client) -> built.put(id, client.build(tasks.values())));
            return new TestApplicationState(configs, tasks, built);
        }
    }

    /** One client: 1 thread, no rack; lags -2 for prior actives, 0 for prior standbys, far behind elsewhere. */
    static final class ClientBuilder {
        private final ProcessId id;
        private int threads = 1;
        private String rack;
        private final Map<String, String> tags = new HashMap<>();
        private final Set<TaskId> active = new HashSet<>();
        private final Set<TaskId> standby = new HashSet<>();
        private final Map<TaskId, Long> lags = new HashMap<>();
        private long otherLag = FAR_BEHIND;

        private ClientBuilder(ProcessId id) {
            this.id = id;
        }

        ClientBuilder threads(int threads) {
            this.threads = threads;
            return this;
        }

        ClientBuilder rack(String rack) {
            this.rack = rack;
            return this;
        }

        ClientBuilder tag(String key, String value) {
            tags.put(key, value);
            return this;
        }

        ClientBuilder active(Collection<TaskId> tasks) {
            active.addAll(tasks);
            return this;
        }

        ClientBuilder active(TaskId... tasks) {
            return active(Arrays.asList(tasks));
        }

        ClientBuilder standby(Collection<TaskId> tasks) {
            standby.addAll(tasks);
            return this;
        }

        ClientBuilder standby(TaskId... tasks) {
            return standby(Arrays.asList(tasks));
        }

        ClientBuilder lag(TaskId task, long lag) {
            lags.put(task, lag);
            return this;
        }

        /** The lag reported for every stateful task the client neither ran nor held a standby of. */
        ClientBuilder otherLag(long lag) {
            this.otherLag = lag;
            return this;
        }

        TestApplicationState.Client build(Collection<TaskInfo> tasks) {
            return new TestApplicationState.Client(id, threads, Optional.ofNullable(rack), tags, active, standby,
                    lags(tasks, active, standby, otherLag, lags));
        }
    }
}
