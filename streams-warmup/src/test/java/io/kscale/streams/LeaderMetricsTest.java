package io.kscale.streams;

import static io.kscale.streams.StreamsFixtures.A;
import static io.kscale.streams.StreamsFixtures.B;
import static io.kscale.streams.StreamsFixtures.CLOCK;
import static io.kscale.streams.StreamsFixtures.state;
import static io.kscale.streams.StreamsFixtures.tasks;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.lifecycle.ConsumerCloseWatch;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.placement.PlacementEngine;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.timer.Timer;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

/**
 * {@link LeaderMetrics}: the Streams assignor's metrics in JMX, kept across the per-rebalance
 * assignors of a stream thread, and gone when its consumer closes. Streams never closes a task
 * assignor; a consumer's close unregisters its {@code kafka.consumer:type=app-info,id=<client.id>}
 * MBean, which these tests do by hand (as {@code KafkaConsumer.close()} does).
 */
class LeaderMetricsTest {

    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    private static final List<TaskId> FOUR = tasks(0, 4);

    @Test
    void shouldRemoveEveryMBeanOfTheStreamsAssignorWhenTheConsumerCloses() throws Exception {
        String clientId = "lifecycle-app-StreamThread-1-consumer";
        ObjectName appInfo = registerAppInfo(clientId);
        ObjectName metrics = new ObjectName("kscale.streams:type=warmup-task-assignor,client-id=" + clientId);
        int watchedBefore = ConsumerCloseWatch.watched();

        rebalance(LeaderMetrics.JVM, clientId);
        rebalance(LeaderMetrics.JVM, clientId);

        assertThat(JMX.isRegistered(metrics)).as("registered while the consumer runs").isTrue();
        assertThat(JMX.getAttribute(metrics, "assignments-total")).as("two assignors, one set of metrics")
                .isEqualTo(2.0);
        assertThat(LeaderMetrics.JVM.size()).isEqualTo(1);

        JMX.unregisterMBean(appInfo);

        assertThat(JMX.queryNames(new ObjectName(WarmupAssignorMetrics.JMX_PREFIX + ":*"), null))
                .as("no kscale.streams MBean left, kafka-metrics-count included").isEmpty();
        assertThat(WarmupAssignorMetrics.JMX.isOpen()).as("the registry closed with its last client").isFalse();
        assertThat(LeaderMetrics.JVM.size()).as("nothing of the client kept").isZero();
        assertThat(ConsumerCloseWatch.watched()).as("no longer watched").isEqualTo(watchedBefore);
    }

    @Test
    void shouldRegisterNothingInJmxForAnAssignorWithoutAClientId() throws Exception {
        new WarmupTaskAssignor(CLOCK, new PlacementEngine()::place, new LeaderLearners()::forApplication,
                LeaderMetrics.JVM::forClient).assign(scaleOut());

        assertThat(JMX.queryNames(new ObjectName(WarmupAssignorMetrics.JMX_PREFIX + ":*"), null)).isEmpty();
        assertThat(LeaderMetrics.JVM.size()).isZero();
    }

    @Test
    void shouldKeepTheMetricsOfAtMostSixtyFourClientsClosingTheLeastRecentlyUsed() throws Exception {
        String domain = "kscale.streams-bound-test";
        LeaderMetrics leaders = new LeaderMetrics(new AssignorMetrics.Registry(domain));
        List<ObjectName> appInfos = new ArrayList<>();
        for (int i = 0; i <= LeaderMetrics.MAX_CLIENTS; i++) {
            appInfos.add(registerAppInfo("bound-" + i));
            leaders.forClient("bound-" + i);
        }

        assertThat(leaders.size()).isEqualTo(LeaderMetrics.MAX_CLIENTS);
        assertThat(JMX.isRegistered(metricsOf(domain, "bound-0"))).as("the eldest, closed").isFalse();
        assertThat(JMX.isRegistered(metricsOf(domain, "bound-" + LeaderMetrics.MAX_CLIENTS))).isTrue();

        for (ObjectName appInfo : appInfos) {
            JMX.unregisterMBean(appInfo);
        }
        assertThat(leaders.size()).isZero();
        assertThat(JMX.queryNames(new ObjectName(domain + ":*"), null)).isEmpty();
    }

    private static void rebalance(LeaderMetrics leaders, String clientId) {
        WarmupTaskAssignor assignor = new WarmupTaskAssignor(CLOCK, new PlacementEngine()::place,
                new LeaderLearners()::forApplication, leaders::forClient);
        assignor.configure(Map.of("application.id", "lifecycle-app", "client.id", clientId));
        assignor.assign(scaleOut());
    }

    private static TestApplicationState scaleOut() {
        return state().stateful(FOUR).client(A, a -> a.active(FOUR)).client(B).build();
    }

    /** The MBean KafkaConsumer's constructor registers under its client id, and its close() unregisters. */
    private static ObjectName registerAppInfo(String clientId) throws Exception {
        ObjectName appInfo = new ObjectName("kafka.consumer:type=app-info,id=" + clientId);
        JMX.registerMBean(new Timer(), appInfo);
        return appInfo;
    }

    private static ObjectName metricsOf(String domain, String clientId) throws Exception {
        return new ObjectName(domain + ":type=" + WarmupAssignorMetrics.TYPE + ",client-id=" + clientId);
    }
}
