package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.NONE_DECLARED;
import static io.kscale.assignor.internals.layout.LayoutFixtures.ORDERS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.counts;
import static io.kscale.assignor.internals.layout.LayoutFixtures.layout;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.LayoutChange.Kind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The layout rules for topic ids ({@link TopicExpansion}) and the merge of reports from members
 * that do not know ids yet ({@link LayoutMerger}); issue 11, "a deleted and re-created topic
 * keeps its old layout".
 */
class LayoutIdentityTest {

    private static final long ID_A = 0x0A;
    private static final long ID_B = 0x0B;
    private static final GroupLayout EIGHT_UNDER_A = GroupLayout.of(3, List.of(TopicLayout.of(ORDERS, 8, 8).withTopicId(ID_A)));

    private static LayoutUpdate apply(GroupLayout layout, int count, long id) {
        return layout.withPartitionCounts(counts(ORDERS, count), Map.of(ORDERS, id), ExpansionPolicy.KEEP, NONE_DECLARED);
    }

    @Test
    void shouldStartAfreshWhenTheMetadataNamesAnotherTopicId() {
        LayoutUpdate update = apply(EIGHT_UNDER_A, 4, ID_B);

        assertThat(update.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 4).withTopicId(ID_B));
        assertThat(update.layout().epoch()).isEqualTo(4);
        LayoutChange change = update.changes().get(0);
        assertThat(change.kind()).isEqualTo(Kind.RECREATED);
        assertThat(change.kind().breaksAffinity()).as("the old keys are gone with the old topic").isFalse();
        assertThat(change.message()).contains("deleted and re-created", "000000000000000b", "was 000000000000000a", "T=4");
    }

    @Test
    void shouldTakeADeclaredTaskCountForARecreatedTopic() {
        LayoutUpdate update = EIGHT_UNDER_A.withPartitionCounts(counts(ORDERS, 12), Map.of(ORDERS, ID_B),
                ExpansionPolicy.KEEP, Map.of(ORDERS, 4));

        assertThat(update.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 12).withTopicId(ID_B));
        assertThat(update.changes()).extracting(LayoutChange::kind).containsExactly(Kind.RECREATED);
    }

    @Test
    void shouldHoldTheLayoutWhenTheSameIdShowsFewerPartitions() {
        LayoutUpdate update = apply(EIGHT_UNDER_A, 4, ID_A);

        assertThat(update.layout()).isSameAs(EIGHT_UNDER_A);
        assertThat(update.changes()).extracting(LayoutChange::kind).containsExactly(Kind.SHRUNK);
    }

    @Test
    void shouldKeepItsIdAcrossExpansionsAndWhenTheMetadataCarriesNone() {
        LayoutUpdate grown = apply(EIGHT_UNDER_A, 16, ID_A);
        LayoutUpdate withoutIds = grown.layout().withPartitionCounts(counts(ORDERS, 24), ExpansionPolicy.KEEP, NONE_DECLARED);

        assertThat(grown.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 8, 16).withTopicId(ID_A));
        assertThat(withoutIds.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 8, 24).withTopicId(ID_A));
    }

    @Test
    void shouldAdoptTheFirstIdTheMetadataNamesAndKeepTheTaskCount() {
        GroupLayout withoutId = layout(2, ORDERS, 4, 8);

        LayoutUpdate same = apply(withoutId, 8, ID_A);
        LayoutUpdate grown = apply(withoutId, 16, ID_A);
        LayoutUpdate fewer = apply(withoutId, 4, ID_A);

        assertThat(same.changes()).extracting(LayoutChange::kind).containsExactly(Kind.IDENTIFIED);
        assertThat(same.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 8).withTopicId(ID_A));
        assertThat(grown.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 16).withTopicId(ID_A));
        assertThat(fewer.layout()).as("stale or re-created, it cannot tell: no id adopted").isSameAs(withoutId);
        assertThat(apply(GroupLayout.empty(), 4, ID_A).layout().topic(ORDERS))
                .contains(TopicLayout.of(ORDERS, 4, 4).withTopicId(ID_A));
    }

    @Test
    void shouldTakeAnOlderReadersReportForTheSameLayout() {
        GroupLayout full = GroupLayout.of(5, List.of(TopicLayout.of(ORDERS, 4, 8).withTopicId(ID_A).withMissingSince(100)));
        GroupLayout asAnOldReaderReportsIt = layout(5, ORDERS, 4, 8);

        LayoutMerge merge = GroupLayout.merge(List.of(asAnOldReaderReportsIt, full, asAnOldReaderReportsIt));

        assertThat(merge.layout()).isSameAs(full);
        assertThat(merge.conflicts()).as("no disagreement: the old reader only dropped what it does not know").isEmpty();
    }

    @Test
    void shouldStillReportDifferentIdsAtOneEpochAsAConflict() {
        GroupLayout underA = GroupLayout.of(5, List.of(TopicLayout.of(ORDERS, 4, 8).withTopicId(ID_A)));
        GroupLayout underB = GroupLayout.of(5, List.of(TopicLayout.of(ORDERS, 4, 8).withTopicId(ID_B)));

        LayoutMerge merge = GroupLayout.merge(List.of(underB, underA));

        assertThat(merge.conflicts()).hasSize(1);
        assertThat(merge.layout()).isEqualTo(GroupLayout.merge(List.of(underA, underB)).layout());
        assertThat(merge.layout().epoch()).isEqualTo(6);
    }
}
