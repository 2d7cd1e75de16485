package io.kscale.assignor.internals.barrier;

import io.kscale.assignor.ExpansionBarrier;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;

/**
 * An {@link ExpansionBarrier}'s metrics, in JMX as
 * {@code kscale.assignor:type=expansion-barrier,client-id=...}: one counter per
 * {@link ReleaseCause}. In the assignor's JVM-wide registry ({@link AssignorMetrics.Registry}),
 * tagged by the consumer's {@code client.id}; reused by a barrier of the same client id, and
 * removed by {@link ExpansionBarrier#close()}.
 */
public final class BarrierMetrics {

    public static final String GROUP = "expansion-barrier";

    private final AssignorMetrics.Registry shared;
    /** This barrier's name among the shared registry's users: its metrics are not the assignor's. */
    private final String user;
    private final Metrics registry;
    private final Map<String, String> tags;
    private final Map<ReleaseCause, Sensor> releases = new EnumMap<>(ReleaseCause.class);

    public BarrierMetrics(String clientId) {
        this(AssignorMetrics.Registry.SHARED, clientId);
    }

    public BarrierMetrics(AssignorMetrics.Registry shared, String clientId) {
        this.shared = shared;
        this.user = GROUP + ":" + clientId;
        this.registry = shared.acquire(user);
        this.tags = Map.of("client-id", clientId);
        for (ReleaseCause cause : ReleaseCause.values()) {
            Sensor sensor = registry.sensor(sensorName(cause));
            MetricName name = registry.metricName(cause.metricName(), GROUP, cause.metricDoc(), tags);
            if (registry.metric(name) == null) {
                sensor.add(name, new CumulativeSum());
            }
            releases.put(cause, sensor);
        }
    }

    private String sensorName(ReleaseCause cause) {
        return GROUP + ":" + cause.metricName() + ":" + tags.get("client-id");
    }

    public void released(ReleaseCause cause) {
        releases.get(cause).record();
    }

    /** The current value of one of this client's metrics (tests). */
    public double value(ReleaseCause cause) {
        return ((Number) registry.metric(registry.metricName(cause.metricName(), GROUP, tags)).metricValue()).doubleValue();
    }

    /**
     * Unregisters the metrics once the last barrier of this client id closes, and the registry
     * with its last user: nothing of the barrier stays in the JVM-wide registry.
     */
    public void close() {
        shared.release(user, () -> {
            for (ReleaseCause cause : ReleaseCause.values()) {
                registry.removeSensor(sensorName(cause));
            }
        });
    }
}
