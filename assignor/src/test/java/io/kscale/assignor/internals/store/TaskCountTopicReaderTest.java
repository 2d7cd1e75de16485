package io.kscale.assignor.internals.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link TaskCountTopicReader} against a mocked cluster ({@link MockTaskCountTopic}). */
class TaskCountTopicReaderTest {

    private static final Duration AWAIT = Duration.ofSeconds(10);

    private final MockTaskCountTopic cluster = new MockTaskCountTopic();
    private TaskCountTopicReader reader;

    @AfterEach
    void close() {
        if (reader != null) {
            reader.close();
        }
    }

    private void start() {
        reader = new TaskCountTopicReader(MockTaskCountTopic.TOPIC, Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                "127.0.0.1:9", ConsumerConfig.CLIENT_ID_CONFIG, "app"), cluster.clients(settings ->
                assertThat(settings).containsEntry(ConsumerConfig.CLIENT_ID_CONFIG, "app-kscale-task-counts")
                        .containsEntry(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9")));
    }

    @Test
    void shouldAnswerTheFirstRecordedTaskCountOfEachWantedTopicById() {
        cluster.createTopic("orders");
        cluster.createTopic("payments");
        cluster.record("orders", 4);
        cluster.record("orders", 8); // a later record of the same id never changes T
        start();

        reader.want(Set.of("orders", "payments"));

        await().atMost(AWAIT).until(() -> reader.taskCount("orders").isPresent());
        assertThat(reader.taskCount("orders")).isEqualTo(OptionalInt.of(4));
        assertThat(reader.taskCount("payments")).as("no record for its id yet").isEmpty();
        cluster.record("payments", 6);
        await().atMost(AWAIT).until(() -> reader.taskCount("payments").isPresent());
        assertThat(reader.taskCounts()).containsOnly(Map.entry("orders", 4), Map.entry("payments", 6));
    }

    /** A topic deleted and re-created under its name is a new id: the old id's T no longer answers for it. */
    @Test
    void shouldAnswerByTopicIdSoThatARecreatedTopicHasNoOldTaskCount() {
        cluster.createTopic("orders");
        cluster.record("orders", 4);
        start();
        reader.want(Set.of("orders"));
        await().atMost(AWAIT).until(() -> reader.taskCount("orders").isPresent());

        cluster.createTopic("orders");
        reader.want(Set.of("orders", "other")); // a new name starts a round at once

        await().atMost(AWAIT).until(() -> reader.taskCount("orders").isEmpty());
    }

    /** Malformed records (another writer's keys or values) are skipped, never thrown. */
    @Test
    void shouldSkipRecordsThatAreNotTaskCounts() {
        Uuid orders = cluster.createTopic("orders");
        cluster.record(orders, new byte[] {1, 2, 3});
        cluster.record(orders, null);
        cluster.record("orders", 4);
        start();

        reader.want(Set.of("orders"));

        await().atMost(AWAIT).until(() -> reader.taskCount("orders").isPresent());
        assertThat(reader.taskCount("orders")).isEqualTo(OptionalInt.of(4));
        assertThat(reader.failedRounds()).isZero();
    }

    /** Nothing is asked of the cluster until a topic is wanted. */
    @Test
    void shouldNotTouchTheClusterUntilATopicIsWanted() throws InterruptedException {
        start();
        Thread.sleep(50); // nothing to await: the absence of a call is the point
        assertThat(cluster.describeCalls()).isZero();
        assertThat(reader.taskCounts()).isEmpty();
    }
}
