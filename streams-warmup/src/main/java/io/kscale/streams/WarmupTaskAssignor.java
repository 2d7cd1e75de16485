package io.kscale.streams;

import io.kscale.assignor.internals.placement.Placement;
import io.kscale.assignor.internals.placement.PlacementEngine;
import io.kscale.assignor.internals.placement.PlacementOutcome;
import io.kscale.assignor.internals.placement.PlacementRequest;
import io.kscale.assignor.internals.placement.RestoreRateLearner;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.streams.errors.TaskAssignmentException;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka Streams task assignor (KIP-924) that scales out without stopping to restore state: the
 * caught-up prior owner keeps running a stateful task while its new owner warms up a copy, and the
 * task moves at the first rebalance after the copy has caught up (KIP-441). Set it with
 * {@code task.assignor.class=io.kscale.streams.WarmupTaskAssignor}. It works with the classic
 * group protocol only: with {@code group.protocol=streams} (KIP-1071) the broker assigns the tasks
 * and Streams ignores {@code task.assignor.class}.
 *
 * <p><b>Design.</b> A thin adapter over the pure placement engine {@link PlacementEngine}, whose
 * class comment gives the cost function: replay time first (a stateful task is active only on a
 * client whose lag is at most {@code acceptable.recovery.lag}, when one exists), then even load
 * (tasks per stream thread), then the spread of each sub-topology, then the fewest moves. Streams
 * makes a new instance for every rebalance and calls {@link #assign} once; everything is derived
 * from the {@link ApplicationState}, nothing is kept in memory. Each rebalance:
 * <ol>
 *   <li><b>translate</b>: each {@code TaskInfo} becomes a task with id {@code TaskId.toString()},
 *       stateful when {@code isStateful()} and it has a changelog partition (a task whose stores
 *       are not logged has nothing to restore, and Kafka's standby assignment skips it too), in the
 *       co-location group of its sub-topology, so each sub-topology is spread; each
 *       {@code KafkaStreamsState} becomes a client with id its process id, capacity
 *       {@code numProcessingThreads()}, rack {@code rackId()}, its prior active and standby tasks,
 *       and {@code lagFor(task)} of every stateful task. Settings: {@code acceptable.recovery.lag},
 *       {@code max.warmup.replicas}, {@code num.standby.replicas},
 *       {@code probing.rebalance.interval.ms};</li>
 *   <li><b>place</b> with the engine;</li>
 *   <li><b>translate back</b>: actives as {@code ACTIVE}, standbys and warmups as {@code STANDBY}
 *       (Streams has no warmup type: a warmup is a standby plus a follow-up rebalance);</li>
 *   <li><b>check</b> the result with {@link TaskAssignmentUtils#validateTaskAssignment} and log
 *       one INFO line with the counts (tasks, clients, active tasks moved, moves pending, warmups,
 *       standbys, follow-up), which the metrics report too.</li>
 * </ol>
 *
 * <p><b>Weight.</b> Every task weighs 1, as in Streams' own assignors, rather than its partition
 * count: partitions do not measure load (traffic per partition varies, and changelog partitions
 * are restore cost, not processing), the tasks of one sub-topology all have the same partition
 * count anyway and are spread by their group, and equal weights keep the engine on its exact
 * balancer, whose convergence bound holds: with {@code m} moves pending and {@code w} warmups,
 * balance after {@code ceil(m / w) + 1} rebalances.
 *
 * <p><b>Lags.</b> {@code lagFor} returns {@code -2} ({@code Task.LATEST_OFFSET}) for a task the
 * client ran as active: caught up, lag 0. It returns {@code -3} ({@code UNKNOWN_OFFSET_SUM}) when
 * the lag is unknown, for every task a client did not run when the changelog end offsets could
 * not be looked up. An unknown lag counts as not caught up (the prior owner always counts as
 * caught up), so the assignor falls back to the prior assignment: every stateful task stays on its
 * prior owner, stateless tasks and tasks whose owner left are balanced, and a former standby with
 * an unknown lag still ranks ahead of a client with no state (as in Kafka's
 * {@code FallbackPriorTaskAssignor}). When every lag is unknown, a follow-up rebalance after the
 * probing interval looks them up again.
 *
 * <p><b>Standbys and racks.</b> The engine places {@code num.standby.replicas} standbys of each
 * stateful task, preferring clients already caught up, then clients on a rack ({@code rackId()},
 * from the client's {@code client.rack}) that no copy of the task uses yet; a standby on the
 * client a task is moving to doubles as its warmup. When {@code rack.aware.assignment.tags} is
 * set, Kafka's {@link TaskAssignmentUtils#defaultStandbyTaskAssignment} places the standbys
 * instead (its client-tag-aware assignment, as the built-in assignors use), after the engine placed
 * actives and warmups. {@link TaskAssignmentUtils#optimizeRackAwareActiveTasks} is not used: it
 * moves actives to cut cross-rack traffic whatever their lag, which would undo the warmups; so
 * {@code rack.aware.assignment.strategy} has no effect.
 *
 * <p><b>Follow-up rule.</b> The engine wants a follow-up while some copy (a warmup, or a standby
 * on the client a task is moving to) is catching up. Its delay is the shortest predicted catch-up
 * time over those copies, at least 10 seconds and at most {@code probing.rebalance.interval.ms}: a
 * copy with a known lag {@code L} on an instance restoring {@code n} copies at once (they share
 * its rate) needs {@code ceil(n * (L - acceptable.recovery.lag) / rate)} seconds, a copy whose
 * lag is unknown needs the probing interval. Streams' {@code AssignmentConfigs} carry no restore
 * rate, so the leader learns each instance's rate ({@link RestoreRateLearner}): Streams makes a new
 * assignor per rebalance, so the history lives in the leader's JVM, per application id
 * ({@code application.id}, from {@link #configure}), per process id ({@link LeaderLearners}). With
 * no history (the first rebalance of a scale-out, or a new leader) an instance's copies predict a
 * short measuring follow-up (a tenth of the probing interval, at most 30 s); from then on the rate
 * measured from its lags at two rebalances, on the leader's clock only, predicts; an instance
 * whose follow-ups keep finding nothing caught up backs off to the probing interval. kscale's
 * setting {@value WarmupTaskAssignorConfig#RESTORE_RECORDS_PER_SECOND_CONFIG}, read in
 * {@link #configure}, overrides the learning when set. Example: acceptable lag 10,000, rate 5,000 records/s,
 * warmups on two instances lagging 310,000 and 1,010,000 records: predicted catch-up in 60 s and
 * 200 s, so the follow-up comes after 60 s (on one instance, sharing its rate, 120 s and 400 s);
 * then the first copy is promoted and its budget starts the next warmup. Beyond the earlier follow-up, what differs from the built-in is what a rebalance does:
 * any rebalance (the follow-up, or a client joining or
 * leaving) promotes every warmup that has caught up and starts the next warmups with the freed
 * budget, and balance is computed from the prior owners, so nothing else moves. The deadline
 * ({@code now + delay}, {@code withFollowupRebalance}) goes to every client: any of them may leave
 * before it, and one instant for all makes one rebalance.
 *
 * <p><b>Validation.</b> An assignment that fails {@code validateTaskAssignment} kills the
 * leader's stream thread, and the next leader would compute the same. So an invalid result (a
 * bug) and an unexpected exception from any step after translating the input (the engine,
 * translating its placement back, Kafka's tag-aware standbys) are logged at ERROR and replaced,
 * for this rebalance, by a safe assignment built from the application state alone: each task
 * active on its prior owner, else on the client with the fewest tasks per thread, Kafka's default
 * standbys (none, if those fail too), and a follow-up after the probing interval.
 *
 * <p><b>Metrics</b>, in JMX as {@code kscale.streams:type=warmup-task-assignor,client-id=<the
 * consumer's client.id>}: counters of the assignments this stream thread computed as leader and of
 * the fallbacks among them (every lag unknown, or the safe assignment), gauges of the last
 * assignment and of what the learner knew then ({@link WarmupAssignorMetrics}). Streams hands task
 * assignors no metrics registry and never closes them, so the metrics are JVM-wide per client id
 * and go when that consumer closes ({@link LeaderMetrics}).
 *
 * <p><b>Edge inputs.</b> A client with 0 threads is listed with no tasks. If there are tasks and
 * no client with a thread (or no client at all), {@code assign} throws a
 * {@link TaskAssignmentException}: Streams then sends every member an error assignment and their
 * threads fail loudly, instead of an application that silently processes nothing. With no tasks
 * every client gets an empty assignment. With fewer clients than {@code num.standby.replicas + 1},
 * each task gets as many standbys as fit and one WARN gives the count. Tasks without state never
 * get standbys or warmups and are balanced freely. Prior tasks that no longer exist are ignored; a
 * task two clients both ran as active is prior active on the first by process id and a caught-up
 * copy on the other, so balance may move it there at once.
 *
 * <p><b>Worked example</b> (defaults: acceptable lag 10,000, 2 warmups, no standbys). Instance A
 * runs the six stateful tasks {@code 0_0..0_5} of sub-topology 0; instances B and C join.
 * <pre>
 *   rebalance 1: the balanced target moves 0_0, 0_2 to B and 0_1, 0_3 to C (each next move of
 *                the sub-topology goes to the instance holding least of it). B and C have no
 *                state, so A keeps all six and processing goes on; B warms up 0_0 and C 0_1 (the
 *                budget of 2 goes to the smallest lags, then task ids); the other moves wait.
 *                Every client gets the deadline now + 30 s: the leader has no history of B and
 *                C, so this follow-up measures their restore rates (with the history, or the
 *                rate setting, it is the predicted catch-up time instead).
 *   (measuring): the copies are still behind; their lags now and 30 s ago give B's and C's
 *                rates, and the next deadline is when the first copy is predicted caught up.
 *   rebalance 2: (that follow-up) the copies of 0_0 and 0_1 are within 10,000 records: they move
 *                to B and C; B warms up 0_2 and C 0_3; another follow-up, predicted at once.
 *   rebalance 3: both have caught up: 0_2 and 0_3 move. A runs 0_4, 0_5, B 0_0, 0_2, C 0_1,
 *                0_3; no warmups, no follow-up.
 *   rebalance 4: the same input gives the same assignment: nothing moves.
 * </pre>
 * At every step each task is active on an instance that has its state: no task waits for a
 * restore.
 *
 * @see <a href="https://cwiki.apache.org/confluence/display/KAFKA/KIP-924%3A+customizable+task+assignment+for+Streams">KIP-924</a>
 * @see <a href="https://cwiki.apache.org/confluence/display/KAFKA/KIP-441%3A+Smooth+Scaling+Out+for+Kafka+Streams">KIP-441</a>
 */
public final class WarmupTaskAssignor implements TaskAssignor {

    private static final Logger log = LoggerFactory.getLogger(WarmupTaskAssignor.class);
    private static final PlacementEngine ENGINE = new PlacementEngine();

    private final Clock clock;
    private final Function<PlacementRequest, Placement> engine;
    /** The leader's restore-rate history by application id: it outlives this assignor (see {@link LeaderLearners}). */
    private final Function<String, RestoreRateLearner> learners;
    /** The metrics of a consumer client id: they outlive this assignor too (see {@link LeaderMetrics}). */
    private final Function<String, WarmupAssignorMetrics> metrics;
    private WarmupTaskAssignorConfig config = WarmupTaskAssignorConfig.defaults();

    /** Creates an assignor; Kafka Streams creates one per rebalance. */
    public WarmupTaskAssignor() {
        this(Clock.systemUTC(), ENGINE::place, LeaderLearners.JVM::forApplication, LeaderMetrics.JVM::forClient);
    }

    /**
     * Creates an assignor with its own clock (for the follow-up deadline) and engine, and no
     * restore-rate history: every rebalance is its first.
     *
     * @param clock the clock
     * @param engine the placement engine
     */
    WarmupTaskAssignor(Clock clock, Function<PlacementRequest, Placement> engine) {
        this(clock, engine, applicationId -> new RestoreRateLearner());
    }

    /**
     * Creates an assignor with its own clock, engine and restore-rate history.
     *
     * @param clock the leader's clock: follow-up deadlines, and the times of the lags the learner measures
     * @param engine the placement engine
     * @param learners the learner of an application id
     */
    WarmupTaskAssignor(Clock clock, Function<PlacementRequest, Placement> engine,
                       Function<String, RestoreRateLearner> learners) {
        this(clock, engine, learners, clientId -> WarmupAssignorMetrics.detached());
    }

    /**
     * Creates an assignor with its own clock, engine, restore-rate history and metrics.
     *
     * @param clock the leader's clock: follow-up deadlines, and the times of the lags the learner measures
     * @param engine the placement engine
     * @param learners the learner of an application id
     * @param metrics the metrics of a consumer client id
     */
    WarmupTaskAssignor(Clock clock, Function<PlacementRequest, Placement> engine,
                       Function<String, RestoreRateLearner> learners, Function<String, WarmupAssignorMetrics> metrics) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.learners = Objects.requireNonNull(learners, "learners");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /**
     * Reads kscale's settings ({@link WarmupTaskAssignorConfig}). Kafka Streams calls it right after
     * creating the assignor, with the main consumer's settings: every unprefixed key of the Streams
     * configuration, unknown ones included. Without a call the defaults apply.
     *
     * @param configs the settings
     * @throws org.apache.kafka.common.config.ConfigException naming the key, the value and what is
     *         allowed if a kscale value is invalid
     */
    @Override
    public void configure(Map<String, ?> configs) {
        this.config = new WarmupTaskAssignorConfig(configs);
    }

    /**
     * Assigns the tasks of one rebalance.
     *
     * @param applicationState the tasks, clients, lags and settings of this rebalance
     * @return an assignment that passes {@link TaskAssignmentUtils#validateTaskAssignment}, with
     *         an entry for every client
     * @throws TaskAssignmentException if there are tasks and no client with a processing thread,
     *         or the state breaks a rule of the placement engine (a negative setting, say)
     */
    @Override
    public TaskAssignment assign(ApplicationState applicationState) {
        PlacementInput input = PlacementInput.of(applicationState, config);
        WarmupAssignorMetrics recorder = metricsOf(config.clientId());
        Instant now = clock.instant();
        Instant retry = now.plus(input.probingInterval);
        Placement placement;
        try {
            // Without a configured rate, learn each instance's (RestoreRateLearner); with one, it overrides.
            RestoreRateLearner learner = learners.apply(config.applicationId());
            PlacementRequest request = learner.learn(input.request, now.toEpochMilli());
            placement = engine.apply(request);
            learner.remember(request, placement, now.toEpochMilli());
            recorder.learned(learner.snapshot());
        } catch (RuntimeException e) {
            return failed("the placement engine failed", applicationState, input, retry, e, recorder);
        }
        if (placement.outcome() == PlacementOutcome.NO_CAPACITY) {
            throw new TaskAssignmentException("No Kafka Streams client has a processing thread to run the "
                    + placement.unassignedTasks().size() + " tasks (" + input.processIds.size()
                    + " clients); start an instance with num.stream.threads of 1 or more");
        }
        TaskAssignment assignment;
        AssignmentSummary summary;
        try {
            // Inside the fallback too (issue 11): an exception from translating the placement back or
            // from Kafka's tag-aware standbys would otherwise kill the leader's stream thread.
            Map<ProcessId, KafkaStreamsAssignment> assignments = AssignmentOutput.of(input, placement);
            if (input.tagAwareStandbys) {
                AssignmentOutput.addDefaultStandbys(applicationState, assignments);
            }
            Optional<Duration> followUp = followUp(input, placement);
            assignment = AssignmentOutput.withFollowUp(assignments, followUp.map(now::plus));
            int warmups = placement.clients().values().stream().mapToInt(client -> client.warmup().size()).sum();
            summary = AssignmentSummary.of(applicationState, assignments.values(), warmups, placement.pendingMoves(),
                    followUp);
            logSummary(input, placement, summary);
        } catch (RuntimeException e) {
            return failed("building the assignment from the placement failed", applicationState, input, retry, e,
                    recorder);
        }
        TaskAssignment valid = validOrSafe(applicationState, assignment, retry);
        if (valid != assignment) {
            return recordSafe(recorder, applicationState, valid, input.probingInterval);
        }
        // Every lag unknown: the engine kept each active task on its prior owner, a fallback too.
        recorder.assigned(summary, input.endOffsetsUnknown());
        return assignment;
    }

    /**
     * The metrics of the client id, or metrics no one sees if they cannot be had: metrics must never
     * fail a rebalance.
     */
    private WarmupAssignorMetrics metricsOf(String clientId) {
        try {
            return metrics.apply(clientId);
        } catch (RuntimeException e) {
            log.warn("WarmupTaskAssignor: could not register the metrics of {}; assigning without them", clientId, e);
            return WarmupAssignorMetrics.detached();
        }
    }

    private static TaskAssignment failed(String what, ApplicationState state, PlacementInput input, Instant retry,
                                         RuntimeException e, WarmupAssignorMetrics recorder) {
        log.error("WarmupTaskAssignor: {}, which is a bug: please report it with this log. Using the prior active "
                + "tasks and Kafka's default standbys for this rebalance instead, and rebalancing again at {}. "
                + "Request: {}", what, retry, input.request, e);
        return recordSafe(recorder, state, SafeAssignment.of(state, Optional.of(retry)), input.probingInterval);
    }

    /** Records the safe assignment, a fallback: no warmups, no moves pending, a follow-up after the probing interval. */
    private static TaskAssignment recordSafe(WarmupAssignorMetrics recorder, ApplicationState state,
                                             TaskAssignment safe, Duration probingInterval) {
        recorder.assigned(AssignmentSummary.of(state, safe.assignment(), 0, 0, Optional.of(probingInterval)), true);
        return safe;
    }

    /**
     * The engine's follow-up, if any; else, when every lag is unknown, one after the probing
     * interval to look them up again (Kafka's {@code FallbackPriorTaskAssignor} does the same).
     */
    private static Optional<Duration> followUp(PlacementInput input, Placement placement) {
        if (placement.followUp().isScheduled()) {
            return placement.followUp().delay();
        }
        return input.endOffsetsUnknown() ? Optional.of(input.probingInterval) : Optional.empty();
    }

    /**
     * Returns the assignment if it is valid, else logs an ERROR and returns the safe assignment
     * described in the class comment.
     *
     * @param state the application state
     * @param assignment the assignment to check
     * @param retry the follow-up deadline of the safe assignment
     * @return a valid assignment
     */
    static TaskAssignment validOrSafe(ApplicationState state, TaskAssignment assignment, Instant retry) {
        AssignmentError error = TaskAssignmentUtils.validateTaskAssignment(state, assignment);
        if (error == AssignmentError.NONE) {
            return assignment;
        }
        log.error("WarmupTaskAssignor computed an invalid assignment ({}), which is a bug: please report it with "
                + "this log. Using the prior active tasks and Kafka's default standbys for this rebalance instead, "
                + "and rebalancing again at {}. Invalid assignment: {}", error, retry, assignment.assignment());
        return SafeAssignment.of(state, Optional.of(retry));
    }

    private static void logSummary(PlacementInput input, Placement placement, AssignmentSummary summary) {
        log.info("WarmupTaskAssignor: {} tasks ({} stateful) on {} clients, {}: {} active tasks moved, {} moves pending "
                        + "({} waiting for warmup budget), {} warmups, {} standbys, {}",
                input.taskIds.size(), input.statefulTasks, input.processIds.size(), placement.outcome(),
                summary.movedActives, summary.pendingMoves, placement.deferredMoves(), summary.warmups,
                summary.standbys, summary.followUp.map(delay -> "follow-up rebalance in " + delay)
                        .orElse("no follow-up"));
        if (input.endOffsetsUnknown()) {
            log.warn("WarmupTaskAssignor: the lags of {} stateful task copies are unknown (changelog end offsets "
                    + "could not be looked up), so every active task stays on its prior owner; rebalancing again in "
                    + "{} to retry", input.unknownLags, input.probingInterval);
        }
        if (placement.missingStandbys() > 0) {
            long withThreads = input.request.clients().stream().filter(client -> client.capacity() > 0).count();
            log.warn("WarmupTaskAssignor: {} standby copies are missing: {} clients with threads cannot hold "
                    + "num.standby.replicas={} copies of a task besides the active one; add instances or lower "
                    + "num.standby.replicas", placement.missingStandbys(), withThreads,
                    input.request.settings().standbyCount());
        }
        if (input.conflictingOwners > 0) {
            log.warn("WarmupTaskAssignor: {} tasks were reported active by more than one client; each stays on the "
                    + "first by process id and counts as a standby copy on the others", input.conflictingOwners);
        }
        if (log.isDebugEnabled()) {
            log.debug("WarmupTaskAssignor placement: {}", placement);
        }
    }
}
