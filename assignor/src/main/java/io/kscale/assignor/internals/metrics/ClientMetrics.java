package io.kscale.assignor.internals.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;

/**
 * The metrics of one client id and one type in a shared {@link AssignorMetrics.Registry}: in JMX
 * as {@code <registry domain>:type=<type>,client-id=<client id>}. It registers counters and
 * gauges and removes them all together when the last user of that type and client id closes.
 * The consumer assignor's metrics and the Streams assignor's both build on it, so that the
 * registry's reference counting and close (which leaves no MBean behind) are written once.
 */
public final class ClientMetrics {

    private final AssignorMetrics.Registry registry;
    private final Metrics metrics;
    private final String type;
    private final String clientId;
    /** This client's name among the registry's users: one per type, so that two types close apart. */
    private final String user;
    private final Map<String, String> tags;
    private final List<Sensor> sensors = new ArrayList<>();
    private final List<MetricName> gauges = new ArrayList<>();
    private boolean closed;

    /**
     * @param registry the registry, acquired until {@link #close()}
     * @param type the JMX {@code type} (Kafka's metric group), e.g. {@code key-preserving-assignor}
     * @param clientId the {@code client-id} tag: the consumer's {@code client.id}
     */
    public ClientMetrics(AssignorMetrics.Registry registry, String type, String clientId) {
        this.registry = registry;
        this.type = type;
        this.clientId = clientId;
        this.user = type + ":" + clientId;
        this.metrics = registry.acquire(user);
        this.tags = Map.of("client-id", clientId);
    }

    /**
     * A cumulative counter; another instance of the same client id that registered it already shares it.
     *
     * @param name the metric's name, ending in {@code -total}
     * @param doc what it counts
     * @return the sensor to record on
     */
    public Sensor counter(String name, String doc) {
        Sensor sensor = metrics.sensor(type + ":" + name + ":" + clientId);
        MetricName metricName = metrics.metricName(name, type, doc, tags);
        if (metrics.metric(metricName) == null) {
            sensor.add(metricName, new CumulativeSum());
        }
        sensors.add(sensor);
        return sensor;
    }

    /**
     * A gauge, read when a reporter asks; replaces one of the same name (the latest instance reports).
     *
     * @param name the metric's name
     * @param doc what it tells
     * @param gauge its value
     */
    public void gauge(String name, String doc, Gauge<? extends Number> gauge) {
        MetricName metricName = metrics.metricName(name, type, doc, tags);
        metrics.removeMetric(metricName);
        metrics.addMetric(metricName, gauge);
        gauges.add(metricName);
    }

    /** @return the current value of one of this client's metrics (tests) */
    public double value(String name) {
        return ((Number) metrics.metric(metrics.metricName(name, type, tags)).metricValue()).doubleValue();
    }

    /**
     * Removes this client's metrics, unless another instance of its type and client id still uses
     * them, and releases the registry. Recording afterwards is harmless and invisible. Idempotent.
     */
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        registry.release(user, () -> {
            sensors.forEach(sensor -> metrics.removeSensor(sensor.name()));
            gauges.forEach(metrics::removeMetric);
        });
    }
}
