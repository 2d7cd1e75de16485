package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.AUDIT;
import static io.kscale.assignor.internals.layout.LayoutFixtures.ORDERS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.layout;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.assignor.internals.layout.LayoutChange.Kind;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link GroupLayout#withLiveTopics}: when a layout forgets a topic that is gone (issue 11, "layouts never forget topics"). */
class TopicRetentionTest {

    private static final long HOUR = 3_600_000L;
    private static final long NOON = 1_700_000_000_000L;
    private static final GroupLayout TWO = layout(4, ORDERS, 4, 8, AUDIT, 2, 2);

    @Test
    void shouldStampATopicThatIsGoneAndForgetItOnceTheGracePeriodHasPassed() {
        LayoutUpdate stamped = TWO.withLiveTopics(Set.of(ORDERS), NOON, HOUR);
        LayoutUpdate waiting = stamped.layout().withLiveTopics(Set.of(ORDERS), NOON + HOUR - 1, HOUR);
        LayoutUpdate forgotten = waiting.layout().withLiveTopics(Set.of(ORDERS), NOON + HOUR, HOUR);

        assertThat(stamped.changes()).extracting(LayoutChange::kind).containsExactly(Kind.MISSING);
        assertThat(stamped.layout().topic(AUDIT)).contains(TopicLayout.of(AUDIT, 2, 2).withMissingSince(NOON));
        assertThat(stamped.layout().epoch()).isEqualTo(5);
        assertThat(waiting.layout()).isSameAs(stamped.layout());
        assertThat(waiting.changes()).isEmpty();
        assertThat(forgotten.changes()).extracting(LayoutChange::kind).containsExactly(Kind.FORGOTTEN);
        assertThat(forgotten.changes().get(0).after()).isEmpty();
        assertThat(forgotten.layout()).isEqualTo(layout(6, ORDERS, 4, 8));
    }

    @Test
    void shouldClearTheStampOfATopicThatCameBack() {
        GroupLayout stamped = TWO.withLiveTopics(Set.of(ORDERS), NOON, HOUR).layout();

        LayoutUpdate back = stamped.withLiveTopics(Set.of(ORDERS, AUDIT), NOON + HOUR / 2, HOUR);

        assertThat(back.changes()).extracting(LayoutChange::kind).containsExactly(Kind.RETURNED);
        assertThat(back.layout().topic(AUDIT)).contains(TopicLayout.of(AUDIT, 2, 2));
        assertThat(TWO.withLiveTopics(Set.of(ORDERS, AUDIT), NOON, HOUR).layout()).as("nothing to do").isSameAs(TWO);
    }

    @Test
    void shouldCountAStampFromAClockAheadAsNow() {
        GroupLayout fromTheFuture = GroupLayout.of(4, List.of(TopicLayout.of(AUDIT, 2, 2).withMissingSince(NOON + 10 * HOUR)));

        LayoutUpdate moved = fromTheFuture.withLiveTopics(Set.of(), NOON, HOUR);
        LayoutUpdate forgotten = moved.layout().withLiveTopics(Set.of(), NOON + HOUR, HOUR);

        assertThat(moved.layout().topic(AUDIT)).contains(TopicLayout.of(AUDIT, 2, 2).withMissingSince(NOON));
        assertThat(forgotten.layout().isEmpty()).isTrue();
    }

    @Test
    void shouldForgetAtOnceWithAGracePeriodOfZeroAndRejectANegativeOne() {
        assertThat(TWO.withLiveTopics(Set.of(ORDERS), NOON, 0).layout()).isEqualTo(layout(5, ORDERS, 4, 8));
        assertThatThrownBy(() -> TWO.withLiveTopics(Set.of(), NOON, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }

    @Test
    void shouldForgetAgainAtOnceATopicAStaleReportBroughtBack() {
        GroupLayout stamped = TWO.withLiveTopics(Set.of(ORDERS), NOON, HOUR).layout();
        GroupLayout forgotten = stamped.withLiveTopics(Set.of(ORDERS), NOON + HOUR, HOUR).layout();

        GroupLayout merged = GroupLayout.merge(List.of(forgotten, stamped)).layout(); // a member missed a rebalance
        LayoutUpdate again = merged.withLiveTopics(Set.of(ORDERS), NOON + HOUR + 1, HOUR);

        assertThat(merged.topic(AUDIT)).as("the merge keeps what any report knows").isPresent();
        assertThat(again.layout().topic(AUDIT)).as("its stamp has expired").isEmpty();
    }
}
