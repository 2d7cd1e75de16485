package io.kscale.assignor.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.time.Clock;
import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaLayoutStore} against a real broker: what one store saves, a fresh store (another
 * leader, after every member restarted) loads; the newest save wins; groups sharing the topic stay
 * apart; and what is not a layout (garbage, a tombstone, no topic) loads as nothing, without an
 * exception. Each test uses its own topic.
 */
@RealKafkaCluster(brokers = 1)
class KafkaLayoutStoreIT {

    /** Generous for a broker that has just started; a call returns as soon as it is done. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** The owner's words in the store's WARNs; any adapter's would do. */
    private static final StoreAdvice ADVICE = new StoreAdvice("test.layout.store.topic", "The test goes on without it");
    private static final String GROUP = "orders-app";
    private static final String OTHER_GROUP = "payments-app";
    private static final GroupLayout FIRST = layout(1, 4, 4);
    private static final GroupLayout EXPANDED = layout(2, 4, 8);

    @Test
    void shouldLoadInAFreshStoreTheLayoutAnotherStoreSaved(KafkaCluster cluster) {
        String topic = "layouts-round-trip";
        KafkaLayoutStore writer = store(cluster, GROUP, topic);

        writer.save(EXPANDED);
        KafkaLayoutStore reader = store(cluster, GROUP, topic);

        assertThat(reader.load()).contains(EXPANDED);
        assertThat(writer.failures()).isZero();
        assertThat(reader.failures()).isZero();
    }

    @Test
    void shouldLoadTheLayoutOfTheLatestSave(KafkaCluster cluster) {
        String topic = "layouts-latest";
        store(cluster, GROUP, topic).save(FIRST);
        KafkaLayoutStore nextLeader = store(cluster, GROUP, topic);

        nextLeader.save(EXPANDED);

        assertThat(store(cluster, GROUP, topic).load()).contains(EXPANDED);
        assertThat(nextLeader.failures()).isZero();
    }

    @Test
    void shouldKeepTheLayoutsOfGroupsSharingTheTopicApart(KafkaCluster cluster) {
        String topic = "layouts-two-groups";
        GroupLayout payments = GroupLayout.of(7, List.of(TopicLayout.of("payments", 3, 6)));
        store(cluster, GROUP, topic).save(EXPANDED);
        store(cluster, OTHER_GROUP, topic).save(payments);
        store(cluster, GROUP, topic).save(FIRST);

        assertThat(store(cluster, GROUP, topic).load()).contains(FIRST);
        assertThat(store(cluster, OTHER_GROUP, topic).load()).contains(payments);
        assertThat(store(cluster, "no-layout-app", topic).load()).isEmpty();
    }

    @Test
    void shouldCreateTheTopicCompactedWithOnePartition(KafkaCluster cluster) throws Exception {
        String topic = "layouts-compacted";

        store(cluster, GROUP, topic).save(FIRST);

        try (Admin admin = Admin.create(cluster.clientProperties())) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(30, TimeUnit.SECONDS).get(topic);
            assertThat(config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value()).isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
            assertThat(description.partitions()).hasSize(1);
        }
    }

    @Test
    void shouldIgnoreAValueThatIsNotALayoutUntilTheNextSave(KafkaCluster cluster) throws Exception {
        String topic = "layouts-garbage";
        KafkaLayoutStore leader = store(cluster, GROUP, topic);
        leader.save(FIRST);

        write(cluster, topic, GROUP, "not a layout".getBytes(StandardCharsets.UTF_8));

        assertThat(leader.load()).isEmpty();
        assertThat(leader.failures()).isEqualTo(1);
        leader.save(EXPANDED);
        assertThat(leader.load()).contains(EXPANDED);
        assertThat(leader.failures()).isEqualTo(1);
    }

    @Test
    void shouldLoadNothingAfterATombstone(KafkaCluster cluster) throws Exception {
        String topic = "layouts-tombstone";
        KafkaLayoutStore leader = store(cluster, GROUP, topic);
        leader.save(FIRST);

        write(cluster, topic, GROUP, null);

        assertThat(leader.load()).isEmpty();
        assertThat(leader.failures()).isZero();
    }

    @Test
    void shouldLoadNothingAndCreateNoTopicWhenTheTopicDoesNotExist(KafkaCluster cluster) throws Exception {
        String topic = "layouts-missing";
        KafkaLayoutStore store = store(cluster, GROUP, topic);

        assertThat(store.load()).isEmpty();

        assertThat(store.failures()).isZero();
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain(topic);
        }
    }

    /**
     * Issue 17, finding 5: the store topic is deleted and created again, and other groups write to
     * the new one past the offset the store had read up to. The store tells it by the topic id
     * (on a real broker: the admin client's), reads the new topic from the beginning, and finds
     * no layout of the group, not the old topic's. {@code KafkaLayoutStoreMockedTest} pins the
     * bug; this runs the same path against a broker, where the consumer may also fail a read once
     * while its metadata catches up with the new topic.
     */
    @Test
    void shouldNotReadTheOldTopicsLayoutAfterTheTopicWasRecreated(KafkaCluster cluster) throws Exception {
        String topic = "layouts-recreated";
        KafkaLayoutStore leader = store(cluster, GROUP, topic);
        leader.save(FIRST);
        assertThat(leader.load()).contains(FIRST);

        try (Admin admin = Admin.create(cluster.clientProperties())) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(KafkaLayoutStore.TOPIC_CONFIGS)))
                            .all().get(30, TimeUnit.SECONDS);
                    break;
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException) || System.nanoTime() > until) {
                        throw e;
                    }
                    Thread.sleep(200); // still being deleted
                }
            }
        }
        GroupLayout payments = GroupLayout.of(7, List.of(TopicLayout.of("payments", 3, 6)));
        write(cluster, topic, OTHER_GROUP, KafkaLayoutStore.recordValue(payments));
        write(cluster, topic, OTHER_GROUP, KafkaLayoutStore.recordValue(payments));

        LayoutStore.Loaded loaded = LayoutStore.Loaded.FAILED;
        for (int attempt = 0; attempt < 5 && loaded.failed(); attempt++) {
            loaded = leader.load(Deadline.after(Clock.SYSTEM, TIMEOUT));
        }
        assertThat(loaded.failed()).isFalse();
        assertThat(loaded.layout()).as("the old topic's layout of the group is gone").isEmpty();
        assertThat(store(cluster, OTHER_GROUP, topic).load()).contains(payments);
    }

    private static KafkaLayoutStore store(KafkaCluster cluster, String group, String topic) {
        return new KafkaLayoutStore(group, topic, (short) 1, TIMEOUT, consumerConfigs(cluster, group), ADVICE);
    }

    /** What a consumer of the group hands its assignor: its own settings, not only the connection. */
    private static Map<String, Object> consumerConfigs(KafkaCluster cluster, String group) {
        Map<String, Object> configs = new HashMap<>(cluster.clientProperties());
        configs.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        configs.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-consumer-1");
        configs.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        configs.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        configs.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        configs.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1);
        return configs;
    }

    /** Writes a record for a group the way any other producer could, outside the store. */
    private static void write(KafkaCluster cluster, String topic, String group, byte[] value) throws Exception {
        Map<String, Object> settings = new HashMap<>(cluster.clientProperties());
        settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(settings)) {
            producer.send(new ProducerRecord<>(topic, 0, group.getBytes(StandardCharsets.UTF_8), value))
                    .get(30, TimeUnit.SECONDS);
        }
    }

    private static GroupLayout layout(long epoch, int taskCount, int partitionCount) {
        return GroupLayout.of(epoch, List.of(TopicLayout.of("orders", taskCount, partitionCount)));
    }
}
