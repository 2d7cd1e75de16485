package io.kscale.assignor;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.leader.FallbackAssignment;
import io.kscale.assignor.internals.leader.CoPartitioningCheck;
import io.kscale.assignor.internals.leader.LeaderAssignment;
import io.kscale.assignor.internals.leader.MemberInputs;
import io.kscale.assignor.internals.lifecycle.ConsumerCloseWatch;
import io.kscale.assignor.internals.member.EarlyFollowUp;
import io.kscale.assignor.internals.member.MemberLayouts;
import io.kscale.assignor.internals.member.MemberTaskState;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.store.KafkaLayoutStore;
import io.kscale.assignor.internals.store.LayoutPersistence;
import io.kscale.assignor.internals.store.LayoutStore;
import io.kscale.assignor.internals.store.StoreAdvice;
import io.kscale.assignor.internals.time.Clock;
import io.kscale.assignor.internals.wire.AssignmentInfo;
import io.kscale.assignor.internals.wire.MemberReport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer group assignor that keeps every key on the same consumer when a topic's partition
 * count is multiplied (Samza SEP-5). Set it with
 * {@code partition.assignment.strategy=io.kscale.assignor.KeyPreservingAssignor}.
 *
 * <p>Each topic gets a fixed task count T, the partition count when the group first assigned it
 * (or a count declared in {@value KeyPreservingAssignorConfig#TASK_COUNTS_CONFIG}). Task t holds
 * every partition p with {@code p % T == t}, and a task's partitions always go to one member.
 * Kafka's default partitioner sends a key to {@code hash % n}; when n grows to a multiple of T,
 * {@code hash % n % T == hash % T}, so the key stays in its task and with its consumer. Topics
 * with the same T are co-partitioned: task t of each goes to the same member, so joins keep
 * working. Tasks are balanced by partitions across members (most and least loaded differ by at
 * most one task's weight) and stay where they are unless balance needs them elsewhere.
 *
 * <p>Protocols: COOPERATIVE (preferred; a task moving to another member is withheld for one
 * rebalance while its owner revokes it) and EAGER. The layout travels in subscription and
 * assignment userData (versioned, checksummed, a few bytes per topic) and, unless disabled, in a
 * compacted topic written by the leader, so it survives the whole group restarting while a topic
 * is expanded. A partition count that is not a multiple of T is logged at ERROR, counted in the
 * metric {@code affinity-breaks-total}, and handled by
 * {@value KeyPreservingAssignorConfig#EXPANSION_POLICY_CONFIG}; it never fails the group. Records
 * of a key stay in order across an expansion when the poll loop uses {@link ExpansionBarrier}.
 *
 * <p>Stateful consumers register a {@link TaskStateListener}
 * ({@value KeyPreservingAssignorConfig#TASK_STATE_LISTENER_CONFIG}): a task they ran then moves
 * to another member only once that member has warmed up a copy of its state (KIP-441's smooth
 * scale-out); the poll loop triggers the follow-up rebalance that moves it
 * ({@link FollowUpRebalance}, or {@link ExpansionBarrier}).
 *
 * <p>Threads: the consumer calls an assignor from its own thread only (the leader's
 * {@code assign}, every member's {@code subscriptionUserData} and {@code onAssignment}).
 *
 * @see KeyPreservingAssignorConfig
 * @see <a href="https://cwiki.apache.org/confluence/display/SAMZA/SEP-5%3A+Enable+partition+expansion+of+input+streams">Samza SEP-5</a>
 */
public final class KeyPreservingAssignor implements ConsumerPartitionAssignor, Configurable {

    /** The name members agree on in the group protocol. */
    public static final String NAME = "kscale-key-preserving";

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingAssignor.class);
    /** What the layout store's WARNs tell the user: this assignor's setting names, what its leader does meanwhile. */
    static final StoreAdvice STORE_ADVICE = new StoreAdvice(KeyPreservingAssignorConfig.LAYOUT_STORE_TOPIC_CONFIG,
            "The leader goes on with the layouts its members report, stores nothing until a read succeeds, and "
                    + "follows " + KeyPreservingAssignorConfig.LAYOUT_STORE_UNREADABLE_POLICY_CONFIG
                    + " for topics no member knows");

    private KeyPreservingAssignorConfig config = new KeyPreservingAssignorConfig(Map.of());
    /** Outside JMX until {@link #configure}: an assignor that is never configured registers nothing. */
    private AssignorMetrics metrics = AssignorMetrics.detached();
    private LayoutPersistence persistence = LayoutPersistence.disabled(metrics);
    /** The leader's clock: follow-up deadlines, and when a missing topic is forgotten. */
    private Clock time = Clock.SYSTEM;
    /** Thrown by {@link #assign} after its placement while set, to exercise the fallback (tests); null in use. */
    private Throwable placementFault;
    /** Present when the application registered a {@link TaskStateListener}: the member is stateful. */
    private Optional<MemberTaskState> taskState = Optional.empty();
    /** Present with {@link #taskState}: asks for the follow-up as soon as a warmup has caught up. */
    private Optional<EarlyFollowUp> earlyFollowUp = Optional.empty();

    /** The leader's memory of the co-partitioning WARNs it logged, so each is logged once. */
    private final CoPartitioningCheck coPartitioningCheck = new CoPartitioningCheck();

    /** What this member learnt from its last assignment; reported in its next subscription. */
    private GroupLayout knownLayout = GroupLayout.empty();
    private int generation = -1;
    private Map<String, List<Integer>> ownedTasks = Map.of();
    /**
     * Where this member publishes what it received, for the poll loop's helpers: held here only,
     * so that the entry lives as long as this assignor (its consumer) and no longer.
     */
    private final MemberLayouts.Slot published = MemberLayouts.newSlot();

    /** Creates an assignor; the consumer calls {@link #configure} next. */
    public KeyPreservingAssignor() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
        KeyPreservingAssignorConfig parsed = new KeyPreservingAssignorConfig(configs);
        close();
        this.config = parsed;
        this.metrics = new AssignorMetrics(config.clientId());
        this.taskState = config.taskStateListener().map(MemberTaskState::new);
        this.earlyFollowUp = taskState.map(state -> new EarlyFollowUp(state, config.acceptableRecoveryLag(),
                config.placementSettings().minFollowUpDelay()));
        if (config.layoutStoreEnabled() && !config.groupId().isEmpty()) {
            KafkaLayoutStore store = new KafkaLayoutStore(config.groupId(), config.layoutStoreTopic(),
                    config.layoutStoreReplicationFactor(), config.layoutStoreTimeout(), configs, STORE_ADVICE);
            this.persistence = new LayoutPersistence(store, null, config.layoutStoreTimeout(), Clock.SYSTEM, metrics,
                    "kscale-layout-store-" + config.clientId(), STORE_ADVICE);
        } else {
            this.persistence = LayoutPersistence.disabled(metrics);
        }
        ConsumerCloseWatch.watch(config.clientId(), this, KeyPreservingAssignor::close);
        log.info("Configured {} for group '{}': {}", NAME, config.groupId(), config);
    }

    /**
     * Releases what this assignor holds outside itself: its entry in {@link MemberLayouts} (with
     * the application's {@link TaskStateListener}), its metrics, the layout store's writer thread
     * and consumer. Kafka never calls this: {@link ConsumerCloseWatch} does, when the consumer
     * closes. The assignor stays usable (a consumer sharing the client id may still run it), without
     * metrics. Idempotent.
     */
    void close() {
        ConsumerCloseWatch.unwatch(this);
        published.clear();
        metrics.close();
        persistence.close();
    }

    @Override
    public String name() {
        return NAME;
    }

    /** COOPERATIVE first: the consumer picks the first protocol every assignor in its list supports. */
    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.COOPERATIVE, RebalanceProtocol.EAGER);
    }

    @Override
    public short version() {
        return 0;
    }

    @Override
    public ByteBuffer subscriptionUserData(Set<String> topics) {
        earlyFollowUp.ifPresent(EarlyFollowUp::joining);
        Map<String, MemberReport.TopicLags> lags = taskState.map(state -> state.lags(topics, knownLayout))
                .orElse(Map.of());
        return new MemberReport(generation, ownedTasks, knownLayout, taskState.isPresent(), lags).encode();
    }

    /**
     * Computes the group's assignment (on the leader). Never throws for anything members sent:
     * malformed userData is logged and ignored, and so is every subscription entry that contradicts
     * the leader's metadata (owned partitions it lacks, null or illegal topic names; metric
     * {@code invalid-subscription-entries-total}). Only partitions the metadata lists are assigned;
     * a topic whose id changed gets a fresh layout, and one gone for
     * {@value KeyPreservingAssignorConfig#LAYOUT_FORGET_AFTER_MS_CONFIG} is forgotten. Should the
     * placement still fail, the group gets a simple valid assignment instead, logged at ERROR and
     * counted in {@code assignment-fallbacks-total}; so it does for an {@link Error} the placement throws.
     */
    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        LeaderAssignment leader = null;
        try {
            GroupSubscription valid = MemberInputs.validate(groupSubscription, metadata, metrics);
            leader = new LeaderAssignment(config.leaderSettings(), persistence, metrics, valid, time.milliseconds(),
                    coPartitioningCheck, knownLayout);
            GroupAssignment assignment = leader.compute(metadata);
            if (placementFault instanceof Error) {
                throw (Error) placementFault;
            }
            if (placementFault != null) {
                throw (RuntimeException) placementFault;
            }
            return assignment;
        } catch (Throwable e) {
            // Any Throwable, Errors included: a StackOverflowError or OutOfMemoryError of one
            // rebalance's placement would otherwise fail the group, and every next leader repeats it.
            Optional<GroupLayout> agreed = leader == null ? Optional.empty() : leader.agreedLayout();
            try {
                return FallbackAssignment.assign(metadata, groupSubscription, agreed, e, metrics);
            } catch (Throwable fallbackFailure) {
                e.addSuppressed(fallbackFailure);
                throw e;
            }
        }
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
        Optional<AssignmentInfo> info = AssignmentInfo.decode(assignment.userData());
        if (info.isPresent()) {
            knownLayout = info.get().layout();
        } else {
            log.warn("The assignment of generation {} carries no kscale layout (the leader runs another assignor or "
                    + "version?); keeping layout epoch {}", metadata.generationId(), knownLayout.epoch());
        }
        generation = metadata.generationId();
        ownedTasks = ownedTasks(assignment.partitions(), knownLayout);
        metrics.layoutEpoch(knownLayout.epoch());
        OptionalLong followUp = info.map(AssignmentInfo::followUpDeadline).orElse(OptionalLong.empty());
        taskState.ifPresent(state -> {
            state.assigned(info, assignment.partitions(), knownLayout);
            earlyFollowUp.ifPresent(EarlyFollowUp::assigned);
            if (!state.warmups().isEmpty()) {
                log.info("Generation {}: warming up {}; follow-up rebalance at {} (epoch ms)", metadata.generationId(),
                        state.warmups(), followUp.isPresent() ? followUp.getAsLong() : "none");
            }
        });
        // Under a new member id after a rejoin, this replaces the stale entry of the old one.
        published.publish(metadata.groupId(), metadata.memberId(), knownLayout, followUp, earlyFollowUp);
    }

    /** The tasks of the partitions assigned, per topic, for the next subscription (EAGER needs them). */
    private static Map<String, List<Integer>> ownedTasks(List<TopicPartition> partitions, GroupLayout layout) {
        Map<String, List<Integer>> tasks = new HashMap<>();
        for (TopicPartition partition : partitions) {
            layout.topic(partition.topic()).ifPresent(topic -> tasks.computeIfAbsent(partition.topic(),
                    t -> new ArrayList<>()).add(topic.taskOf(partition.partition())));
        }
        return tasks;
    }

    /** Replaces the layout store chosen by {@link #configure}; saves run on the caller's thread, in {@code assign()} (tests). */
    void layoutStore(LayoutStore layoutStore) {
        layoutStore(layoutStore, Runnable::run);
    }

    /** Replaces the layout store chosen by {@link #configure}, with saves run by {@code writer} (tests). */
    void layoutStore(LayoutStore layoutStore, java.util.concurrent.Executor writer) {
        persistence.close();
        this.persistence = new LayoutPersistence(layoutStore, writer, config.layoutStoreTimeout(), time, metrics,
                "kscale-layout-store-test", STORE_ADVICE);
    }

    /**
     * Makes every {@link #assign} throw {@code fault} after placing, so that it falls back (tests); null for none.
     *
     * @param fault a {@link RuntimeException} or an {@link Error}
     */
    void placementFault(Throwable fault) {
        if (fault != null && !(fault instanceof RuntimeException) && !(fault instanceof Error)) {
            throw new IllegalArgumentException("a placement can only throw unchecked: " + fault);
        }
        this.placementFault = fault;
    }

    /** The metrics of this assignor (tests). */
    AssignorMetrics metrics() {
        return metrics;
    }

    /** The layout this member knows (tests). */
    GroupLayout knownLayout() {
        return knownLayout;
    }

    /** Replaces the leader's clock, for follow-up deadlines and forgetting (tests, with a mock time). */
    void time(Clock time) {
        this.time = time;
    }
}
