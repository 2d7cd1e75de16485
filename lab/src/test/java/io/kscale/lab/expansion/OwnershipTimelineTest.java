package io.kscale.lab.expansion;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OwnershipTimelineTest {

    private static final int T = 4;

    private static List<TopicPartition> partitions(int... numbers) {
        return java.util.Arrays.stream(numbers).mapToObj(p -> new TopicPartition("orders", p)).collect(
                java.util.stream.Collectors.toList());
    }

    @Test
    void shouldFindATaskWhoseChildWentToAnotherMemberBeforeTheParentWasRevoked() {
        OwnershipTimeline timeline = new OwnershipTimeline();
        timeline.gained("a", partitions(1));
        timeline.gained("b", partitions(5)); // the child, while a still holds the parent
        timeline.lost("a", partitions(1));
        timeline.gained("b", partitions(1));

        assertThat(timeline.splitTasks(T)).singleElement().asString()
                .contains("task 1", "orders-1 on a", "orders-5 on b");
    }

    @Test
    void shouldFindNothingWhenATaskMovesWholeAfterItsOwnerGaveItUp() {
        OwnershipTimeline timeline = new OwnershipTimeline();
        timeline.gained("a", partitions(1, 5, 2));
        timeline.gained("b", partitions(3, 7)); // another task on another member at the same time
        timeline.lost("a", partitions(1, 5));
        timeline.gained("b", partitions(1, 5));

        assertThat(timeline.splitTasks(T)).isEmpty();
    }

    @Test
    void shouldFindOnePartitionHeldByTwoMembersAtOnce() {
        OwnershipTimeline timeline = new OwnershipTimeline();
        timeline.gained("a", partitions(2));
        timeline.gained("b", partitions(2));

        assertThat(timeline.splitTasks(T)).singleElement().asString().contains("for the rest of the run");
    }
}
