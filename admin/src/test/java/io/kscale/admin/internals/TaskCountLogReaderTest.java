package io.kscale.admin.internals;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.store.TaskCountRecord;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class TaskCountLogReaderTest {

    private static final String TOPIC = "kscale-task-counts";
    private static final Uuid ORDERS = new Uuid(1, 1);
    private static final Uuid PAYMENTS = new Uuid(2, 2);
    private static final Uuid REFUNDS = new Uuid(3, 3);

    @Test
    void shouldTakeTheFirstRecordOfATopicIdAsTheBrokersDo() {
        MockStoreClients log = new MockStoreClients(TOPIC)
                .add(ORDERS.toString(), record(4, "broker 1"))
                .add(ORDERS.toString(), record(8, "broker 2")); // a race's loser: ignored by every broker

        StoredTaskCount stored = reader(log).taskCount(ORDERS);

        assertThat(stored.isKnown()).isTrue();
        assertThat(stored.taskCount()).isEqualTo(4);
        assertThat(stored.source()).isEqualTo("task count topic kscale-task-counts, by broker 1");
    }

    @Test
    void shouldReportATopicIdWhoseFirstRecordDoesNotDecodeAsUnreadable() {
        MockStoreClients log = new MockStoreClients(TOPIC)
                .add(PAYMENTS.toString(), new byte[] {1, 2, 3})
                .add(PAYMENTS.toString(), record(2, "broker 1"));

        StoredTaskCount stored = reader(log).taskCount(PAYMENTS);

        assertThat(stored.isUnreadable()).isTrue();
        assertThat(stored.problem()).contains("the first record of topic id " + PAYMENTS, "does not decode");
    }

    @Test
    void shouldReportNoneStoredForAnIdWithoutRecordOrAMissingTopic() {
        MockStoreClients log = new MockStoreClients(TOPIC).add(ORDERS.toString(), record(4, "broker 1"));

        assertThat(reader(log).taskCount(REFUNDS).problem()).isEqualTo("no record of topic id " + REFUNDS
                + " in task count topic " + TOPIC);
        assertThat(reader(new MockStoreClients(TOPIC).missing()).taskCount(REFUNDS).problem())
                .startsWith("task count topic kscale-task-counts does not exist");
    }

    @Test
    void shouldReportAStoreItMayNotReadAsUnreadableWithTheCause() {
        MockStoreClients log = new MockStoreClients(TOPIC).failing(new TopicAuthorizationException("not allowed"));

        StoredTaskCount stored = reader(log).taskCount(ORDERS);

        assertThat(stored.isUnreadable()).isTrue();
        assertThat(stored.problem()).isEqualTo("cannot read task count topic kscale-task-counts: "
                + "org.apache.kafka.common.errors.TopicAuthorizationException: not allowed");
    }

    @Test
    void shouldIgnoreKeysThatNameNoTopicId() {
        MockStoreClients log = new MockStoreClients(TOPIC)
                .add("not-a-topic-id", record(9, "someone"))
                .add(ORDERS.toString(), record(4, "broker 1"));

        assertThat(reader(log).taskCount(ORDERS).taskCount()).isEqualTo(4);
    }

    private static TaskCountLogReader reader(MockStoreClients clients) {
        return new TaskCountLogReader(TOPIC, Map.of("bootstrap.servers", "127.0.0.1:9"), clients, Duration.ofSeconds(5));
    }

    private static byte[] record(int taskCount, String writer) {
        return new TaskCountRecord(taskCount, taskCount, 1L, writer).value();
    }

}
