package io.kscale.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.Test;

/** The wrapper on Kafka's MockConsumer: poll goes through the barrier, the container's other calls reach the consumer. */
class BarrierConsumerTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    private final MockConsumer<String, String> mock = new MockConsumer<>("earliest");

    @Test
    void pollGoesThroughTheBarrierAndTheContainersCallsReachTheConsumer() throws Exception {
        Consumer<String, String> consumer = BarrierConsumer.wrap(mock, Map.of("client.id", "barrier-calls"));
        consumer.assign(List.of(ORDERS_0));
        mock.updateBeginningOffsets(Map.of(ORDERS_0, 0L));
        mock.addRecord(new ConsumerRecord<>("orders", 0, 0L, "customer-1", "order-1"));

        assertThat(consumer.poll(Duration.ofMillis(10))).hasSize(1);
        assertThat(barrierMBean("barrier-calls")).as("the barrier's metrics").isTrue();

        consumer.commitSync();
        assertThat(mock.committed(Set.of(ORDERS_0)).get(ORDERS_0).offset()).isEqualTo(1L);
        consumer.pause(List.of(ORDERS_0));
        assertThat(mock.paused()).containsExactly(ORDERS_0);
        consumer.resume(List.of(ORDERS_0));
        consumer.seek(ORDERS_0, 0L);
        assertThat(mock.position(ORDERS_0)).isZero();
        assertThat(consumer.groupMetadata()).isEqualTo(mock.groupMetadata());
        assertThat(consumer.metrics()).isEqualTo(mock.metrics());
        consumer.enforceRebalance();
        assertThat(mock.shouldRebalance()).isTrue();

        consumer.wakeup();
        assertThatThrownBy(() -> consumer.poll(Duration.ofMillis(10))).isInstanceOf(WakeupException.class);
    }

    @Test
    void equalsOnlyItself() {
        Consumer<String, String> consumer = BarrierConsumer.wrap(mock, Map.of("client.id", "barrier-equals"));

        // Called directly: AssertJ's isEqualTo would accept the same reference without calling equals.
        assertThat(consumer.equals(consumer)).isTrue();
        assertThat(consumer.equals(mock)).isFalse();
        assertThat(consumer.equals(BarrierConsumer.wrap(mock, Map.of("client.id", "barrier-equals")))).isFalse();
        assertThat(consumer.hashCode()).isEqualTo(System.identityHashCode(consumer));
        assertThat(Set.of(consumer)).contains(consumer);
    }

    @Test
    void everyCloseClosesTheBarrierAndTheConsumer() throws Exception {
        assertClosesBoth(Consumer::close);
        assertClosesBoth(consumer -> consumer.close(Duration.ofSeconds(1)));
        assertClosesBoth(consumer -> consumer.close(CloseOptions.timeout(Duration.ofSeconds(1))));
    }

    private static void assertClosesBoth(java.util.function.Consumer<Consumer<String, String>> close) throws Exception {
        MockConsumer<String, String> closing = new MockConsumer<>("earliest");
        Consumer<String, String> consumer = BarrierConsumer.wrap(closing, Map.of("client.id", "barrier-close"));
        assertThat(barrierMBean("barrier-close")).as("the barrier's metrics").isTrue();

        close.accept(consumer);

        assertThat(closing.closed()).as("the consumer closed").isTrue();
        assertThat(barrierMBean("barrier-close")).as("the barrier's metrics after close").isFalse();
    }

    private static boolean barrierMBean(String clientId) throws Exception {
        return ManagementFactory.getPlatformMBeanServer()
                .isRegistered(new ObjectName("kscale.assignor:type=expansion-barrier,client-id=" + clientId));
    }
}
