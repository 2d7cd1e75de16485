package io.kscale.assignor.internals.barrier;

import io.kscale.assignor.ExpansionBarrier;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.metrics.ClientMetrics;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.metrics.Sensor;

/**
 * An {@link ExpansionBarrier}'s metrics, in JMX as
 * {@code kscale.assignor:type=expansion-barrier,client-id=...}: one counter per
 * {@link ReleaseCause}. In the assignor's JVM-wide registry ({@link AssignorMetrics.Registry}),
 * tagged by the consumer's {@code client.id}; reused by a barrier of the same client id, and
 * removed by {@link ExpansionBarrier#close()} or when its consumer closes.
 */
public final class BarrierMetrics {

    public static final String GROUP = "expansion-barrier";

    private final ClientMetrics metrics;
    private final Map<ReleaseCause, Sensor> releases = new EnumMap<>(ReleaseCause.class);

    public BarrierMetrics(String clientId) {
        this(AssignorMetrics.Registry.SHARED, clientId);
    }

    public BarrierMetrics(AssignorMetrics.Registry shared, String clientId) {
        // Its own type in the shared registry: the barrier's metrics are not the assignor's.
        this.metrics = new ClientMetrics(shared, GROUP, clientId);
        for (ReleaseCause cause : ReleaseCause.values()) {
            releases.put(cause, metrics.counter(cause.metricName(), cause.metricDoc()));
        }
    }

    public void released(ReleaseCause cause) {
        releases.get(cause).record();
    }

    /** The current value of one of this client's metrics (tests). */
    public double value(ReleaseCause cause) {
        return metrics.value(cause.metricName());
    }

    /**
     * Unregisters the metrics once the last barrier of this client id closes, and the registry
     * with its last user: nothing of the barrier stays in the JVM-wide registry.
     */
    public void close() {
        metrics.close();
    }
}
