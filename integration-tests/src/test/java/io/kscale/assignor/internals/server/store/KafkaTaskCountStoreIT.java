package io.kscale.assignor.internals.server.store;

import io.kscale.assignor.internals.server.TaskCountStoreEvents;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.server.TaskCount;
import io.kscale.assignor.internals.store.KafkaLayoutStore;
import io.kscale.assignor.internals.store.StoreAdvice;
import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaTaskCountStore} against a real broker, each store as the one inside a broker would
 * run (its own thread and clients): what one store proposes, a second store (another broker's)
 * reads; a restarted store keeps T; two stores that race agree on the first record; and a T that
 * the classic assignor's {@link KafkaLayoutStore} stored seeds the broker side; a store topic
 * deleted and created again is re-read and refilled. Each test uses its own topics.
 */
@RealKafkaCluster(brokers = 1)
class KafkaTaskCountStoreIT {

    /** Generous for a broker that has just started; an await returns as soon as it holds. */
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Uuid ORDERS = Uuid.randomUuid();
    private static final Uuid PAYMENTS = Uuid.randomUuid();

    private final List<KafkaTaskCountStore> stores = new ArrayList<>();

    @AfterEach
    void closeStores() {
        stores.forEach(KafkaTaskCountStore::close);
    }

    @Test
    void shouldShowAnotherBrokersStoreWhatOneProposed(KafkaCluster cluster) {
        String topic = "task-counts-two-brokers";
        KafkaTaskCountStore first = loaded(store(cluster, topic, ""));
        assertThat(first.lookup(ORDERS)).hasToString(TaskCount.noneStored().toString());

        assertThat(first.propose(ORDERS, 4, 4)).isEqualTo(4);
        KafkaTaskCountStore second = loaded(store(cluster, topic, ""));

        await().atMost(WAIT).untilAsserted(() ->
                assertThat(second.lookup(ORDERS)).hasToString(TaskCount.known(4).toString()));
        second.propose(PAYMENTS, 6, 12);
        await().atMost(WAIT).untilAsserted(() -> assertThat(first.lookup(PAYMENTS))
                .as("the first store keeps reading").hasToString(TaskCount.known(6).toString()));
        assertThat(first.proposalsWritten()).isEqualTo(1);
        assertThat(first.writeFailures() + second.writeFailures() + first.racesLost()).isZero();
    }

    @Test
    void shouldKeepTheTaskCountAcrossARestartOfTheStore(KafkaCluster cluster) throws Exception {
        String topic = "task-counts-restart";
        KafkaTaskCountStore before = loaded(store(cluster, topic, ""));
        before.propose(ORDERS, 4, 8);
        await().atMost(WAIT).until(() -> before.proposalsWritten() == 1);
        before.close();
        assertThat(before.lookup(ORDERS)).as("closed").hasToString(TaskCount.notYetKnown().toString());

        KafkaTaskCountStore after = loaded(store(cluster, topic, ""));

        assertThat(after.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
        assertThat(after.recordsRead()).isEqualTo(1);
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
            assertThat(config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value()).isEqualTo("delete");
            assertThat(config.get(TopicConfig.RETENTION_MS_CONFIG).value()).isEqualTo("-1");
        }
    }

    @Test
    void shouldAgreeOnTheFirstRecordWhenTwoStoresRace(KafkaCluster cluster) {
        String topic = "task-counts-race";
        KafkaTaskCountStore first = store(cluster, topic, "");
        KafkaTaskCountStore second = store(cluster, topic, "");
        // Both decide before either has read anything: each writes after its first complete read,
        // unless it read the other's record by then.
        first.propose(ORDERS, 4, 4);
        second.propose(ORDERS, 8, 8);
        loaded(first);
        loaded(second);

        await().atMost(WAIT).untilAsserted(() ->
                assertThat(first.lookup(ORDERS)).hasToString(second.lookup(ORDERS).toString()));
        KafkaTaskCountStore third = loaded(store(cluster, topic, ""));
        assertThat(third.lookup(ORDERS)).as("a store loading later reads the same first record")
                .hasToString(first.lookup(ORDERS).toString());
        assertThat(first.racesLost() + second.racesLost()).isLessThanOrEqualTo(1);
    }

    @Test
    void shouldSeedFromTheLayoutTheClassicAssignorStored(KafkaCluster cluster) throws Exception {
        String topic = "task-counts-seeded";
        String classicTopic = "classic-layouts-seeded";
        Uuid orders = createTopic(cluster, "orders-seeded", 8);
        GroupLayout classic = GroupLayout.of(2, List.of(TopicLayout.of("orders-seeded", 4, 8)
                .withTopicId(ClassicSeeds.fingerprint(orders))));
        assertThat(new KafkaLayoutStore("orders-app", classicTopic, (short) 1, WAIT, cluster.clientProperties(),
                new StoreAdvice("test.layout.store.topic", "The test goes on without it")).save(classic)).isTrue();

        KafkaTaskCountStore seeded = loaded(store(cluster, topic, classicTopic));

        // As the assignor asks: none stored, then a proposal with the partition count, which the seed fits.
        assertThat(seeded.lookup(orders)).hasToString(TaskCount.noneStored().toString());
        assertThat(seeded.propose(orders, 8, 8)).isEqualTo(4);
        assertThat(seeded.lookup(orders)).hasToString(TaskCount.known(4).toString());
        assertThat(seeded.lookup(PAYMENTS)).hasToString(TaskCount.noneStored().toString());
        assertThat(seeded.seededTopics()).isEqualTo(1);
        await().atMost(WAIT).until(() -> seeded.proposalsWritten() == 1);
        seeded.close();
        KafkaTaskCountStore withoutClassic = loaded(store(cluster, topic, ""));
        assertThat(withoutClassic.lookup(orders)).as("recorded in the task count topic")
                .hasToString(TaskCount.known(4).toString());
    }

    @Test
    void shouldHoldUnknownTopicsWhileTheStoreTopicIsGoneAndWriteBackOnceItIsCreatedAgain(KafkaCluster cluster)
            throws Exception {
        String topic = "task-counts-recreated";
        KafkaTaskCountStore running = loaded(store(cluster, topic, ""));
        running.propose(ORDERS, 4, 8);
        await().atMost(WAIT).until(() -> running.proposalsWritten() == 1);

        try (Admin admin = Admin.create(cluster.clientProperties())) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            await().atMost(WAIT).until(() -> running.storeTopicLosses() == 1);
            assertThat(running.lookup(PAYMENTS)).as("held while the topic is gone")
                    .hasToString(TaskCount.notYetKnown().toString());
            assertThat(running.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).as("not re-created by the store")
                    .doesNotContain(topic);

            await().atMost(WAIT).ignoreExceptions().until(() -> {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(StoreTopic.CONFIGS)))
                        .all().get(30, TimeUnit.SECONDS);
                return true;
            });
        }

        await().atMost(WAIT).untilAsserted(() -> assertThat(running.lookup(PAYMENTS))
                .as("the new topic read to its end").hasToString(TaskCount.noneStored().toString()));
        await().atMost(WAIT).until(() -> running.proposalsWritten() == 2);
        KafkaTaskCountStore restarted = loaded(store(cluster, topic, ""));
        assertThat(restarted.lookup(ORDERS)).as("written back into the new topic")
                .hasToString(TaskCount.known(4).toString());
        assertThat(running.storeTopicLosses()).isEqualTo(1);
    }

    /** A store as a broker of this cluster would start it: the configs name its listener. */
    private KafkaTaskCountStore store(KafkaCluster cluster, String topic, String classicTopic) {
        String bootstrap = cluster.bootstrapServers().split(",")[0].trim();
        Map<String, Object> brokerConfigs = Map.of("node.id", "1", "listeners", "PLAINTEXT://" + bootstrap);
        KafkaTaskCountStore store = KafkaTaskCountStore.start(brokerConfigs, topic, (short) 1, "",
                cluster.clientProperties().entrySet().stream()
                        .filter(e -> !e.getKey().equals("bootstrap.servers"))
                        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)),
                classicTopic.isEmpty() ? List.of() : List.of(classicTopic), Duration.ofMillis(200), TaskCountStoreEvents.NONE);
        stores.add(store);
        return store;
    }

    private static KafkaTaskCountStore loaded(KafkaTaskCountStore store) {
        await().atMost(WAIT).until(store::loaded);
        return store;
    }

    private static Uuid createTopic(KafkaCluster cluster, String name, int partitions) throws Exception {
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            return admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).topicId(name)
                    .get(30, TimeUnit.SECONDS);
        }
    }
}
