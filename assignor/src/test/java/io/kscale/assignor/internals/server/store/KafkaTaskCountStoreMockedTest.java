package io.kscale.assignor.internals.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.server.TaskCount;
import io.kscale.assignor.internals.store.TaskCountRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link KafkaTaskCountStore} over Kafka's mock clients, one round at a time ({@link StoreHarness}):
 * the three answers, first record wins, unreadable records, migration seeds, and that a failed
 * read never leads to a write.
 */
@Timeout(30)
class KafkaTaskCountStoreMockedTest {

    private static final Uuid ORDERS = new Uuid(0x0102030405060708L, 0x1111111111111111L);
    private static final Uuid PAYMENTS = new Uuid(0x2222222222222222L, 0x3333333333333333L);
    private static final Uuid AUDIT = new Uuid(0x4444444444444444L, 0x5555555555555555L);

    private final StoreHarness harness = new StoreHarness();
    private final KafkaTaskCountStore store = harness.store;

    @Test
    void shouldAnswerNotYetKnownBeforeTheTopicIsRead() {
        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.notYetKnown().toString());

        harness.createFailure = new TimeoutException("the broker's listeners do not accept yet");
        assertThat(harness.step()).isFalse();

        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.notYetKnown().toString());
        assertThat(store.loaded()).isFalse();
        assertThat(store.readFailures()).isEqualTo(1);
        assertThat(harness.metrics.storeReadFailuresTotal()).as("counted in the assignor's metrics").isEqualTo(1);
    }

    @Test
    void shouldCreateTheTopicAsAnAppendOnlyLogThatNeverExpires() {
        assertThat(harness.step()).isTrue();

        assertThat(harness.created).hasSize(1);
        assertThat(harness.created.get(0).numPartitions()).isEqualTo(1);
        assertThat(harness.created.get(0).configs()).containsEntry("cleanup.policy", "delete")
                .containsEntry("retention.ms", "-1").containsEntry("retention.bytes", "-1");
    }

    @Test
    void shouldReadATopicAnOperatorCreatedForAPrincipalThatMayNotCreateIt() {
        harness.topicExists = true;
        harness.append(ORDERS, 4, 4, "broker 2");
        harness.createFailure = new org.apache.kafka.common.errors.TopicAuthorizationException(
                java.util.Set.of(StoreHarness.TOPIC));

        assertThat(harness.step()).isTrue();

        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
    }

    @Test
    void shouldAnswerNoneStoredOnceAnEmptyTopicIsRead() {
        assertThat(harness.step()).isTrue();

        assertThat(store.loaded()).isTrue();
        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.noneStored().toString());
    }

    @Test
    void shouldAnswerTheStoredTaskCountOnceLoaded() {
        harness.topicExists = true;
        harness.append(ORDERS, 4, 8, "broker 2");

        harness.step();

        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
        assertThat(store.lookup(PAYMENTS)).hasToString(TaskCount.noneStored().toString());
        assertThat(store.recordsRead()).isEqualTo(1);
        assertThat(harness.written()).as("nothing to write").isEmpty();
    }

    @Test
    void shouldAnswerAProposalAtOnceAndWriteItOnce() {
        harness.step();

        assertThat(store.propose(ORDERS, 4, 4)).isEqualTo(4);
        assertThat(store.lookup(ORDERS)).as("before the write").hasToString(TaskCount.known(4).toString());
        assertThat(store.propose(ORDERS, 8, 8)).as("a second group on this broker gets the first proposal").isEqualTo(4);

        harness.step();
        harness.step();
        harness.step();

        assertThat(harness.written()).containsExactly(ORDERS + " -> 4");
        assertThat(store.proposalsWritten()).isEqualTo(1);
        assertThat(store.counts().entry(ORDERS).orElseThrow().source).isEqualTo(KnownTaskCounts.Source.LOGGED);
        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
    }

    @Test
    void shouldCountAFailedWriteAndWriteTheProposalAfterTheNextRead() {
        harness.step();
        assertThat(store.propose(ORDERS, 4, 4)).isEqualTo(4);

        harness.producer.sendException = new org.apache.kafka.common.errors.TimeoutException("no leader yet");
        assertThat(harness.step()).isFalse();

        assertThat(store.writeFailures()).isEqualTo(1);
        assertThat(harness.metrics.storeWriteFailuresTotal()).as("counted in the assignor's metrics").isEqualTo(1);
        assertThat(store.lookup(ORDERS)).as("this broker keeps its proposal meanwhile").hasToString(TaskCount.known(4).toString());

        harness.producer.sendException = null;
        harness.step();
        harness.step();
        assertThat(harness.written()).containsExactly(ORDERS + " -> 4");
    }

    @Test
    void shouldNotWriteAProposalWhoseTopicAnotherBrokerRecordedMeanwhile() {
        harness.step();
        store.propose(ORDERS, 8, 8);
        harness.append(ORDERS, 4, 8, "broker 2");

        harness.step();

        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
        assertThat(store.racesLost()).isEqualTo(1);
        assertThat(harness.written()).as("read before writing: the log holds the id").isEmpty();
    }

    @Test
    void shouldSwitchToAnotherBrokersRecordThatLandedFirst() {
        harness.step();
        store.propose(ORDERS, 8, 8);
        // This round writes T=8; the broker appends broker 2's record before it.
        harness.step();
        harness.storeLog.clear();
        harness.append(ORDERS, 4, 8, "broker 2");
        harness.appendRaw(harness.producer.history().get(0).key(), harness.producer.history().get(0).value());

        harness.step();

        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
        assertThat(store.racesLost()).isEqualTo(1);
        assertThat(store.conflictingRecords()).as("its own losing record is expected").isZero();
        assertThat(store.counts().entry(ORDERS).orElseThrow().source).isEqualTo(KnownTaskCounts.Source.LOGGED);
    }

    @Test
    void shouldKeepTheFirstRecordOfATopicIdAndIgnoreLaterOnes() {
        harness.topicExists = true;
        harness.append(ORDERS, 4, 4, "broker 2");
        harness.append(ORDERS, 8, 8, "broker 3");

        harness.step();

        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
        assertThat(store.conflictingRecords()).isEqualTo(1);
    }

    @Test
    void shouldHoldATopicWhoseFirstRecordIsUnreadable() {
        harness.topicExists = true;
        harness.appendRaw(TaskCountRecord.key(ORDERS), "not a record".getBytes(StandardCharsets.UTF_8));
        harness.append(ORDERS, 4, 4, "broker 2");
        harness.appendRaw("no topic id".getBytes(StandardCharsets.UTF_8), new TaskCountRecord(4, 4, 1, "x").value());

        harness.step();

        assertThat(store.lookup(ORDERS)).as("the unreadable record may hold another T")
                .hasToString(TaskCount.notYetKnown().toString());
        assertThat(store.lookup(PAYMENTS)).hasToString(TaskCount.noneStored().toString());
        assertThat(store.malformedRecords()).isEqualTo(2);
        assertThat(store.loaded()).isTrue();
    }

    @Test
    void shouldIgnoreAnUnreadableRecordAfterTheFirst() {
        harness.topicExists = true;
        harness.append(ORDERS, 4, 4, "broker 2");
        harness.appendRaw(TaskCountRecord.key(ORDERS), new byte[] {0x54, 0, 0, 0, 0, 0, 1});

        harness.step();

        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
        assertThat(store.malformedRecords()).isEqualTo(1);
    }

    @Test
    void shouldNeverWriteWhenTheReadFails() {
        harness.step();
        store.propose(ORDERS, 4, 4);
        harness.consumer.setPollException(new KafkaException("the partition leader is gone"));

        assertThat(harness.step()).isFalse();

        assertThat(harness.written()).isEmpty();
        assertThat(store.lookup(ORDERS)).as("still this broker's proposal").hasToString(TaskCount.known(4).toString());
        assertThat(harness.step()).isTrue();
        assertThat(harness.written()).as("written after a complete read").containsExactly(ORDERS + " -> 4");
    }

    @Test
    void shouldNotWriteAProposalMadeBeforeTheFirstCompleteRead() {
        harness.topicExists = true;
        harness.append(ORDERS, 4, 4, "broker 2");
        store.propose(ORDERS, 8, 8);
        harness.consumer.setPollException(new KafkaException("not yet"));

        harness.step();
        assertThat(harness.written()).isEmpty();
        harness.step();

        assertThat(harness.written()).isEmpty();
        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
    }

    @Test
    void shouldAnswerNotYetKnownForUnknownTopicsWhileTheReadLags() {
        harness.topicExists = true;
        harness.append(ORDERS, 4, 4, "broker 2");
        harness.step();
        harness.consumer.setPollException(new KafkaException("the partition leader is gone"));
        harness.step();

        harness.time.sleep(KafkaTaskCountStore.MAX_STALENESS_MS);
        assertThat(store.lookup(PAYMENTS)).as("at the bound").hasToString(TaskCount.noneStored().toString());
        harness.time.sleep(1);

        assertThat(store.lookup(ORDERS)).as("what was read stays true").hasToString(TaskCount.known(4).toString());
        assertThat(store.lookup(PAYMENTS)).as("another broker may have recorded it since")
                .hasToString(TaskCount.notYetKnown().toString());
        harness.step();
        assertThat(store.lookup(PAYMENTS)).as("caught up again").hasToString(TaskCount.noneStored().toString());
    }

    @Test
    void shouldSeedFromTheClassicLayoutsAndTakeTheSmallestWhenGroupsDisagree() {
        harness.createClassicTopic();
        long fingerprint = ClassicSeeds.fingerprint(ORDERS);
        harness.appendClassic("orders-app", GroupLayout.of(3,
                List.of(TopicLayout.of("orders", 4, 16).withTopicId(fingerprint))));
        harness.appendClassic("audit-app", GroupLayout.of(1,
                List.of(TopicLayout.of("orders", 8, 8).withTopicId(fingerprint))));

        harness.step();

        assertThat(taskCountFor(ORDERS, 16)).isEqualTo(4);
        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
        assertThat(store.lookup(PAYMENTS)).hasToString(TaskCount.noneStored().toString());
        assertThat(store.seededTopics()).isEqualTo(1);
        harness.step();
        assertThat(harness.written()).containsExactly(ORDERS + " -> 4");
    }

    /**
     * Issue 25, finding 6: a classic layout is what members reported to their leader, so a poisoned
     * one seeded its T for every group of the cluster. Now a seed must fit the topic's real
     * partition count (T at most the count and a divisor of it, and no more partitions than the
     * topic has), checked when a group first assigns the topic; an inconsistent T is skipped for
     * the next smallest, or the topic gets its partition count as T as without classic layouts.
     */
    @Test
    void shouldSeedOnlyATaskCountConsistentWithTheTopicsPartitionCount() {
        harness.createClassicTopic();
        long orders = ClassicSeeds.fingerprint(ORDERS);
        long payments = ClassicSeeds.fingerprint(PAYMENTS);
        harness.appendClassic("orders-app", GroupLayout.of(3, List.of(TopicLayout.of("orders", 4, 8).withTopicId(orders))));
        harness.appendClassic("broken-app", GroupLayout.of(9, List.of(TopicLayout.of("orders", 3, 3).withTopicId(orders),
                TopicLayout.of("payments", TopicLayout.MAX_COUNT, TopicLayout.MAX_COUNT).withTopicId(payments))));

        harness.step();

        assertThat(taskCountFor(ORDERS, 8)).as("3 does not divide 8: the next smallest").isEqualTo(4);
        assertThat(taskCountFor(PAYMENTS, 4)).as("2^20 partitions where there are 4: no seed").isEqualTo(4);
        assertThat(store.seededTopics()).isEqualTo(1);
        harness.step();
        assertThat(harness.written()).containsExactlyInAnyOrder(ORDERS + " -> 4", PAYMENTS + " -> 4");
    }

    @Test
    void shouldPreferTheStoredTaskCountToTheClassicSeed() {
        harness.topicExists = true;
        harness.append(ORDERS, 16, 16, "broker 2");
        harness.createClassicTopic();
        harness.appendClassic("orders-app", GroupLayout.of(3,
                List.of(TopicLayout.of("orders", 4, 16).withTopicId(ClassicSeeds.fingerprint(ORDERS)))));

        harness.step();

        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(16).toString());
        assertThat(store.seededTopics()).isZero();
    }

    @Test
    void shouldSeedFromAClassicLayoutTopicCreatedAfterTheStoreLoaded() {
        harness.step();
        harness.createClassicTopic();
        harness.appendClassic("orders-app", GroupLayout.of(3,
                List.of(TopicLayout.of("orders", 4, 8).withTopicId(ClassicSeeds.fingerprint(ORDERS)))));

        harness.step();

        assertThat(taskCountFor(ORDERS, 8)).isEqualTo(4);
    }

    @Test
    void shouldSeedFromEveryListedClassicLayoutTopicAndTakeTheSmallestAcrossThem() {
        StoreHarness two = new StoreHarness(StoreHarness.PLAINTEXT_BROKER, Map.of(),
                List.of(StoreHarness.CLASSIC, StoreHarness.CLASSIC_OTHER));
        two.createClassicTopic(StoreHarness.CLASSIC);
        two.createClassicTopic(StoreHarness.CLASSIC_OTHER);
        long orders = ClassicSeeds.fingerprint(ORDERS);
        long payments = ClassicSeeds.fingerprint(PAYMENTS);
        two.appendClassic(StoreHarness.CLASSIC, "orders-app", GroupLayout.of(3,
                List.of(TopicLayout.of("orders", 8, 16).withTopicId(orders))));
        two.appendClassic(StoreHarness.CLASSIC_OTHER, "team-b-app", GroupLayout.of(1,
                List.of(TopicLayout.of("orders", 4, 16).withTopicId(orders),
                        TopicLayout.of("payments", 6, 12).withTopicId(payments))));

        two.step();

        assertThat(taskCountFor(two.store, ORDERS, 16)).as("smallest across the topics").isEqualTo(4);
        assertThat(taskCountFor(two.store, PAYMENTS, 12)).as("only in the group's own topic").isEqualTo(6);
    }

    @Test
    void shouldLoadWithoutAListedClassicLayoutTopicThatDoesNotExistAndReadItOnceItDoes() {
        StoreHarness two = new StoreHarness(StoreHarness.PLAINTEXT_BROKER, Map.of(),
                List.of(StoreHarness.CLASSIC, StoreHarness.CLASSIC_OTHER));
        two.createClassicTopic(StoreHarness.CLASSIC);

        assertThat(two.step()).isTrue();
        assertThat(two.store.loaded()).as("a missing layout topic holds nothing up").isTrue();
        assertThat(two.store.lookup(PAYMENTS)).hasToString(TaskCount.noneStored().toString());

        two.createClassicTopic(StoreHarness.CLASSIC_OTHER);
        two.appendClassic(StoreHarness.CLASSIC_OTHER, "team-b-app", GroupLayout.of(1,
                List.of(TopicLayout.of("orders", 4, 16).withTopicId(ClassicSeeds.fingerprint(ORDERS)))));
        two.step();

        assertThat(taskCountFor(two.store, ORDERS, 16)).isEqualTo(4);
    }

    @Test
    void shouldForgetOnlyTheLayoutTopicsSeedOfAGroupDeletedFromOneOfThem() {
        StoreHarness two = new StoreHarness(StoreHarness.PLAINTEXT_BROKER, Map.of(),
                List.of(StoreHarness.CLASSIC, StoreHarness.CLASSIC_OTHER));
        two.createClassicTopic(StoreHarness.CLASSIC);
        two.createClassicTopic(StoreHarness.CLASSIC_OTHER);
        long orders = ClassicSeeds.fingerprint(ORDERS);
        two.appendClassic(StoreHarness.CLASSIC, "orders-app", GroupLayout.of(3,
                List.of(TopicLayout.of("orders", 4, 16).withTopicId(orders))));
        two.appendClassic(StoreHarness.CLASSIC_OTHER, "orders-app", GroupLayout.of(3,
                List.of(TopicLayout.of("orders", 8, 16).withTopicId(orders))));
        List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> first =
                two.classicLogs.get(StoreHarness.CLASSIC);
        first.add(new org.apache.kafka.clients.consumer.ConsumerRecord<>(StoreHarness.CLASSIC, 0, first.size(),
                "orders-app".getBytes(StandardCharsets.UTF_8), null));

        two.step();

        assertThat(taskCountFor(two.store, ORDERS, 16)).as("the same group id's layout in the other topic stays")
                .isEqualTo(8);
    }

    @Test
    void shouldForgetTheSeedsOfAGroupWhoseLayoutWasDeleted() {
        harness.createClassicTopic();
        harness.appendClassic("orders-app", GroupLayout.of(3,
                List.of(TopicLayout.of("orders", 4, 8).withTopicId(ClassicSeeds.fingerprint(ORDERS)))));
        harness.classicLog.add(new org.apache.kafka.clients.consumer.ConsumerRecord<>(StoreHarness.CLASSIC, 0,
                harness.classicLog.size(), "orders-app".getBytes(StandardCharsets.UTF_8), null));

        harness.step();

        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.noneStored().toString());
    }

    @Test
    void shouldReadARecreatedTopicFromTheBeginningAndWriteBackWhatItKnows() {
        harness.topicExists = true;
        harness.append(ORDERS, 4, 4, "broker 2");
        harness.step();
        assertThat(store.lookup(PAYMENTS)).hasToString(TaskCount.noneStored().toString());

        // Deleted and created again; broker 2 recorded two topics in the new log before this broker looks.
        harness.recreateStoreTopic();
        harness.append(PAYMENTS, 8, 8, "broker 2");
        harness.append(AUDIT, 3, 3, "broker 2");
        harness.time.sleep(KafkaTaskCountStore.TOPIC_ID_CHECK_MS);
        assertThat(harness.step()).isTrue();

        assertThat(harness.metrics.storeTopicLossesTotal()).isEqualTo(1);
        assertThat(store.storeTopicLosses()).isEqualTo(1);
        assertThat(store.lookup(PAYMENTS)).as("read from offset 0 of the new log, not from the old position")
                .hasToString(TaskCount.known(8).toString());
        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
        assertThat(harness.written()).as("what the new log lacks is written back").containsExactly(ORDERS + " -> 4");
        assertThat(harness.created).as("never created by the store after the first time").hasSize(0);
    }

    @Test
    void shouldHoldUnknownTopicsWhileTheTopicIsDeletedAndNotCreateItAgain() {
        harness.step();
        store.propose(ORDERS, 4, 4);
        harness.step();
        assertThat(harness.created).hasSize(1);

        harness.deleteStoreTopic();
        harness.time.sleep(KafkaTaskCountStore.TOPIC_ID_CHECK_MS);
        assertThat(harness.step()).isFalse();
        harness.time.sleep(1_000);
        assertThat(harness.step()).isFalse();

        assertThat(store.lookup(PAYMENTS)).as("held: it may have been recorded in the lost log")
                .hasToString(TaskCount.notYetKnown().toString());
        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.known(4).toString());
        assertThat(harness.created).as("the store does not create an empty store by itself").hasSize(1);
        assertThat(harness.metrics.storeTopicLossesTotal()).as("counted once per loss").isEqualTo(1);

        harness.recreateStoreTopic(); // by the operator
        assertThat(harness.step()).isTrue();

        assertThat(store.lookup(PAYMENTS)).hasToString(TaskCount.noneStored().toString());
        assertThat(harness.storeLog).hasSize(1);
        assertThat(harness.written()).containsExactly(ORDERS + " -> 4", ORDERS + " -> 4");
        assertThat(harness.metrics.storeTopicLossesTotal()).isEqualTo(1);
    }

    @Test
    void shouldAdoptTheNewLogsFirstRecordOverTheTaskCountItWritesBack() {
        harness.topicExists = true;
        harness.append(ORDERS, 4, 4, "broker 2");
        harness.step();

        // A broker that started after the re-creation took today's count before this one wrote back.
        harness.recreateStoreTopic();
        harness.append(ORDERS, 8, 8, "broker 3");
        harness.time.sleep(KafkaTaskCountStore.TOPIC_ID_CHECK_MS);
        harness.step();

        assertThat(store.lookup(ORDERS)).as("the new log's first record wins, on every broker alike")
                .hasToString(TaskCount.known(8).toString());
        assertThat(store.racesLost()).isEqualTo(1);
        assertThat(harness.written()).isEmpty();
    }

    @Test
    void shouldNotDescribeTheTopicMoreOftenThanTheCheckInterval() {
        harness.step();
        harness.recreateStoreTopic();
        harness.time.sleep(KafkaTaskCountStore.TOPIC_ID_CHECK_MS - 1);
        harness.step();
        assertThat(harness.metrics.storeTopicLossesTotal()).isEqualTo(0);

        harness.time.sleep(1);
        harness.step();
        assertThat(harness.metrics.storeTopicLossesTotal()).isEqualTo(1);
    }

    @Test
    void shouldStayNotYetKnownWithoutCredentialsForASecuredListener() {
        StoreHarness secured = new StoreHarness(Map.of("listeners", "SASL_SSL://:9094",
                "security.inter.broker.protocol", "SASL_SSL"), Map.of(), List.of(StoreHarness.CLASSIC));

        assertThat(secured.step()).isFalse();
        assertThat(secured.step()).isFalse();

        assertThat(secured.store.lookup(ORDERS)).hasToString(TaskCount.notYetKnown().toString());
        assertThat(secured.clientsCreated).as("no client without credentials").hasValue(0);
    }

    @Test
    void shouldAnswerNotYetKnownAndCloseTheClientsOnceClosed() {
        harness.step();
        store.propose(ORDERS, 4, 4);

        store.close();

        assertThat(store.lookup(ORDERS)).hasToString(TaskCount.notYetKnown().toString());
        assertThat(harness.consumer.closed()).isTrue();
        assertThat(harness.producer.closed()).isTrue();
    }

    /** The T a group gets for a topic of so many partitions, asked as the broker-side assignor asks (SubscribedTopics). */
    private int taskCountFor(Uuid topic, int partitions) {
        return taskCountFor(store, topic, partitions);
    }

    private static int taskCountFor(KafkaTaskCountStore store, Uuid topic, int partitions) {
        TaskCount answer = store.lookup(topic);
        if (answer.isKnown()) {
            return answer.taskCount();
        }
        assertThat(answer.isNoneStored()).as("answer for %s: %s", topic, answer).isTrue();
        return store.propose(topic, partitions, partitions);
    }
}
