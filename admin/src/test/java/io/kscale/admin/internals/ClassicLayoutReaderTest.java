package io.kscale.admin.internals;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.store.KafkaLayoutStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class ClassicLayoutReaderTest {

    private static final String LAYOUTS = "kscale-assignor-layouts";
    private static final String GROUP = "orders-app";
    private static final Uuid ORDERS_ID = new Uuid(5, 9);

    @Test
    void shouldReadTheGroupsNewestLayoutOfTheTopic() {
        MockStoreClients store = new MockStoreClients(LAYOUTS)
                .add(GROUP, value(1, TopicLayout.of("orders", 4, 4).withTopicId(5 ^ 9)))
                .add("payments-app", value(3, TopicLayout.of("orders", 6, 6)))
                .add(GROUP, value(2, TopicLayout.of("orders", 4, 8).withTopicId(5 ^ 9)));

        StoredTaskCount stored = reader(store).taskCount(GROUP, "orders", ORDERS_ID);

        assertThat(stored.taskCount()).isEqualTo(4);
        assertThat(stored.source()).isEqualTo("layout topic kscale-assignor-layouts, epoch 2");
    }

    @Test
    void shouldNotTakeTheLayoutOfAnEarlierTopicOfTheSameName() {
        MockStoreClients store = new MockStoreClients(LAYOUTS)
                .add(GROUP, value(1, TopicLayout.of("orders", 4, 4).withTopicId(1234)));

        StoredTaskCount stored = reader(store).taskCount(GROUP, "orders", ORDERS_ID);

        assertThat(stored.isKnown()).isFalse();
        assertThat(stored.problem()).contains("belongs to an earlier topic named orders");
    }

    @Test
    void shouldSayWhereItLookedWhenNoLayoutNamesTheTopic() {
        MockStoreClients store = new MockStoreClients(LAYOUTS).add(GROUP, value(1, TopicLayout.of("refunds", 2, 2)));

        StoredTaskCount stored = reader(store).taskCount(GROUP, "orders", ORDERS_ID);

        assertThat(stored.isUnreadable()).isFalse();
        assertThat(stored.problem()).startsWith("no layout of group orders-app for topic orders in layout topic(s) "
                + "kscale-assignor-layouts (a group that sets kscale.assignor.layout.store.topic");
    }

    @Test
    void shouldReportALayoutThatDoesNotDecodeAsUnreadable() {
        MockStoreClients store = new MockStoreClients(LAYOUTS).add(GROUP, new byte[] {1, 2, 3});

        StoredTaskCount stored = reader(store).taskCount(GROUP, "orders", ORDERS_ID);

        assertThat(stored.isUnreadable()).isTrue();
        assertThat(stored.problem()).isEqualTo("the layout of group orders-app in topic kscale-assignor-layouts "
                + "(offset 0, 3 bytes) does not decode");
    }

    private static ClassicLayoutReader reader(MockStoreClients store) {
        return new ClassicLayoutReader(List.of(LAYOUTS), Map.of("bootstrap.servers", "127.0.0.1:9"), store,
                Duration.ofSeconds(5));
    }

    private static byte[] value(long epoch, TopicLayout topic) {
        return KafkaLayoutStore.recordValue(GroupLayout.of(epoch, List.of(topic)));
    }
}
