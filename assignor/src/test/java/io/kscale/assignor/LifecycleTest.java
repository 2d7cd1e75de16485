package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kscale.assignor.GroupSimulator.ScriptedListener;
import io.kscale.assignor.internals.barrier.BarrierMetrics;
import io.kscale.assignor.internals.lifecycle.ConsumerCloseWatch;
import io.kscale.assignor.internals.member.MemberLayouts;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Issue 11: after a consumer closes, nothing of it stays reachable from the assignor's static
 * state, and its metrics are gone. Before the fix, {@link MemberLayouts} kept each member's
 * {@link TaskStateListener} (through its early follow-up check) for as long as the JVM ran, and
 * {@link AssignorMetrics}' registry kept every client id's metrics: a redeployed application
 * leaked its class loader, and one that generates client ids grew without bound.
 */
class LifecycleTest {

    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();
    private static final AtomicInteger CLIENTS = new AtomicInteger();
    private static final String GROUP = "lifecycle";

    @Test
    void shouldRemoveTheMetricsOfAConsumerWhenItCloses() throws Exception {
        String clientId = "lifecycle-consumer-" + CLIENTS.incrementAndGet();
        Map<String, Object> config = consumerConfig(clientId);
        ObjectName metrics = new ObjectName(AssignorMetrics.JMX_PREFIX + ":type=" + AssignorMetrics.GROUP
                + ",client-id=" + clientId);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config);
        assertThat(JMX.isRegistered(metrics)).as("registered while the consumer runs").isTrue();

        consumer.close(Duration.ZERO);

        assertThat(JMX.isRegistered(metrics)).as("removed by close").isFalse();
    }

    /**
     * Issue 17 (finding 6): the barrier's metrics went only with {@link ExpansionBarrier#close()},
     * which an application that just closes its consumer never calls (the barrier's own Javadoc
     * example did not). They now close with the consumer, as the assignor's do.
     */
    @Test
    void shouldRemoveTheBarriersMetricsWhenItsConsumerClosesWithoutClosingTheBarrier() throws Exception {
        String clientId = "lifecycle-barrier-" + CLIENTS.incrementAndGet();
        Map<String, Object> config = consumerConfig(clientId);
        ObjectName metrics = new ObjectName(AssignorMetrics.JMX_PREFIX + ":type=" + BarrierMetrics.GROUP
                + ",client-id=" + clientId);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config);
        ExpansionBarrier<byte[], byte[]> barrier = ExpansionBarrier.wrap(consumer, config);
        assertThat(JMX.isRegistered(metrics)).as("registered while the consumer runs").isTrue();

        consumer.close(Duration.ZERO);

        assertThat(JMX.isRegistered(metrics)).as("removed with the consumer, barrier.close() never called").isFalse();
        Reference.reachabilityFence(barrier);
    }

    @Test
    void shouldKeepNothingOfAClosedConsumerReachable() throws Exception {
        String clientId = "lifecycle-member-" + CLIENTS.incrementAndGet();
        // The MBean KafkaConsumer's constructor registers under its client id, and its close() unregisters.
        ObjectName appInfo = new ObjectName("kafka.consumer:type=app-info,id=" + clientId);
        JMX.registerMBean(new javax.management.timer.Timer(), appInfo);
        KeyPreservingAssignor assignor = new KeyPreservingAssignor();
        WeakReference<TaskStateListener> listener = runStatefulMember(assignor, clientId);

        // As a consumer does, hold the assignor until the close: a collection before it would
        // leave nothing for the watch to close, and the check below would fail for the test's sake.
        JMX.unregisterMBean(appInfo);
        Reference.reachabilityFence(assignor);
        assignor = null;

        await().atMost(Duration.ofSeconds(30)).until(() -> {
            System.gc();
            return listener.get() == null;
        });
        assertThat(MemberLayouts.latest(GROUP, clientId + "-member")).isEmpty();
    }

    /** A barrier dropped without close() while its consumer runs: its metrics go once it was collected. */
    @Test
    void shouldRemoveTheMetricsOfABarrierCollectedWithoutClose() throws Exception {
        String clientId = "lifecycle-dropped-barrier-" + CLIENTS.incrementAndGet();
        ObjectName metrics = new ObjectName(AssignorMetrics.JMX_PREFIX + ":type=" + BarrierMetrics.GROUP
                + ",client-id=" + clientId);
        org.apache.kafka.clients.consumer.MockConsumer<byte[], byte[]> consumer = mockConsumer();
        WeakReference<ExpansionBarrier<byte[], byte[]>> barrier = new WeakReference<>(
                ExpansionBarrier.wrap(consumer, Map.of(ConsumerConfig.CLIENT_ID_CONFIG, clientId)));
        assertThat(JMX.isRegistered(metrics)).isTrue();

        await().atMost(Duration.ofSeconds(30)).until(() -> {
            System.gc();
            ConsumerCloseWatch.watched(); // purges, as the next consumer's start or close would
            return barrier.get() == null && !JMX.isRegistered(metrics);
        });
        Reference.reachabilityFence(consumer);
    }

    /**
     * A MockConsumer on any client this test-jar runs on: kafka-clients 4.0 replaced
     * {@code MockConsumer(OffsetResetStrategy)} by {@code MockConsumer(String)}, and client-compat
     * runs this class on 3.9.1 too.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static org.apache.kafka.clients.consumer.MockConsumer<byte[], byte[]> mockConsumer()
            throws ReflectiveOperationException {
        Class<org.apache.kafka.clients.consumer.MockConsumer> type = org.apache.kafka.clients.consumer.MockConsumer.class;
        try {
            return type.getConstructor(String.class).newInstance("earliest");
        } catch (NoSuchMethodException beforeKafka40) {
            Class strategy = Class.forName("org.apache.kafka.clients.consumer.OffsetResetStrategy");
            return type.getConstructor(strategy).newInstance(Enum.valueOf(strategy, "EARLIEST"));
        }
    }

    /**
     * Issue 17 (finding 6): with no cap on the registry of published layouts, what bounds it is
     * that an entry goes with its consumer: at once when the consumer closes (here the close
     * {@link ConsumerCloseWatch} runs), and when an assignor dropped without a close is collected.
     */
    @Test
    void shouldDropTheEntriesOfClosedAndCollectedConsumersFromTheRegistry() {
        String group = "lifecycle-many-" + CLIENTS.incrementAndGet();
        List<KeyPreservingAssignor> assignors = LiveMembers.assigned(group, LiveMembers.MANY);
        assertThat(MemberLayouts.entries(group)).as("one entry per live member, past the former cap")
                .isEqualTo(LiveMembers.MANY);

        int closed = LiveMembers.MANY / 2;
        assignors.subList(0, closed).forEach(KeyPreservingAssignor::close);
        assertThat(MemberLayouts.entries(group)).as("after %s consumers closed", closed)
                .isEqualTo(LiveMembers.MANY - closed);
        assertThat(MemberLayouts.latest(group, "live-member-0")).isEmpty();
        assertThat(MemberLayouts.latest(group, "live-member-" + closed)).isPresent();

        WeakReference<KeyPreservingAssignor> last = new WeakReference<>(assignors.get(LiveMembers.MANY - 1));
        assignors = null;
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            System.gc();
            return last.get() == null && MemberLayouts.entries(group) == 0;
        });
    }

    @Test
    void shouldCloseTheRegistryWithItsLastClientSoThatNoMBeanIsLeft() throws Exception {
        String domain = "kscale.lifecycle-test";
        AssignorMetrics.Registry registry = new AssignorMetrics.Registry(domain);
        AssignorMetrics first = new AssignorMetrics(registry, "one");
        AssignorMetrics second = new AssignorMetrics(registry, "one");
        AssignorMetrics other = new AssignorMetrics(registry, "two");
        ObjectName one = new ObjectName(domain + ":type=" + AssignorMetrics.GROUP + ",client-id=one");

        first.close();
        assertThat(JMX.isRegistered(one)).as("still used by another instance of the client id").isTrue();
        second.close();
        assertThat(JMX.isRegistered(one)).isFalse();
        assertThat(JMX.queryNames(new ObjectName(domain + ":*"), null)).isNotEmpty();
        other.close();

        assertThat(JMX.queryNames(new ObjectName(domain + ":*"), null))
                .as("nothing left in the platform MBean server, kafka-metrics-count included").isEmpty();
        assertThat(registry.isOpen()).isFalse();
    }

    /** A consumer of {@link KeyPreservingAssignor} that never reaches a broker. */
    private static Map<String, Object> consumerConfig(String clientId) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
        config.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, KeyPreservingAssignor.class.getName());
        return config;
    }

    /** A stateful member's assignor through one assignment; of its listener, only a weak reference leaves the call. */
    private static WeakReference<TaskStateListener> runStatefulMember(KeyPreservingAssignor assignor, String clientId) {
        ScriptedListener listener = new ScriptedListener();
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
        config.put(KeyPreservingAssignorConfig.TASK_STATE_LISTENER_CONFIG, listener);
        assignor.configure(config);
        assignor.subscriptionUserData(java.util.Set.of("orders"));
        assignor.onAssignment(new Assignment(List.of()), new ConsumerGroupMetadata(GROUP, 1, clientId + "-member",
                Optional.empty()));
        assertThat(MemberLayouts.earlyFollowUp(GROUP, clientId + "-member")).isPresent();
        return new WeakReference<>(listener);
    }
}
