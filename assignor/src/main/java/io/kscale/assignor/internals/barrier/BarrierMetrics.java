package io.kscale.assignor.internals.barrier;

import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.metrics.ClientMetrics;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.metrics.Sensor;

/**
 * An expansion barrier's metrics, in JMX as
 * {@code kscale.assignor:type=expansion-barrier,client-id=...}: one counter per
 * {@link ReleaseCause}, and the records returned out of order whatever the cause. In the
 * assignor's JVM-wide registry ({@link AssignorMetrics.Registry}), tagged by the consumer's
 * {@code client.id}; reused by a barrier of the same client id, and removed when the barrier or
 * its consumer closes.
 */
public final class BarrierMetrics {

    public static final String GROUP = "expansion-barrier";
    public static final String OUT_OF_ORDER_RECORDS = "out-of-order-records-total";
    private static final String OUT_OF_ORDER_RECORDS_DOC = "Records the expansion barrier returned after it had "
            + "returned a later-stamped record of another partition of the same task: each may have come after a later "
            + "record of its key. Counted whatever let the later record go: a release by max hold or a future "
            + "timestamp, or a sibling that looked caught up while its producer still held older records (a broker "
            + "failover or produce delay longer than kscale.barrier.grace.ms). Records read again after a rebalance or "
            + "a seek back are not counted.";

    private final ClientMetrics metrics;
    private final Map<ReleaseCause, Sensor> releases = new EnumMap<>(ReleaseCause.class);
    private final Sensor outOfOrder;

    public BarrierMetrics(String clientId) {
        this(AssignorMetrics.Registry.SHARED, clientId);
    }

    public BarrierMetrics(AssignorMetrics.Registry shared, String clientId) {
        // Its own type in the shared registry: the barrier's metrics are not the assignor's.
        this.metrics = new ClientMetrics(shared, GROUP, clientId);
        for (ReleaseCause cause : ReleaseCause.values()) {
            releases.put(cause, metrics.counter(cause.metricName(), cause.metricDoc()));
        }
        this.outOfOrder = metrics.counter(OUT_OF_ORDER_RECORDS, OUT_OF_ORDER_RECORDS_DOC);
    }

    public void outOfOrder(long records) {
        outOfOrder.record(records);
    }

    /** The records returned out of order so far (tests, and the lab's members). */
    public double outOfOrderRecords() {
        return metrics.value(OUT_OF_ORDER_RECORDS);
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
