package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.AUDIT;
import static io.kscale.assignor.internals.layout.LayoutFixtures.NONE_DECLARED;
import static io.kscale.assignor.internals.layout.LayoutFixtures.ORDERS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.PAYMENTS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.apply;
import static io.kscale.assignor.internals.layout.LayoutFixtures.counts;
import static io.kscale.assignor.internals.layout.LayoutFixtures.layout;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.assignor.internals.layout.LayoutChange.Kind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupLayoutTest {

    private static final GroupLayout FOUR_TASKS = layout(1, ORDERS, 4, 4);

    @Test
    void shouldFixTAtThePartitionCountWhenTheGroupFirstAssignsATopic() {
        LayoutUpdate update = apply(GroupLayout.empty(), ExpansionPolicy.KEEP, ORDERS, 4, PAYMENTS, 4);

        assertThat(update.layout()).isEqualTo(layout(1, ORDERS, 4, 4, PAYMENTS, 4, 4));
        assertThat(update.changes()).extracting(LayoutChange::kind).containsExactly(Kind.ADDED, Kind.ADDED);
        assertThat(update.breaksAffinity()).isFalse();
    }

    @Test
    void shouldFixTAtTheDeclaredCountForAGroupMigratingFromAnotherAssignor() {
        LayoutUpdate update = GroupLayout.empty().withPartitionCounts(counts(ORDERS, 16), ExpansionPolicy.KEEP, Map.of(ORDERS, 4));

        assertThat(update.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 16));
        assertThat(update.changes().get(0).message()).contains("T=4", "declared");
    }

    @Test
    void shouldKeepTWhenPartitionsGrowToMultiplesOfIt() {
        LayoutUpdate toEight = apply(FOUR_TASKS, ExpansionPolicy.KEEP, ORDERS, 8);
        LayoutUpdate toTwelve = apply(toEight.layout(), ExpansionPolicy.KEEP, ORDERS, 12);

        assertThat(toEight.changes()).extracting(LayoutChange::kind).containsExactly(Kind.EXPANDED);
        assertThat(toTwelve.layout()).isEqualTo(layout(3, ORDERS, 4, 12));
        assertThat(toTwelve.layout().topic(ORDERS).orElseThrow().taskOf(9)).isEqualTo(1);
        assertThat(toTwelve.breaksAffinity()).isFalse();
    }

    @Test
    void shouldKeepTAndReportBrokenAffinityWhenTheCountIsNoMultipleUnderKeep() {
        LayoutUpdate update = apply(layout(3, ORDERS, 4, 12), ExpansionPolicy.KEEP, ORDERS, 18);

        LayoutChange change = update.changes().get(0);
        assertThat(change.kind()).isEqualTo(Kind.NOT_A_MULTIPLE);
        assertThat(change.kind().breaksAffinity()).isTrue();
        assertThat(change.before()).contains(TopicLayout.of(ORDERS, 4, 12));
        assertThat(change.after()).contains(TopicLayout.of(ORDERS, 4, 18));
        assertThat(change.observedPartitionCount()).hasValue(18);
        assertThat(change.message()).contains("'orders'", "12 -> 18", "T=4", "KEEP", "multiple of 4 (next: 20)");
        assertThat(update.layout().epoch()).isEqualTo(4);
    }

    @Test
    void shouldRebaseTToTheNewCountWhenTheCountIsNoMultipleUnderRebase() {
        LayoutUpdate update = apply(layout(3, ORDERS, 4, 12), ExpansionPolicy.REBASE, ORDERS, 18);

        LayoutChange change = update.changes().get(0);
        assertThat(change.kind()).isEqualTo(Kind.NOT_A_MULTIPLE);
        assertThat(change.after()).contains(TopicLayout.of(ORDERS, 18, 18));
        assertThat(change.message()).contains("'orders'", "12 -> 18", "T=4", "REBASE", "multiples of 18");
        assertThat(apply(update.layout(), ExpansionPolicy.REBASE, ORDERS, 36).changes())
                .extracting(LayoutChange::kind).containsExactly(Kind.EXPANDED);
    }

    @Test
    void shouldReportRealignedWhenAKeptTopicGrowsToAMultipleOfTAgain() {
        GroupLayout kept = apply(layout(3, ORDERS, 4, 12), ExpansionPolicy.KEEP, ORDERS, 18).layout();

        LayoutUpdate update = apply(kept, ExpansionPolicy.KEEP, ORDERS, 20);

        assertThat(update.changes()).extracting(LayoutChange::kind).containsExactly(Kind.REALIGNED);
        assertThat(update.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 20));
        assertThat(update.breaksAffinity()).isTrue();
    }

    @Test
    void shouldNeverRebaseADeclaredTaskCount() {
        GroupLayout declared = layout(2, ORDERS, 4, 8);

        LayoutUpdate update = declared.withPartitionCounts(counts(ORDERS, 10), ExpansionPolicy.REBASE, Map.of(ORDERS, 4));

        assertThat(update.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 10));
        assertThat(update.changes().get(0).message()).contains("declared for this topic");
    }

    @Test
    void shouldApplyANewlyDeclaredTaskCountToAKnownTopic() {
        LayoutUpdate update = layout(2, ORDERS, 4, 8).withPartitionCounts(counts(ORDERS, 8), ExpansionPolicy.KEEP,
                Map.of(ORDERS, 8));

        assertThat(update.changes()).extracting(LayoutChange::kind).containsExactly(Kind.DECLARED);
        assertThat(update.layout()).isEqualTo(layout(3, ORDERS, 8, 8));
        assertThat(update.changes().get(0).message()).contains("declared task count 8 replaces T=4");
    }

    @Test
    void shouldKeepEveryTaskAndPartitionWhenStaleMetadataShowsFewerPartitions() {
        GroupLayout layout = layout(3, ORDERS, 4, 12);

        LayoutUpdate update = apply(layout, ExpansionPolicy.REBASE, ORDERS, 2);

        assertThat(update.layout()).isSameAs(layout);
        assertThat(update.changes()).extracting(LayoutChange::kind).containsExactly(Kind.SHRUNK);
        assertThat(update.changes().get(0).message()).contains("'orders'", "2 partitions", "12", "stale");
        assertThat(update.breaksAffinity()).isFalse();
    }

    @Test
    void shouldReportOddMetadataAsInvalidInputAndNeverThrow() {
        Map<String, Integer> odd = new HashMap<>();
        odd.put(ORDERS, null);
        odd.put(PAYMENTS, 0);
        odd.put(AUDIT, TopicLayout.MAX_COUNT + 1);
        odd.put("bad name", 4);
        odd.put(null, 4);
        GroupLayout layout = layout(3, ORDERS, 4, 12);

        LayoutUpdate update = layout.withPartitionCounts(odd, ExpansionPolicy.KEEP, NONE_DECLARED);

        assertThat(update.layout()).isSameAs(layout);
        assertThat(update.changes()).hasSize(5).allSatisfy(change -> assertThat(change.kind()).isEqualTo(Kind.INVALID_INPUT));
        assertThat(update.changes()).extracting(LayoutChange::topic).containsExactly("(null)", AUDIT, "bad name", ORDERS, PAYMENTS);
    }

    @Test
    void shouldKeepTopicsAbsentFromTheMetadataAndReportNothingForUnchangedOnes() {
        GroupLayout layout = layout(3, ORDERS, 4, 12, PAYMENTS, 4, 4);

        LayoutUpdate update = apply(layout, ExpansionPolicy.KEEP, ORDERS, 12);

        assertThat(update.layout()).isSameAs(layout);
        assertThat(update.changes()).isEmpty();
    }

    @Test
    void shouldRaiseTheEpochByOneForAnyNumberOfChangesInOneUpdate() {
        LayoutUpdate update = apply(layout(7, ORDERS, 4, 4), ExpansionPolicy.KEEP, ORDERS, 8, PAYMENTS, 3, AUDIT, 2);

        assertThat(update.layout().epoch()).isEqualTo(8);
        assertThat(update.changes()).extracting(LayoutChange::topic).containsExactly(AUDIT, ORDERS, PAYMENTS);
    }

    @Test
    void shouldForgetRemovedTopicsInANewEpoch() {
        GroupLayout layout = layout(3, ORDERS, 4, 12, PAYMENTS, 4, 4);

        assertThat(layout.withoutTopics(List.of(PAYMENTS, AUDIT))).isEqualTo(layout(4, ORDERS, 4, 12));
        assertThat(layout.withoutTopics(List.of(AUDIT))).isSameAs(layout);
    }

    @Test
    void shouldStayAtTheLargestEpochRatherThanOverflow() {
        GroupLayout last = layout(Long.MAX_VALUE, ORDERS, 4, 4);

        assertThat(apply(last, ExpansionPolicy.KEEP, ORDERS, 8).layout().epoch()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldRejectAnInvalidDeclaredTaskCountNamingTheTopic() {
        assertThatThrownBy(() -> GroupLayout.empty().withPartitionCounts(counts(ORDERS, 4), ExpansionPolicy.KEEP,
                Map.of(ORDERS, 0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'orders' is 0");
    }

    @Test
    void shouldRejectDuplicateTopicsAndNegativeEpochs() {
        assertThatThrownBy(() -> layout(1, ORDERS, 4, 4, ORDERS, 2, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'orders' appears twice");
        assertThatThrownBy(() -> layout(-1, ORDERS, 4, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    }
}
