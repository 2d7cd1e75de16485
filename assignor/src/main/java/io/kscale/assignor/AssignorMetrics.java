package io.kscale.assignor;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.utils.Time;

/**
 * The assignor's metrics, in JMX as {@code kscale.assignor:type=key-preserving-assignor,client-id=...}.
 *
 * <p>Why a registry of our own: Kafka 4.4 hands its own metrics registry to plug-ins that
 * implement {@code Monitorable}, but not to partition assignors, and it never closes an assignor.
 * So one JVM-wide registry with a JMX reporter serves every assignor instance, tagged by the
 * consumer's {@code client.id}; a consumer's metrics stay registered after it closes (a handful
 * per client id) and are reused if a consumer with the same client id starts again.
 */
final class AssignorMetrics {

    static final String JMX_PREFIX = "kscale.assignor";
    static final String GROUP = "key-preserving-assignor";

    private static final Metrics REGISTRY = new Metrics(new MetricConfig(), List.of(new JmxReporter()), Time.SYSTEM,
            new KafkaMetricsContext(JMX_PREFIX));

    /** @return the JVM-wide registry, which the barrier's metrics share ({@link BarrierMetrics}) */
    static Metrics registry() {
        return REGISTRY;
    }

    private final Map<String, String> tags;
    private final Sensor assignments;
    private final Sensor affinityBreaks;
    private final Sensor layoutChanges;
    private final Sensor malformedUserData;
    private final Sensor withheldPartitions;
    private final Sensor movedTasks;
    private final Sensor layoutStoreLoads;
    private final Sensor topicsRecreated;
    private final Sensor topicsForgotten;
    private volatile long layoutEpoch;

    AssignorMetrics(String clientId) {
        this.tags = Map.of("client-id", clientId);
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
        this.topicsRecreated = counter("topics-recreated-total", "Topics whose topic id changed under a known name "
                + "(deleted and re-created): each got a fresh layout.");
        this.topicsForgotten = counter("topics-forgotten-total", "Topic layouts forgotten because no member "
                + "subscribed to the topic and the metadata lacked it for kscale.assignor.layout.forget.after.ms.");
        MetricName epoch = REGISTRY.metricName("layout-epoch", GROUP, "Epoch of the group layout this member knows.", tags);
        REGISTRY.removeMetric(epoch);
        REGISTRY.addMetric(epoch, (Gauge<Long>) (config, now) -> layoutEpoch);
    }

    private Sensor counter(String name, String doc) {
        Sensor sensor = REGISTRY.sensor(GROUP + ":" + name + ":" + tags.get("client-id"));
        MetricName metricName = REGISTRY.metricName(name, GROUP, doc, tags);
        if (REGISTRY.metric(metricName) == null) {
            sensor.add(metricName, new CumulativeSum());
        }
        return sensor;
    }

    void assignmentComputed() {
        assignments.record();
    }

    void affinityBroken() {
        affinityBreaks.record();
    }

    void layoutChanged() {
        layoutChanges.record();
    }

    void malformedUserData(int count) {
        malformedUserData.record(count);
    }

    void withheld(int partitions) {
        withheldPartitions.record(partitions);
    }

    void moved(int tasks) {
        movedTasks.record(tasks);
    }

    void layoutStoreLoaded() {
        layoutStoreLoads.record();
    }

    void topicRecreated() {
        topicsRecreated.record();
    }

    void topicForgotten() {
        topicsForgotten.record();
    }

    void layoutEpoch(long epoch) {
        layoutEpoch = epoch;
    }

    /** The current value of one of this client's metrics (tests). */
    double value(String name) {
        return ((Number) REGISTRY.metric(REGISTRY.metricName(name, GROUP, tags)).metricValue()).doubleValue();
    }
}
