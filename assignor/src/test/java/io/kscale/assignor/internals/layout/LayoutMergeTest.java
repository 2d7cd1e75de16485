package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.AUDIT;
import static io.kscale.assignor.internals.layout.LayoutFixtures.ORDERS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.PAYMENTS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.layout;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.Property;
import io.kscale.assignor.Seeds;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupLayout#merge}: what the leader makes of the layouts members report after restarts,
 * joins and missed rebalances. Examples, then properties over random layouts drawn from the seed
 * of each try ({@link Seeds}, a failure prints it).
 */
class LayoutMergeTest {

    /** Up to 6 reports of few topics and epochs, so that they often overlap and disagree at one epoch. */
    private static List<GroupLayout> reports(SplittableRandom random) {
        List<GroupLayout> reports = Seeds.listOf(random, 0, 6, r -> GroupLayout.of(Seeds.longBetween(r, 0, 4),
                Seeds.uniqueListOf(r, 3, t -> TopicLayout.of(Seeds.pick(t, ORDERS, PAYMENTS, AUDIT), Seeds.intBetween(t, 1, 8),
                        Seeds.intBetween(t, 1, 16)), TopicLayout::topic)));
        Seeds.sample("reports %s", reports);
        return reports;
    }

    @Test
    void shouldTakeTheLayoutOfTheHighestEpochWhenMembersLagBehind() {
        GroupLayout newest = layout(5, ORDERS, 4, 8);
        GroupLayout older = layout(4, ORDERS, 4, 4);

        LayoutMerge merge = GroupLayout.merge(List.of(older, GroupLayout.empty(), newest, newest));

        assertThat(merge.layout()).isSameAs(newest).isEqualTo(layout(5, ORDERS, 4, 8));
        assertThat(merge.conflicts()).isEmpty();
    }

    @Test
    void shouldKeepATopicOnlyAnOlderLayoutKnowsInANewEpoch() {
        LayoutMerge merge = GroupLayout.merge(List.of(layout(5, ORDERS, 4, 8), layout(3, ORDERS, 4, 4, AUDIT, 2, 2)));

        assertThat(merge.layout()).isEqualTo(layout(6, AUDIT, 2, 2, ORDERS, 4, 8));
    }

    @Test
    void shouldChooseTheSmallestTAndReportWhenLayoutsOfOneEpochDisagreeOnT() {
        LayoutMerge merge = GroupLayout.merge(List.of(layout(5, ORDERS, 8, 8, PAYMENTS, 2, 2), layout(5, ORDERS, 4, 8)));

        assertThat(merge.layout()).isEqualTo(layout(6, ORDERS, 4, 8, PAYMENTS, 2, 2));
        assertThat(merge.conflicts()).hasSize(1);
        MergeConflict conflict = merge.conflicts().get(0);
        assertThat(conflict.topic()).isEqualTo(ORDERS);
        assertThat(conflict.epoch()).isEqualTo(5);
        assertThat(conflict.chosen()).isEqualTo(TopicLayout.of(ORDERS, 4, 8));
        assertThat(conflict.rejected()).containsExactly(TopicLayout.of(ORDERS, 8, 8));
        assertThat(conflict.taskCountsDiffer()).isTrue();
        assertThat(conflict.message()).contains("'orders'", "epoch 5", "kept T=4", "T=8");
    }

    @Test
    void shouldPreferTheMostPartitionsWhenLayoutsOfOneEpochDisagreeOnTheCount() {
        LayoutMerge merge = GroupLayout.merge(List.of(layout(5, ORDERS, 4, 8), layout(5, ORDERS, 4, 16)));

        assertThat(merge.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 16));
        assertThat(merge.conflicts()).singleElement().satisfies(conflict -> assertThat(conflict.taskCountsDiffer()).isFalse());
    }

    @Test
    void shouldGiveTheEmptyLayoutWhenNothingWasReported() {
        assertThat(GroupLayout.merge(List.of()).layout()).isEqualTo(GroupLayout.empty());
        assertThat(GroupLayout.merge(List.of(GroupLayout.empty(), GroupLayout.empty())).layout()).isEqualTo(GroupLayout.empty());
    }

    @Property
    Stream<DynamicTest> shouldNotDependOnTheOrderOfTheReports() {
        return Seeds.tries(300, random -> {
            List<GroupLayout> reported = reports(random);
            List<GroupLayout> shuffled = new ArrayList<>(reported);
            Collections.shuffle(shuffled, new Random(random.nextLong()));

            assertThat(GroupLayout.merge(shuffled)).as("merge of %s", shuffled).isEqualTo(GroupLayout.merge(reported));
        });
    }

    @Property
    Stream<DynamicTest> shouldKeepEveryTopicAndNeverGoBackInEpoch() {
        return Seeds.tries(300, random -> keepsEveryTopic(reports(random)));
    }

    private static void keepsEveryTopic(List<GroupLayout> reported) {
        GroupLayout merged = GroupLayout.merge(reported).layout();

        Set<String> topics = reported.stream().flatMap(layout -> layout.topics().stream()).map(TopicLayout::topic)
                .collect(Collectors.toSet());
        assertThat(merged.topics()).extracting(TopicLayout::topic).containsExactlyInAnyOrderElementsOf(topics);
        for (GroupLayout layout : reported) {
            assertThat(merged.epoch()).isGreaterThanOrEqualTo(layout.epoch());
            for (TopicLayout topic : layout.topics()) {
                // A topic's entry comes from the highest epoch that knows it, so it never comes from a lower one.
                long from = reported.stream().filter(other -> other.topic(topic.topic()).isPresent())
                        .mapToLong(GroupLayout::epoch).max().orElseThrow();
                assertThat(reported).anySatisfy(other -> {
                    assertThat(other.epoch()).isEqualTo(from);
                    assertThat(other.topic(topic.topic())).isEqualTo(merged.topic(topic.topic()));
                });
            }
        }
    }

    /** Merging again what everyone now reports changes nothing: the group settles in one round. */
    @Property
    Stream<DynamicTest> shouldSettleWhenTheMergedLayoutIsReportedBack() {
        return Seeds.tries(300, random -> settles(reports(random)));
    }

    private static void settles(List<GroupLayout> reported) {
        GroupLayout merged = GroupLayout.merge(reported).layout();
        List<GroupLayout> next = new ArrayList<>(reported);
        next.add(merged);

        LayoutMerge again = GroupLayout.merge(next);

        assertThat(again.layout()).isEqualTo(merged);
        assertThat(GroupLayout.merge(List.of(merged, merged)).layout()).isEqualTo(merged);
    }

    /** One epoch names one layout: a result that differs from a report at its epoch has a higher one. */
    @Property
    Stream<DynamicTest> shouldNeverNameTwoDifferentLayoutsWithOneEpoch() {
        return Seeds.tries(300, random -> neverNamesTwoLayoutsWithOneEpoch(reports(random)));
    }

    private static void neverNamesTwoLayoutsWithOneEpoch(List<GroupLayout> reported) {
        GroupLayout merged = GroupLayout.merge(reported).layout();

        assertThat(reported).allSatisfy(layout -> {
            if (layout.epoch() == merged.epoch() && merged.epoch() != Long.MAX_VALUE) {
                assertThat(layout).isEqualTo(merged);
            }
        });
    }
}
