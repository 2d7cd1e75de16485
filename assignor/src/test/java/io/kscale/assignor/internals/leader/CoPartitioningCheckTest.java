package io.kscale.assignor.internals.leader;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.ExpansionPolicy;
import io.kscale.assignor.internals.layout.GroupLayout;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The co-partitioning rule and its warn-once memory (issue 17, finding 4). */
class CoPartitioningCheckTest {

    /** orders: T=4 with 8 partitions (expanded); payments: T=8 with 8; audit: T=6 with 6; refunds: T=2 with 8. */
    private static final GroupLayout LAYOUT = GroupLayout.empty()
            .withPartitionCounts(Map.of("orders", 8, "payments", 8, "audit", 6, "refunds", 8), ExpansionPolicy.KEEP,
                    Map.of("orders", 4, "refunds", 2))
            .layout();

    @Test
    void shouldFlagOnlyTheTopicWithTheLargerTaskCountWhenTheSmallerDividesItsCount() {
        List<CoPartitioningCheck.Mismatch> mismatches = CoPartitioningCheck.mismatches(List.of("orders", "payments", "audit"), LAYOUT);

        assertThat(mismatches).extracting(mismatch -> mismatch.topic).containsExactly("payments");
        assertThat(mismatches.get(0).message()).contains("kscale.assignor.task.counts=payments:4").contains("'orders' (T=4)");
    }

    @Test
    void shouldOfferTheLargestSmallerTaskCountAndNameTheOthers() {
        List<CoPartitioningCheck.Mismatch> mismatches = CoPartitioningCheck.mismatches(List.of("orders", "payments", "refunds"), LAYOUT);

        assertThat(mismatches).extracting(mismatch -> mismatch.topic).containsExactly("orders", "payments");
        assertThat(mismatches.get(0).message()).contains("orders:2");
        assertThat(mismatches.get(1).message()).contains("payments:4").contains("{2=[refunds]}");
    }

    @Test
    void shouldWarnOncePerMismatchAndAgainOnlyAfterItWentAway() {
        CoPartitioningCheck check = new CoPartitioningCheck();
        List<List<String>> mixed = List.of(List.of("orders", "payments"));

        assertThat(check.check(mixed, LAYOUT).warnings).isEqualTo(1);
        assertThat(check.check(mixed, LAYOUT).warnings).isZero();
        assertThat(check.check(mixed, LAYOUT).mismatches).isEqualTo(1);
        assertThat(check.check(List.of(List.of("orders"), List.of("payments")), LAYOUT).mismatches)
                .as("other subscribers: not co-partitioned by design").isZero();
        assertThat(check.check(mixed, LAYOUT).warnings).as("back again").isEqualTo(1);
    }
}
