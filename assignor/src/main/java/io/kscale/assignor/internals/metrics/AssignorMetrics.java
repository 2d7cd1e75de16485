package io.kscale.assignor.internals.metrics;

import io.kscale.assignor.internals.lifecycle.ConsumerCloseWatch;
import io.kscale.assignor.internals.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;

/**
 * The assignor's metrics, in JMX as {@code kscale.assignor:type=key-preserving-assignor,client-id=...}.
 *
 * <p>Why a registry of our own: Kafka 4.4 hands its own metrics registry to plug-ins that
 * implement {@code Monitorable}, but not to partition assignors, and it never closes an assignor.
 * So one JVM-wide registry with a JMX reporter ({@link Registry#SHARED}) serves every assignor
 * instance, tagged by the consumer's {@code client.id}. A client's metrics are removed by
 * {@link #close()}, which runs when its consumer closes ({@link ConsumerCloseWatch}); instances
 * with the same client id share the metrics, which go when the last of them closes. The registry
 * itself is closed when no client uses it, which unregisters its last MBean (Kafka's own
 * {@code kafka-metrics-count}): nothing in the platform MBean server then refers to this class
 * loader, so a redeployed application does not leak it. Before issue 11 every client id's metrics
 * stayed for the life of the JVM, however many generated client ids came and went.
 */
public final class AssignorMetrics {

    public static final String JMX_PREFIX = "kscale.assignor";
    public static final String GROUP = "key-preserving-assignor";

    private final ClientMetrics metrics;
    private final Sensor assignments;
    private final Sensor affinityBreaks;
    private final Sensor layoutChanges;
    private final Sensor malformedUserData;
    private final Sensor withheldPartitions;
    private final Sensor movedTasks;
    private final Sensor layoutStoreLoads;
    private final Sensor layoutStoreFailures;
    private final Sensor topicsRecreated;
    private final Sensor topicsForgotten;
    private final Sensor invalidSubscriptionEntries;
    private final Sensor assignmentFallbacks;
    private final Sensor coPartitioningWarnings;
    private final Sensor rejectedLayoutReports;
    private volatile int coPartitioningMismatches;
    private volatile long layoutEpoch;
    /** When this member last stored the layout, epoch ms; -1 before its first successful save. */
    private volatile long lastStoreSuccessMs = -1;
    /** The clock of {@link #lastStoreSuccessMs}: the leader's. */
    private volatile Clock storeClock = Clock.SYSTEM;
    /** What the last assignment this member computed as leader warms up; one value, so gauges never mix two. */
    private volatile Warmups warmups = new Warmups(0, 0, 0);
    /** Topics the last assignment this member computed as leader held back, and ran on a provisional T. */
    private volatile int heldTopics;
    private volatile int provisionalTopics;

    /** Metrics in the JVM-wide registry, in JMX. */
    public AssignorMetrics(String clientId) {
        this(Registry.SHARED, clientId);
    }

    public AssignorMetrics(Registry registry, String clientId) {
        this.metrics = new ClientMetrics(registry, GROUP, clientId);
        this.assignments = counter("assignments-total", "Rebalances this member computed as group leader.");
        this.affinityBreaks = counter("affinity-breaks-total", "Topics that grew to a partition count that is not a "
                + "multiple of their task count (or got another declared count): some keys moved to another task.");
        this.layoutChanges = counter("layout-changes-total", "Topic layouts added or changed by this leader.");
        this.malformedUserData = counter("malformed-user-data-total", "Subscriptions whose userData was not a "
                + "kscale member report (another assignor's, another version's with a broken frame, or corrupt); ignored.");
        this.withheldPartitions = counter("withheld-partitions-total", "Partitions held back for one rebalance because "
                + "another member still owned them (COOPERATIVE: revoke first, assign in the follow-up rebalance).");
        this.movedTasks = counter("moved-tasks-total", "Tasks given to a member other than their prior owner.");
        this.layoutStoreLoads = counter("layout-store-loads-total", "Times the leader read the durable layout store "
                + "because no member knew the layout of a subscribed topic.");
        this.layoutStoreFailures = counter("layout-store-failures-total", "Loads and saves of the durable layout store "
                + "that failed (timeout, missing ACL, unreachable brokers, a stored value that is not a layout). A "
                + "failed save is retried at the next rebalance; until one succeeds, a full restart of the group may "
                + "move keys of expanded topics.");
        this.topicsRecreated = counter("topics-recreated-total", "Topics whose topic id changed under a known name "
                + "(deleted and re-created): each got a fresh layout.");
        this.topicsForgotten = counter("topics-forgotten-total", "Topic layouts forgotten because no member "
                + "subscribed to the topic and the metadata lacked it for kscale.assignor.layout.forget.after.ms.");
        this.invalidSubscriptionEntries = counter("invalid-subscription-entries-total", "Entries of members' "
                + "subscriptions that contradict the leader's metadata (null or illegal topic names; owned partitions "
                + "of unknown topics, outside their topic's partition count, or outside the member's subscription): "
                + "ignored, or not kept by their member, and logged in one WARN per rebalance.");
        this.assignmentFallbacks = counter("assignment-fallbacks-total", "Rebalances in which the leader's placement "
                + "failed (a bug: the ERROR log has the stack trace) and it sent a simple valid assignment instead: "
                + "owned partitions stay with their one owner, the rest is spread by task, the layout is kept.");
        this.coPartitioningWarnings = counter("co-partitioning-warnings-total", "WARNs this member logged as leader "
                + "about a topic that is not co-partitioned with a topic of a smaller task count that divides its "
                + "partition count (once per topic and task counts; see co-partitioning-mismatches).");
        this.rejectedLayoutReports = counter("rejected-layout-reports-total", "Members' layout reports this member "
                + "ignored as leader because it could not trust them: a task count that is neither declared, nor the "
                + "one the layout store or the leader holds, nor consistent with the partition count; more partitions "
                + "than the metadata has; or an epoch more than one past the newest the leader knows. Each is logged "
                + "at WARN with the member ids; a member with other settings or a broken one sends such reports.");
        gauge("co-partitioning-mismatches", "Topics in the last assignment this member computed as leader that are "
                + "not co-partitioned with a topic the same members read whose smaller task count T divides their "
                + "partition count (a topic added after another was expanded). Declaring that T in "
                + "kscale.assignor.task.counts co-partitions them; 0 with kscale.assignor.co.partitioning=none.",
                (config, now) -> coPartitioningMismatches);
        gauge("layout-epoch", "Epoch of the group layout this member knows.", (config, now) -> layoutEpoch);
        gauge("layout-store-last-success-age-ms", "Milliseconds since this member, as leader, last stored the layout "
                + "(-1 if it has not yet). Saves happen when the layout changes or a save is due again, so a large "
                + "age is normal in a stable group; together with layout-store-failures-total it tells how long the "
                + "store has been behind.", (config, now) -> {
                    long last = lastStoreSuccessMs;
                    return last < 0 ? -1L : Math.max(0, storeClock.milliseconds() - last);
                });
        gauge("warmup-tasks", "Warmup copies in the last assignment this member computed as leader: stateful tasks "
                + "a member restores before the task moves to it (0 without a TaskStateListener).",
                (config, now) -> warmups.warmups);
        gauge("pending-moves", "Stateful tasks the last assignment kept on their caught-up owner until the member "
                + "they move to has caught up; 0 when balanced.", (config, now) -> warmups.pendingMoves);
        gauge("follow-up-delay-ms", "Milliseconds from the last assignment to the earliest follow-up deadline it "
                + "sent to a warming member; 0 if it sent none. A member asks earlier by itself once a warmup has "
                + "caught up.", (config, now) -> warmups.followUpDelayMs);
        gauge("held-topics", "Topics the last assignment this member computed as leader did not assign because no "
                + "member knew their task count and the layout store could not be read "
                + "(kscale.assignor.layout.store.unreadable.policy=hold); 0 normally.", (config, now) -> heldTopics);
        gauge("provisional-topics", "Topics the last assignment this member computed as leader ran on a provisional "
                + "task count, taken from the partition count while the layout store could not be read; the stored "
                + "one replaces it once read, moving keys if it differs. 0 normally.", (config, now) -> provisionalTopics);
    }

    /** Metrics kept in a registry of their own, outside JMX: for an assignor that is not configured yet. */
    public static AssignorMetrics detached() {
        return new AssignorMetrics(new Registry(null), "");
    }

    private Sensor counter(String name, String doc) {
        return metrics.counter(name, doc);
    }

    private void gauge(String name, String doc, Gauge<? extends Number> gauge) {
        metrics.gauge(name, doc, gauge);
    }

    public void assignmentComputed() {
        assignments.record();
    }

    public void affinityBroken() {
        affinityBreaks.record();
    }

    public void layoutChanged() {
        layoutChanges.record();
    }

    public void malformedUserData(int count) {
        malformedUserData.record(count);
    }

    public void withheld(int partitions) {
        withheldPartitions.record(partitions);
    }

    public void moved(int tasks) {
        movedTasks.record(tasks);
    }

    public void layoutStoreLoaded() {
        layoutStoreLoads.record();
    }

    public void layoutStoreFailed() {
        layoutStoreFailures.record();
    }

    public void layoutStoreSaved(Clock clock) {
        storeClock = clock;
        lastStoreSuccessMs = clock.milliseconds();
    }

    public void topicRecreated() {
        topicsRecreated.record();
    }

    public void topicForgotten() {
        topicsForgotten.record();
    }

    public void invalidSubscriptionEntries(int count) {
        invalidSubscriptionEntries.record(count);
    }

    public void layoutReportsRejected(int reports) {
        rejectedLayoutReports.record(reports);
    }

    public void assignmentFallback() {
        assignmentFallbacks.record();
    }

    /**
     * Records what the leader's co-partitioning check found.
     *
     * @param mismatches topics not co-partitioned that could be, in this assignment
     * @param warnings of those, the ones logged now
     */
    public void coPartitioning(int mismatches, int warnings) {
        coPartitioningMismatches = mismatches;
        coPartitioningWarnings.record(warnings);
    }

    /**
     * Records what the leader's last assignment could not place safely for want of the layout store.
     *
     * @param held topics not assigned
     * @param provisional topics assigned on a provisional task count
     */
    public void storeUnreadable(int held, int provisional) {
        this.heldTopics = held;
        this.provisionalTopics = provisional;
    }

    public void layoutEpoch(long epoch) {
        layoutEpoch = epoch;
    }

    /**
     * Records what the leader's last assignment warms up.
     *
     * @param warmups warmup copies across the group
     * @param pendingMoves stateful tasks waiting for their new owner to catch up
     * @param followUpDelayMs ms to the earliest follow-up deadline sent, 0 if none
     */
    public void warmups(int warmups, int pendingMoves, long followUpDelayMs) {
        this.warmups = new Warmups(warmups, pendingMoves, followUpDelayMs);
    }

    /** The current value of one of this client's metrics (tests). */
    public double value(String name) {
        return metrics.value(name);
    }

    /**
     * Removes this client's metrics, unless another instance with its client id still uses them,
     * and releases the registry. Recording afterwards is harmless and invisible. Idempotent.
     */
    public void close() {
        metrics.close();
    }

    /** The warmup gauges' values of one assignment. */
    private static final class Warmups {
        final int warmups;
        final int pendingMoves;
        final long followUpDelayMs;

        Warmups(int warmups, int pendingMoves, long followUpDelayMs) {
            this.warmups = warmups;
            this.pendingMoves = pendingMoves;
            this.followUpDelayMs = followUpDelayMs;
        }
    }

    /**
     * A metrics registry shared by assignors and barriers, and closed when the last of them is:
     * counts its users per name ({@code <type>:<client id>}, see {@link ClientMetrics}), so that a
     * client's metrics go when its last instance of that kind closes. One per JMX domain:
     * {@link #SHARED} for the consumer's plug-ins, another for the Streams assignor's
     * {@code kscale.streams}.
     */
    public static final class Registry {

        /** The JVM-wide registry, in JMX under {@value #JMX_PREFIX}. */
        public static final Registry SHARED = new Registry(JMX_PREFIX);

        private final String jmxPrefix;
        private final Map<String, Integer> users = new HashMap<>();
        private Metrics metrics;

        /** @param jmxPrefix the JMX domain, or null for a registry outside JMX */
        public Registry(String jmxPrefix) {
            this.jmxPrefix = jmxPrefix;
        }

        public synchronized Metrics acquire(String user) {
            if (metrics == null) {
                metrics = jmxPrefix == null ? new Metrics() : JmxMetrics.registry(jmxPrefix);
            }
            users.merge(user, 1, Integer::sum);
            return metrics;
        }

        /** @param remove removes the user's metrics; run if this was the last user of that name */
        public synchronized void release(String user, Runnable remove) {
            Integer left = users.computeIfPresent(user, (name, count) -> count > 1 ? count - 1 : null);
            if (left == null) {
                remove.run();
            }
            if (users.isEmpty() && metrics != null) {
                metrics.close();
                metrics = null;
            }
        }

        /** @return whether the registry is open (tests) */
        public synchronized boolean isOpen() {
            return metrics != null;
        }
    }
}
