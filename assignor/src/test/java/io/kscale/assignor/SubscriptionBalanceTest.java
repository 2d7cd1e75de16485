package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Balance across subscription groups (issue 17, finding 3): members that subscribe to different
 * topics. Before the fix each group of topics with the same subscribers was placed on its own,
 * every member starting from zero and ties going to the lowest member id, so the members of
 * several groups piled up load: A, B, C with x (4 partitions, read by all) and y (1, read by A and
 * B) ended A=3, B=1, C=1, where Kafka's {@code CooperativeStickyAssignor} gives 2/2/1.
 */
class SubscriptionBalanceTest {

    private static final Map<String, Object> NO_STORE = Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);

    @ParameterizedTest
    @EnumSource(RebalanceProtocol.class)
    void shouldCarryEachMembersLoadFromOneSubscriptionGroupToTheNext(RebalanceProtocol protocol) {
        GroupSimulator group = new GroupSimulator(protocol, NO_STORE).topic("x", 4).topic("y", 1);
        group.join("a", "x", "y");
        group.join("b", "x", "y");
        group.join("c", "x");
        group.rebalanceUntilStable();
        assertThat(group.load().values()).as("5 partitions over a, b, c: %s", group.load())
                .containsExactlyInAnyOrder(2, 2, 1);
        assertThat(group.owners()).hasSize(5);
    }

    @ParameterizedTest
    @EnumSource(RebalanceProtocol.class)
    void shouldCarryLoadAcrossGroupsForStatefulMembersToo(RebalanceProtocol protocol) {
        GroupSimulator group = new GroupSimulator(protocol, NO_STORE).topic("x", 4).topic("y", 1);
        group.join("a", new GroupSimulator.ScriptedListener(), "x", "y");
        group.join("b", new GroupSimulator.ScriptedListener(), "x", "y");
        group.join("c", new GroupSimulator.ScriptedListener(), "x");
        group.rebalanceUntilStable();
        assertThat(group.load().values()).as("5 stateful partitions over a, b, c: %s", group.load())
                .containsExactlyInAnyOrder(2, 2, 1);
    }

    @ParameterizedTest
    @EnumSource(RebalanceProtocol.class)
    void shouldLeaveTheWholeSharedTopicToTheMembersThatCannotReadTheOther(RebalanceProtocol protocol) {
        GroupSimulator group = new GroupSimulator(protocol, NO_STORE).topic("x", 6).topic("y", 3);
        group.join("a", "x", "y");
        group.join("b", "x");
        group.join("c", "x");
        group.rebalanceUntilStable();
        assertThat(group.load()).as("y's 3 partitions on a, x's 6 on b and c").isEqualTo(Map.of("a", 3, "b", 3, "c", 3));
    }

    @ParameterizedTest
    @EnumSource(RebalanceProtocol.class)
    void shouldBalanceAChainOfSubscriptionsThatOnlyMovesAlongTheChainCanEven(RebalanceProtocol protocol) {
        // a reads solo and zz, b reads zz and mid, c reads mid: a's surplus reaches c only through b.
        // Placed group by group, mid (b, c) comes first by name and leaves b loaded: 4/3/2.
        GroupSimulator group = new GroupSimulator(protocol, NO_STORE).topic("solo", 3).topic("zz", 3).topic("mid", 3);
        group.join("a", "solo", "zz");
        group.join("b", "zz", "mid");
        group.join("c", "mid");
        group.rebalanceUntilStable();
        assertThat(group.load().values()).as("9 partitions: %s", group.load()).containsOnly(3);
        Map<TopicPartition, String> before = group.owners();
        group.rebalance();
        assertThat(group.owners()).as("a rebalance with nothing changed moves nothing").isEqualTo(before);
    }

    @ParameterizedTest
    @EnumSource(RebalanceProtocol.class)
    void shouldKeepTasksWholeAndCoPartitionedWhileBalancingAcrossGroups(RebalanceProtocol protocol) {
        Map<String, Object> config = new HashMap<>(NO_STORE);
        GroupSimulator group = new GroupSimulator(protocol, config).topic("orders", 4).topic("payments", 4)
                .topic("audit", 2);
        group.join("a", "orders", "payments", "audit");
        group.join("b", "orders", "payments");
        group.join("c", "orders", "payments");
        group.rebalanceUntilStable();
        group.topic("orders", 8);
        group.rebalanceUntilStable();
        Map<TopicPartition, String> owners = group.owners();
        for (int p = 0; p < 8; p++) {
            assertThat(owners.get(new TopicPartition("orders", p))).as("orders-%d with orders-%d", p, p % 4)
                    .isEqualTo(owners.get(new TopicPartition("orders", p % 4)));
            assertThat(owners.get(new TopicPartition("orders", p))).as("orders-%d with payments-%d", p, p % 4)
                    .isEqualTo(owners.get(new TopicPartition("payments", p % 4)));
        }
        assertThat(group.owners()).hasSize(14);
    }
}
