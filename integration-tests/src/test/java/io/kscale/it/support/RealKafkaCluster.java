package io.kscale.it.support;

import io.kscale.lab.cluster.ClusterSecurity;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class against one real Kafka cluster, started before its first test and stopped
 * after its last. Test methods and {@code @BeforeAll} methods get the cluster as a
 * {@link io.kscale.lab.cluster.KafkaCluster} parameter.
 *
 * <pre>{@code
 * @RealKafkaCluster(brokers = 3, brokerProperties = "broker.session.timeout.ms=3000")
 * class MyIT {
 *     @Test
 *     void shouldSurviveABrokerCrash(KafkaCluster cluster) { ... }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(KafkaClusterExtension.class)
public @interface RealKafkaCluster {

    int brokers() default 3;

    /** Broker settings as {@code key=value}, on top of {@link KafkaClusterExtension#FAST_TEST_SETTINGS}. */
    String[] brokerProperties() default {};

    /**
     * Whether every broker loads kscale's assignor jar and offers the broker-side assignors in
     * {@code group.consumer.assignors}: kscale's first where this build has it, then Kafka's
     * {@code uniform} and {@code range} ({@link io.kscale.lab.cluster.ServerAssignorPlugin}).
     * {@link #brokerProperties()} can still override the setting. Brokers before Kafka 4.0
     * ({@code -Dkscale.broker.version=3.9.1}) start without them, since they would refuse the
     * setting; tests that need them check
     * {@link io.kscale.lab.cluster.ServerAssignorPlugin#brokersServeIt()} and skip.
     */
    boolean serverAssignors() default false;

    /**
     * Why the class runs in the process suite only, or empty for both suites. In the Docker suite
     * such a class starts no cluster, and each of its tests is skipped with this reason.
     */
    String processSuiteOnly() default "";

    /**
     * TLS, SCRAM and ACLs, or none (the default); see {@link ClusterSecurity}. A secured class
     * runs in the suite of secured clusters only, on processes (Failsafe's {@code secured-clusters}
     * execution, which takes {@code *SecuredClusterIT} classes; see {@link Suites}).
     */
    ClusterSecurity security() default ClusterSecurity.PLAINTEXT;
}
