package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.wire.MemberReport;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, finding 6: the task count T a member reports is untrusted input. Before, the leader
 * checked T and the partition count each within 1..2^20 but not against each other or against
 * anything it knew; the highest epoch won the merge (and {@code Long.MAX_VALUE} then stuck), and at
 * equal epochs the most partitions. One member reporting T = 2^20 for a 4-partition topic made
 * every partition its own task, and after 4 -> 8 keys split across members; an inflated partition
 * count turned the next expansion into "shrunk", so an affinity break went uncounted. Now a
 * reported T is accepted only if it is declared, or the T the leader trusts (the layout store's,
 * else its own), or consistent with the metadata; a rejected report is dropped, counted in
 * {@code rejected-layout-reports-total} and logged with the member id.
 */
class ReportedTaskCountTest {

    private static final Map<String, Object> NO_STORE = Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
    private static final String ORDERS = "orders";

    @Test
    void shouldIgnoreATaskCountAboveThePartitionCountReportedOneEpochAhead() {
        GroupSimulator group = stableGroup();
        long epoch = group.member("a").assignor.knownLayout().epoch();
        lie(group.member("b"), GroupLayout.of(epoch + 1, List.of(TopicLayout.of(ORDERS, TopicLayout.MAX_COUNT, 4))));

        group.rebalanceUntilStable();
        group.topic(ORDERS, 8);
        group.rebalanceUntilStable();

        assertKeysStayWithTheirTask(group);
        assertThat(group.member("a").assignor.metrics().value("rejected-layout-reports-total")).isPositive();
    }

    @Test
    void shouldIgnoreAReportWhoseEpochJumpsAheadOfWhatTheLeaderKnows() {
        GroupSimulator group = stableGroup();
        lie(group.member("b"), GroupLayout.of(Long.MAX_VALUE, List.of(TopicLayout.of(ORDERS, TopicLayout.MAX_COUNT, 4))));

        group.rebalanceUntilStable();
        group.topic(ORDERS, 8);
        group.rebalanceUntilStable();

        assertKeysStayWithTheirTask(group);
        assertThat(group.member("a").assignor.knownLayout().epoch()).isLessThan(10);
        assertThat(group.member("a").assignor.metrics().value("rejected-layout-reports-total")).isPositive();
    }

    /** An inflated partition count made the next expansion "shrunk": the break of 4 -> 6 went uncounted. */
    @Test
    void shouldCountTheNextAffinityBreakDespiteAReportedPartitionCountAboveTheMetadatas() {
        GroupSimulator group = stableGroup();
        long epoch = group.member("a").assignor.knownLayout().epoch();
        lie(group.member("b"), GroupLayout.of(epoch + 1, List.of(TopicLayout.of(ORDERS, 4, TopicLayout.MAX_COUNT))));

        group.rebalanceUntilStable();
        group.member("b").tamper = null;
        group.topic(ORDERS, 6);
        group.rebalanceUntilStable();

        assertThat(group.member("a").assignor.metrics().value("affinity-breaks-total")).isEqualTo(1.0);
        assertThat(group.member("a").assignor.knownLayout().topic(ORDERS).orElseThrow().partitionCount()).isEqualTo(6);
    }

    /**
     * What the check must not reject: a topic grown to a count that is not a multiple of T keeps T
     * under policy KEEP (4 with 6 partitions), also through a new leader, without a store.
     */
    @Test
    void shouldKeepAnHonestTaskCountThatDoesNotDivideThePartitionCountThroughANewLeader() {
        GroupSimulator group = stableGroup();
        group.topic(ORDERS, 6);
        group.rebalanceUntilStable();
        group.leave("a");
        group.rebalanceUntilStable();
        group.rebalanceUntilStable();

        KeyPreservingAssignor leader = group.member("b").assignor;
        assertThat(leader.knownLayout().topic(ORDERS).orElseThrow().taskCount()).isEqualTo(4);
        assertThat(leader.metrics().value("rejected-layout-reports-total")).isZero();
        assertThat(leader.metrics().value("affinity-breaks-total")).isZero();
    }

    /**
     * A leader that missed rebalances knows an older epoch than its members report; it reads the
     * store, which holds the newer one, and does not take the honest reports for a jump ahead.
     */
    @Test
    void shouldAcceptHonestReportsAheadOfALeaderThatMissedRebalancesOnceTheStoreConfirmsThem() {
        KeyPreservingAssignorTest.InMemoryLayoutStore store = new KeyPreservingAssignorTest.InMemoryLayoutStore();
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        GroupSimulator.Member a = group.join("a", ORDERS);
        a.assignor.layoutStore(store);
        group.join("b", ORDERS).assignor.layoutStore(store);
        group.join("c", ORDERS).assignor.layoutStore(store);
        group.rebalanceUntilStable();
        long before = a.assignor.knownLayout().epoch();

        group.leave("a");
        group.topic(ORDERS, 8);
        group.rebalanceUntilStable();
        group.topic(ORDERS, 16);
        group.rebalanceUntilStable();
        assertThat(store.saved.epoch()).isGreaterThan(before + 1);
        group.rejoin(a);
        group.rebalanceUntilStable();

        assertThat(a.assignor.metrics().value("rejected-layout-reports-total")).isZero();
        assertThat(a.assignor.knownLayout().topic(ORDERS).orElseThrow().taskCount()).isEqualTo(4);
        assertThat(a.assignor.knownLayout().epoch()).isEqualTo(store.saved.epoch());
    }

    /** a, b and c read orders (4 partitions, T = 4); a is the leader. */
    private static GroupSimulator stableGroup() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        group.join("a", ORDERS);
        group.join("b", ORDERS);
        group.join("c", ORDERS);
        group.rebalanceUntilStable();
        return group;
    }

    /** Makes the member report this layout (and no owned tasks) from now on. */
    private static void lie(GroupSimulator.Member member, GroupLayout layout) {
        member.tamper = honest -> {
            int generation = MemberReport.decode(honest).orElseThrow().generation();
            ByteBuffer lie = new MemberReport(generation, Map.of(), layout).encode();
            return lie;
        };
    }

    private static void assertKeysStayWithTheirTask(GroupSimulator group) {
        assertThat(group.member("a").assignor.knownLayout().topic(ORDERS).orElseThrow().taskCount()).isEqualTo(4);
        Map<TopicPartition, String> owners = group.owners();
        for (int p = 4; p < 8; p++) {
            assertThat(owners.get(new TopicPartition(ORDERS, p))).as("partition %d with partition %d", p, p % 4)
                    .isEqualTo(owners.get(new TopicPartition(ORDERS, p % 4)));
        }
    }
}
