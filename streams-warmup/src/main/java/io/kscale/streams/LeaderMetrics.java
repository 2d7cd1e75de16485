package io.kscale.streams;

import io.kscale.assignor.internals.lifecycle.ConsumerCloseWatch;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@link WarmupAssignorMetrics} of the stream threads in this JVM that led a rebalance, one
 * per consumer client id. Kafka Streams makes a new {@link WarmupTaskAssignor} for every
 * rebalance and never closes it, so the metrics outlive the assignor (as {@link LeaderLearners}
 * does for the learner): created when a thread first computes an assignment, and removed when its
 * consumer closes, which {@link ConsumerCloseWatch} observes (the consumer unregisters its
 * {@code kafka.consumer:type=app-info} MBean), as for the consumer assignor. After the Streams
 * instance closes, neither an MBean nor anything of the application stays reachable from here.
 *
 * <p>Bounded: at most {@value #MAX_CLIENTS} client ids, the least recently used closed first
 * (its MBean goes, and comes back, counters from zero, if that thread leads again): a JVM that
 * generates client ids and drops Streams instances without closing them cannot grow it without
 * bound. Thread-safe: stream threads of several applications may rebalance at once.
 */
final class LeaderMetrics {

    /** The leaders of this JVM, in JMX. */
    static final LeaderMetrics JVM = new LeaderMetrics(WarmupAssignorMetrics.JMX);

    static final int MAX_CLIENTS = 64;

    private final AssignorMetrics.Registry registry;
    private final Map<String, WarmupAssignorMetrics> byClient = new LinkedHashMap<>(16, 0.75f, true);

    /** @param registry where the metrics go */
    LeaderMetrics(AssignorMetrics.Registry registry) {
        this.registry = registry;
    }

    /**
     * @param clientId the consumer's {@code client.id}; "" if unknown (no consumer to watch, so
     *                 metrics outside JMX, kept by no one)
     * @return its metrics, created on first use
     */
    WarmupAssignorMetrics forClient(String clientId) {
        if (clientId.isEmpty()) {
            return WarmupAssignorMetrics.detached();
        }
        WarmupAssignorMetrics evicted = null;
        WarmupAssignorMetrics metrics;
        synchronized (this) {
            metrics = byClient.get(clientId);
            if (metrics != null) {
                return metrics;
            }
            metrics = new WarmupAssignorMetrics(registry, clientId);
            byClient.put(clientId, metrics);
            // Held weakly by the watch, strongly here: it lives until the close or the eviction.
            ConsumerCloseWatch.watch(clientId, metrics, this::consumerClosed);
            if (byClient.size() > MAX_CLIENTS) {
                Iterator<WarmupAssignorMetrics> eldest = byClient.values().iterator();
                evicted = eldest.next();
                eldest.remove();
            }
        }
        if (evicted != null) {
            ConsumerCloseWatch.unwatch(evicted);
            evicted.close();
        }
        return metrics;
    }

    private void consumerClosed(WarmupAssignorMetrics metrics) {
        synchronized (this) {
            byClient.remove(metrics.clientId(), metrics);
        }
        metrics.close();
    }

    /** @return how many client ids it keeps metrics of (tests) */
    synchronized int size() {
        return byClient.size();
    }
}
