package io.kscale.assignor.internals.layout;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The rules of {@link ReportedLayoutCheck}, case by case, as its class comment walks through them. */
class ReportedLayoutCheckTest {

    private static final String ORDERS = "orders";
    /** The leader's own layout: epoch 7, orders T=4 with 8 partitions; the metadata says 8. */
    private static final GroupLayout OWN = GroupLayout.of(7, List.of(TopicLayout.of(ORDERS, 4, 8)));
    private static final Map<String, Integer> COUNTS = Map.of(ORDERS, 8);

    private final ReportedLayoutCheck check = new ReportedLayoutCheck(Map.of(), Optional.empty(), OWN, COUNTS,
            ExpansionPolicy.KEEP);

    @Test
    void shouldAcceptTheTrustedLayoutAndANewerConsistentOne() {
        assertThat(check.rejection(OWN)).isEmpty();
        assertThat(check.rejection(report(8, 8, 8))).as("a REBASE the leader has not seen looks the same").isEmpty();
        assertThat(check.rejection(GroupLayout.empty())).isEmpty();
    }

    @Test
    void shouldRejectAnotherTaskCountAtTheTrustedEpoch() {
        assertThat(check.rejection(report(7, 8, 8))).hasValueSatisfying(reason -> assertThat(reason).contains("T=4"));
    }

    @Test
    void shouldRejectATaskCountAboveThePartitionCount() {
        assertThat(check.rejection(report(8, TopicLayout.MAX_COUNT, 8))).isPresent();
    }

    @Test
    void shouldRejectMorePartitionsThanTheMetadataAndTheTrustedLayoutHave() {
        assertThat(check.rejection(report(8, 4, TopicLayout.MAX_COUNT))).isPresent();
        assertThat(new ReportedLayoutCheck(Map.of(), Optional.empty(), OWN, Map.of(ORDERS, 4), ExpansionPolicy.KEEP)
                .rejection(report(7, 4, 8))).as("the leader's metadata lags; its own layout has 8").isEmpty();
    }

    @Test
    void shouldRejectAnEpochMoreThanOnePastTheNewestTrusted() {
        assertThat(check.rejection(GroupLayout.of(Long.MAX_VALUE, List.of(TopicLayout.of(ORDERS, 4, 8))))).isPresent();
        assertThat(check.rejection(GroupLayout.of(9, List.of(TopicLayout.of(ORDERS, 4, 8))))).isPresent();
    }

    @Test
    void shouldLetTheStoreWinOverTheLeadersOwnLayout() {
        GroupLayout stored = GroupLayout.of(7, List.of(TopicLayout.of(ORDERS, 2, 8)));
        ReportedLayoutCheck withStore = new ReportedLayoutCheck(Map.of(), Optional.of(stored), OWN, COUNTS,
                ExpansionPolicy.KEEP);
        assertThat(withStore.rejection(report(7, 2, 8))).isEmpty();
        assertThat(withStore.rejection(OWN)).isPresent();
    }

    @Test
    void shouldAcceptADeclaredTaskCount() {
        ReportedLayoutCheck declared = new ReportedLayoutCheck(Map.of(ORDERS, 16), Optional.empty(), OWN, COUNTS,
                ExpansionPolicy.KEEP);
        assertThat(declared.rejection(report(7, 16, 8))).isEmpty();
    }

    @Test
    void shouldCheckOnlyConsistencyAtALeaderThatTrustsNothing() {
        ReportedLayoutCheck knowsNothing = new ReportedLayoutCheck(Map.of(), Optional.empty(), GroupLayout.empty(),
                Map.of(ORDERS, 6), ExpansionPolicy.KEEP);
        assertThat(knowsNothing.trustsAny()).isFalse();
        assertThat(knowsNothing.rejection(report(12, 4, 6))).as("KEEP: 4 with 6 partitions").isEmpty();
        assertThat(knowsNothing.rejection(report(Long.MAX_VALUE, 6, 6))).as("an epoch no group reaches").isPresent();
        assertThat(knowsNothing.rejection(report(3, 8, 6))).isPresent();
        ReportedLayoutCheck rebase = new ReportedLayoutCheck(Map.of(), Optional.empty(), GroupLayout.empty(),
                Map.of(ORDERS, 6), ExpansionPolicy.REBASE);
        assertThat(rebase.rejection(report(3, 4, 6))).as("REBASE never keeps a T that does not divide").isPresent();
        assertThat(rebase.rejection(report(3, 3, 6))).isEmpty();
    }

    private static GroupLayout report(long epoch, int taskCount, int partitions) {
        return GroupLayout.of(epoch, List.of(TopicLayout.of(ORDERS, taskCount, partitions)));
    }
}
