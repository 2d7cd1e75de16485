package io.kscale.it.support;

import io.kscale.lab.cluster.ClusterSpec;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.KafkaClusters;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Starts the cluster that {@link RealKafkaCluster} describes once per test class and closes it
 * when the class is done (the cluster lives in the class's extension store, which JUnit closes).
 */
public final class KafkaClusterExtension implements BeforeAllCallback, ParameterResolver {

    /**
     * Broker settings that keep tests fast: a dead broker is fenced (and dropped from ISR) after
     * 3 s instead of 9 s, so {@code acks=all} producers do not stall for long after a kill.
     */
    public static final Map<String, String> FAST_TEST_SETTINGS = Map.of(
            "broker.heartbeat.interval.ms", "500",
            "broker.session.timeout.ms", "3000",
            "replica.lag.time.max.ms", "5000",
            "log.segment.bytes", Integer.toString(1024 * 1024));

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(KafkaClusterExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KafkaCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return cluster(context);
    }

    /**
     * The class's cluster. beforeAll runs first, in the class context, and stores it there; a
     * test method's context finds it through its parent.
     */
    private static KafkaCluster cluster(ExtensionContext context) {
        Class<?> testClass = context.getRequiredTestClass();
        return context.getStore(NAMESPACE)
                .getOrComputeIfAbsent(testClass, c -> new ClosableCluster(start(testClass)), ClosableCluster.class)
                .cluster;
    }

    private static KafkaCluster start(Class<?> testClass) {
        RealKafkaCluster settings = AnnotationSupport.findAnnotation(testClass, RealKafkaCluster.class)
                .orElseThrow(() -> new IllegalStateException(testClass + " lacks @RealKafkaCluster"));
        ClusterSpec.Builder spec = ClusterSpec.builder()
                .brokers(settings.brokers())
                .brokerProperties(FAST_TEST_SETTINGS)
                .workDir(Path.of(System.getProperty("kscale.cluster.workdir", "target/kscale-clusters")));
        for (String property : settings.brokerProperties()) {
            int eq = property.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("brokerProperties entries must be key=value, got '" + property + "'");
            }
            spec.brokerProperty(property.substring(0, eq).trim(), property.substring(eq + 1).trim());
        }
        return KafkaClusters.start(spec.build());
    }

    /** Lets JUnit close the cluster when the class's store is closed. */
    private static final class ClosableCluster implements AutoCloseable {
        final KafkaCluster cluster;

        ClosableCluster(KafkaCluster cluster) {
            this.cluster = cluster;
        }

        @Override
        public void close() {
            cluster.close();
        }
    }
}
