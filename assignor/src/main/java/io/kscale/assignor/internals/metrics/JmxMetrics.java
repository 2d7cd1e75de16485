package io.kscale.assignor.internals.metrics;

import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;

/** A metrics registry of kscale's own, reported to JMX under a domain of its own. */
public final class JmxMetrics {

    private JmxMetrics() {
    }

    /**
     * A new registry whose metrics appear in JMX under {@code jmxPrefix}. Built without the
     * {@code Metrics} constructor that takes a context, because that one also takes Kafka's
     * {@code Time}, which is not part of Kafka's public API: the reporter learns its domain from
     * the context before it joins the registry, as that constructor would do.
     *
     * @param jmxPrefix the JMX domain
     * @return the registry; its owner closes it
     */
    public static Metrics registry(String jmxPrefix) {
        JmxReporter jmx = new JmxReporter();
        jmx.contextChange(new KafkaMetricsContext(jmxPrefix));
        Metrics metrics = new Metrics(new MetricConfig());
        metrics.addReporter(jmx);
        return metrics;
    }
}
