package io.kscale.it.support;

import io.kscale.lab.cluster.ClusterSpec;
import io.kscale.lab.cluster.DockerUnavailableException;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.KafkaClusters;
import io.kscale.lab.cluster.ServerAssignorPlugin;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Starts the cluster that {@link RealKafkaCluster} describes once per test class and closes it
 * when the class is done (the cluster lives in the class's extension store, which JUnit closes).
 */
public final class KafkaClusterExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

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

    /** Starts the class's cluster; a skip, if any, comes per test (see {@link #beforeEach}). */
    @Override
    public void beforeAll(ExtensionContext context) {
        started(context);
    }

    /**
     * Where the Docker suite cannot run, each test is skipped with the reason, so the report
     * counts them (a class skipped in beforeAll would show as no tests at all).
     */
    @Override
    public void beforeEach(ExtensionContext context) {
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
        ClosableCluster started = started(context);
        if (started.notHere != null) {
            Assumptions.abort(started.notHere);
        }
        if (started.cluster == null) {
            Suites.skipOrFail(started.unavailable);
        }
        return started.cluster;
    }

    private static ClosableCluster started(ExtensionContext context) {
        Class<?> testClass = context.getRequiredTestClass();
        return context.getStore(NAMESPACE)
                .getOrComputeIfAbsent(testClass, c -> ClosableCluster.startFor(testClass), ClosableCluster.class);
    }

    private static RealKafkaCluster settings(Class<?> testClass) {
        return AnnotationSupport.findAnnotation(testClass, RealKafkaCluster.class)
                .orElseThrow(() -> new IllegalStateException(testClass + " lacks @RealKafkaCluster"));
    }

    private static KafkaCluster start(Class<?> testClass) {
        RealKafkaCluster settings = settings(testClass);
        ClusterSpec.Builder spec = ClusterSpec.builder()
                .brokers(settings.brokers())
                .brokerProperties(FAST_TEST_SETTINGS)
                .security(settings.security())
                .workDir(Path.of(System.getProperty("kscale.cluster.workdir", "target/kscale-clusters")));
        if (settings.serverAssignors() && ServerAssignorPlugin.brokersServeIt()) {
            ServerAssignorPlugin.addTo(spec, Path.of("target", "kscale-plugins"));
        }
        for (String property : settings.brokerProperties()) {
            int eq = property.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("brokerProperties entries must be key=value, got '" + property + "'");
            }
            spec.brokerProperty(property.substring(0, eq).trim(), property.substring(eq + 1).trim());
        }
        return KafkaClusters.start(spec.build());
    }

    /**
     * The class's cluster, or why the Docker suite has none; lets JUnit close the cluster when
     * the class's store is closed.
     */
    private static final class ClosableCluster implements AutoCloseable {
        final KafkaCluster cluster;
        final String unavailable;
        /** Why the class does not run in this suite. */
        final String notHere;

        private ClosableCluster(KafkaCluster cluster, String unavailable, String notHere) {
            this.cluster = cluster;
            this.unavailable = unavailable;
            this.notHere = notHere;
        }

        static ClosableCluster startFor(Class<?> testClass) {
            String notHere = Suites.notHere(settings(testClass));
            if (notHere != null) {
                return new ClosableCluster(null, null, notHere);
            }
            try {
                return new ClosableCluster(start(testClass), null, null);
            } catch (DockerUnavailableException e) {
                // Only an explicit docker backend throws this: the Docker suite, with no engine or image.
                if (Suites.dockerRequired()) {
                    throw e;
                }
                return new ClosableCluster(null, e.getMessage(), null);
            }
        }

        @Override
        public void close() {
            if (cluster != null) {
                cluster.close();
            }
        }
    }
}
