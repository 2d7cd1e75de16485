package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.store.Deadline;
import io.kscale.assignor.internals.store.LayoutStore;
import io.kscale.assignor.internals.wire.AssignmentInfo;
import io.kscale.assignor.internals.wire.MemberReport;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The assignor end to end through simulated rebalances, under both protocols. */
class KeyPreservingAssignorTest {

    private static final Map<String, Object> NO_STORE = Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
    private static final String ORDERS = "orders";

    @ParameterizedTest
    @EnumSource(RebalanceProtocol.class)
    void shouldKeepEveryKeyWithItsMemberWhenTheTopicGrowsFourToEightToSixteen(RebalanceProtocol protocol) {
        GroupSimulator group = new GroupSimulator(protocol, NO_STORE).topic(ORDERS, 4);
        group.join("a", ORDERS);
        group.join("b", ORDERS);
        group.join("c", ORDERS);
        group.rebalanceUntilStable();
        Map<Integer, String> ownerOfKeyHash = ownerOfEveryKey(group, 4);

        for (int partitions : new int[] {8, 16}) {
            group.topic(ORDERS, partitions);
            group.rebalanceUntilStable();
            assertThat(ownerOfEveryKey(group, partitions)).as("key owners at %d partitions", partitions).isEqualTo(ownerOfKeyHash);
        }
        assertThat(group.member("a").assignor.knownLayout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 16));
    }

    @Test
    void shouldMoveExactlyThreeUnitsWhenAFourthMemberJoinsTwelveUnits() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 12);
        group.join("a", ORDERS);
        group.join("b", ORDERS);
        group.join("c", ORDERS);
        group.rebalanceUntilStable();
        Map<TopicPartition, String> before = group.owners();

        group.join("d", ORDERS);
        assertThat(group.rebalance()).as("the first rebalance only revokes").isTrue();
        assertThat(group.member("d").owned).as("withheld while a, b, c still own them").isEmpty();
        group.rebalanceUntilStable();

        Map<TopicPartition, String> after = group.owners();
        long moved = before.keySet().stream().filter(p -> !before.get(p).equals(after.get(p))).count();
        assertThat(moved).isEqualTo(3);
        assertThat(group.load().values()).containsOnly(3);
    }

    @Test
    void shouldKeepCoPartitionedTasksTogether() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE)
                .topic(ORDERS, 8).topic("payments", 4);
        group.join("a", ORDERS, "payments");
        group.join("b", ORDERS, "payments");
        group.rebalanceUntilStable();
        Map<TopicPartition, String> owners = group.owners();
        for (int p = 0; p < 8; p++) {
            assertThat(owners.get(new TopicPartition(ORDERS, p)))
                    .as("orders-%d goes with payments-%d", p, p % 4)
                    .isEqualTo(owners.get(new TopicPartition("payments", p % 4)));
        }
    }

    @ParameterizedTest
    @EnumSource(RebalanceProtocol.class)
    void shouldBalanceUnrelatedTopicsOfOneSizeOverEveryMemberWithoutCoPartitioning(RebalanceProtocol protocol) {
        Map<String, Object> config = new HashMap<>(NO_STORE);
        config.put(KeyPreservingAssignorConfig.CO_PARTITIONING_CONFIG, "none");
        GroupSimulator group = new GroupSimulator(protocol, config);
        String[] topics = new String[10];
        for (int t = 0; t < topics.length; t++) {
            topics[t] = "topic-" + t;
            group.topic(topics[t], 4);
        }
        for (int m = 0; m < 8; m++) {
            group.join("member-" + m, topics);
        }
        group.rebalanceUntilStable();
        assertThat(group.load().values()).as("40 partitions of 10 topics over 8 members").containsOnly(5);
        Map<TopicPartition, String> before = group.owners();

        for (String topic : topics) {
            group.topic(topic, 8);
        }
        group.rebalanceUntilStable();

        Map<TopicPartition, String> after = group.owners();
        for (String topic : topics) {
            for (int p = 4; p < 8; p++) {
                assertThat(after.get(new TopicPartition(topic, p))).as("%s-%d goes with its parent", topic, p)
                        .isEqualTo(before.get(new TopicPartition(topic, p - 4)));
            }
        }
    }

    @Test
    void shouldLeaveMembersIdleWhenUnrelatedTopicsOfOneSizeAreCoPartitioned() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE);
        String[] topics = {"topic-0", "topic-1", "topic-2"};
        for (String topic : topics) {
            group.topic(topic, 2);
        }
        for (int m = 0; m < 3; m++) {
            group.join("member-" + m, topics);
        }
        group.rebalanceUntilStable();
        assertThat(group.load().values()).as("two units of three partitions: the default's price")
                .containsExactlyInAnyOrder(3, 3, 0);
    }

    @Test
    void shouldPlaceTopicsOnlyOnTheirSubscribers() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE)
                .topic(ORDERS, 4).topic("audit", 2);
        group.join("a", ORDERS);
        group.join("b", ORDERS, "audit");
        group.join("c", "audit");
        group.rebalanceUntilStable();
        group.owners().forEach((partition, member) ->
                assertThat(group.member(member).topics).as("%s on %s", partition, member).contains(partition.topic()));
        assertThat(group.owners()).hasSize(6);
    }

    @Test
    void shouldLogAndCountAnExpansionThatBreaksAffinityAndGoOn() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        group.join("a", ORDERS);
        group.join("b", ORDERS);
        group.rebalanceUntilStable();
        group.topic(ORDERS, 6);
        group.rebalanceUntilStable();
        assertThat(group.owners()).hasSize(6);
        assertThat(group.member("a").assignor.metrics().value("affinity-breaks-total")).isEqualTo(1.0);
        assertThat(group.member("a").assignor.knownLayout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 6));
    }

    @Test
    void shouldRebaseTheTaskCountWhenTheSettingSaysSo() {
        Map<String, Object> settings = new HashMap<>(NO_STORE);
        settings.put(KeyPreservingAssignorConfig.EXPANSION_POLICY_CONFIG, "REBASE");
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, settings).topic(ORDERS, 4);
        group.join("a", ORDERS);
        group.rebalanceUntilStable();
        group.topic(ORDERS, 6);
        group.rebalanceUntilStable();
        assertThat(group.member("a").assignor.knownLayout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 6, 6));
    }

    @Test
    void shouldUseADeclaredTaskCount() {
        Map<String, Object> settings = new HashMap<>(NO_STORE);
        settings.put(KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG, "orders:2");
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, settings).topic(ORDERS, 8);
        group.join("a", ORDERS);
        group.join("b", ORDERS);
        group.rebalanceUntilStable();
        Map<TopicPartition, String> owners = group.owners();
        for (int p = 0; p < 8; p++) {
            assertThat(owners.get(new TopicPartition(ORDERS, p))).isEqualTo(owners.get(new TopicPartition(ORDERS, p % 2)));
        }
    }

    @Test
    void shouldRecoverTheLayoutFromTheStoreAfterTheWholeGroupRestartedAndTheTopicGrew() {
        InMemoryLayoutStore store = new InMemoryLayoutStore();
        GroupSimulator first = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        first.join("a", ORDERS).assignor.layoutStore(store);
        first.join("b", ORDERS).assignor.layoutStore(store);
        first.rebalanceUntilStable();
        assertThat(store.saved).isNotNull();

        GroupSimulator restarted = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 8);
        restarted.join("a2", ORDERS).assignor.layoutStore(store);
        restarted.join("b2", ORDERS).assignor.layoutStore(store);
        restarted.rebalanceUntilStable();
        assertThat(restarted.member("a2").assignor.knownLayout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 8));
        assertThat(restarted.member("a2").assignor.metrics().value("layout-store-loads-total")).isEqualTo(1.0);
        assertThat(store.saved.topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 8));
    }

    @Test
    void shouldWithoutAStoreTakeTheNewCountAfterAFullRestart() {
        GroupSimulator restarted = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 8);
        restarted.join("a", ORDERS);
        restarted.rebalanceUntilStable();
        assertThat(restarted.member("a").assignor.knownLayout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 8, 8));
    }

    @Test
    void shouldIgnoreForeignAndCorruptUserDataAndStillAssignEveryPartition() {
        KeyPreservingAssignor leader = new KeyPreservingAssignor();
        leader.configure(Map.of("group.id", "g", "client.id", "corrupt-test",
                KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false));
        ByteBuffer good = new KeyPreservingAssignor().subscriptionUserData(Set.of(ORDERS));
        ByteBuffer flipped = good.duplicate();
        byte[] bytes = new byte[flipped.remaining()];
        flipped.get(bytes);
        bytes[bytes.length - 1] ^= 1;
        Map<String, Subscription> subscriptions = new TreeMap<>();
        subscriptions.put("a", new Subscription(List.of(ORDERS), ByteBuffer.wrap(new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8})));
        subscriptions.put("b", new Subscription(List.of(ORDERS), ByteBuffer.wrap(bytes)));
        subscriptions.put("c", new Subscription(List.of(ORDERS), null));
        GroupSimulator cluster = new GroupSimulator(RebalanceProtocol.EAGER, NO_STORE).topic(ORDERS, 6);

        Map<String, List<TopicPartition>> assigned = new TreeMap<>();
        leader.assign(cluster.cluster(), new GroupSubscription(subscriptions)).groupAssignment()
                .forEach((member, assignment) -> assigned.put(member, assignment.partitions()));

        assertThat(assigned.values().stream().mapToInt(List::size).sum()).isEqualTo(6);
        assertThat(assigned.values()).allSatisfy(partitions -> assertThat(partitions).hasSize(2));
        assertThat(leader.metrics().value("malformed-user-data-total")).isEqualTo(2.0);
    }

    @Test
    void shouldKeepTasksOnTheirMembersUnderEagerWhereOwnedPartitionsArriveEmpty() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.EAGER, NO_STORE).topic(ORDERS, 12);
        group.join("a", ORDERS);
        group.join("b", ORDERS);
        group.join("c", ORDERS);
        group.rebalanceUntilStable();
        Map<TopicPartition, String> before = group.owners();
        group.join("d", ORDERS);
        group.rebalanceUntilStable();
        Map<TopicPartition, String> after = group.owners();
        long moved = before.keySet().stream().filter(p -> !before.get(p).equals(after.get(p))).count();
        assertThat(moved).isEqualTo(3);
    }

    @Test
    void shouldPreferMembersInTheRackOfTheReplicasWithoutBreakingBalanceOrAffinity() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE)
                .topic(ORDERS, 4).brokerRacks("r0", "r1");
        // Members named so that the engine, which knows nothing of racks, would give a the tasks of r0.
        group.join("a", ORDERS).rack = "r1";
        group.join("b", ORDERS).rack = "r0";
        group.rebalanceUntilStable();
        group.topic(ORDERS, 8);
        group.rebalanceUntilStable();

        group.owners().forEach((partition, member) -> assertThat(group.member(member).rack)
                .as("%s on %s", partition, member).isEqualTo("r" + (partition.partition() % 2)));
        assertThat(group.load().values()).containsOnly(4);
        Map<TopicPartition, String> owners = group.owners();
        for (int p = 4; p < 8; p++) {
            assertThat(owners.get(new TopicPartition(ORDERS, p))).isEqualTo(owners.get(new TopicPartition(ORDERS, p - 4)));
        }
    }

    @Test
    void shouldBalanceWhenAMemberLeaves() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 12);
        for (String id : List.of("a", "b", "c", "d")) {
            group.join(id, ORDERS);
        }
        group.rebalanceUntilStable();
        group.leave("b");
        group.rebalanceUntilStable();
        assertThat(group.load().values()).containsOnly(4);
    }

    @Test
    void shouldNeverThrowOnRandomUserData() {
        SplittableRandom random = new SplittableRandom(20261129L);
        GroupLayout layout = GroupLayout.of(3, List.of(TopicLayout.of(ORDERS, 4, 8)));
        // Version 1, with a lag section (a stateful member) to corrupt as well.
        ByteBuffer good = new MemberReport(5, Map.of(ORDERS, List.of(1, 3)), layout, true,
                Map.of(ORDERS, new MemberReport.TopicLags(4, Map.of(0, 0L, 2, 40_000L)),
                        "restored", new MemberReport.TopicLags(2, Map.of(1, 5L)))).encode();
        byte[] valid = Utils.toArray(good);
        byte[] validAssignment = Utils.toArray(AssignmentInfo.encode(io.kscale.assignor.internals.layout.LayoutCodec.encode(layout),
                layout, java.util.OptionalLong.of(1_700_000_000_000L), List.of(List.of(ORDERS)),
                List.of(TaskRef.of(List.of(ORDERS), 4, 2)), AssignmentInfo.VERSION));
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes;
            if (i % 2 == 0) {
                bytes = valid.clone();
                bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
            } else {
                bytes = new byte[random.nextInt(64)];
                random.nextBytes(bytes);
                if (bytes.length > 0) {
                    bytes[0] = random.nextBoolean() ? MemberReport.MAGIC : AssignmentInfo.MAGIC;
                }
            }
            byte[] truncated = java.util.Arrays.copyOf(valid, random.nextInt(valid.length));
            assertThat(MemberReport.decode(ByteBuffer.wrap(bytes))).isEmpty();
            assertThat(MemberReport.decode(ByteBuffer.wrap(truncated))).isEmpty();
            assertThat(AssignmentInfo.decode(ByteBuffer.wrap(bytes))).isEmpty();
            byte[] assignment = validAssignment.clone();
            assignment[random.nextInt(assignment.length)] ^= (byte) (1 << random.nextInt(8));
            assertThat(AssignmentInfo.decode(ByteBuffer.wrap(assignment))).isEmpty();
            assertThat(AssignmentInfo.decode(ByteBuffer.wrap(java.util.Arrays.copyOf(validAssignment,
                    random.nextInt(validAssignment.length))))).isEmpty();
        }
        assertThat(AssignmentInfo.decode(ByteBuffer.wrap(validAssignment))).hasValueSatisfying(info ->
                assertThat(info.warmups()).containsExactly(TaskRef.of(List.of(ORDERS), 4, 2)));
        assertThat(MemberReport.decode(ByteBuffer.wrap(valid))).hasValueSatisfying(report -> {
            assertThat(report.generation()).isEqualTo(5);
            assertThat(report.owned(ORDERS, 1)).isTrue();
            assertThat(report.owned(ORDERS, 2)).isFalse();
            assertThat(report.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 8));
            assertThat(report.stateful()).isTrue();
            assertThat(report.lags().get(ORDERS).lags).containsEntry(2, 40_000L);
            assertThat(report.lags().get("restored").lags).containsEntry(1, 5L);
        });
    }

    /** Which member holds each key hash's records, for every hash class mod the partition count. */
    private static Map<Integer, String> ownerOfEveryKey(GroupSimulator group, int partitions) {
        Map<TopicPartition, String> owners = group.owners();
        Map<Integer, String> byHash = new TreeMap<>();
        for (int hash = 0; hash < 64; hash++) {
            byHash.put(hash, owners.get(new TopicPartition(ORDERS, hash % partitions)));
        }
        return byHash;
    }

    static final class InMemoryLayoutStore implements LayoutStore {
        GroupLayout saved;

        @Override
        public Loaded load(Deadline deadline) {
            return saved == null ? Loaded.NOTHING : Loaded.of(saved);
        }

        @Override
        public boolean save(GroupLayout layout, Deadline deadline) {
            saved = layout;
            return true;
        }
    }
}
