package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.AUDIT;
import static io.kscale.assignor.internals.layout.LayoutFixtures.ORDERS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.PAYMENTS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.layout;
import static io.kscale.assignor.internals.layout.LayoutFixtures.verifyUnits;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.Property;
import io.kscale.assignor.Seeds;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

/**
 * {@link Units}: co-partitioned topics (same T) share units, every partition is in exactly one
 * unit, that of task {@code p % T}. Examples, then the invariants ({@link LayoutFixtures#verifyUnits})
 * over random layouts drawn from the seed of each try ({@link Seeds}, a failure prints it).
 */
class UnitsTest {

    private static final GroupLayout THREE_TOPICS = layout(4, ORDERS, 4, 8, PAYMENTS, 4, 4, AUDIT, 2, 2);

    @Test
    void shouldPutTaskTOfEveryTopicWithTheSameTIntoOneUnit() {
        Units units = Units.of(THREE_TOPICS, List.of(ORDERS, PAYMENTS, AUDIT), CoPartitioning.BY_TASK_COUNT);

        assertThat(units.units()).extracting(Unit::id).containsExactly("2:0", "2:1", "4:0", "4:1", "4:2", "4:3");
        Unit one = units.unitOf(ORDERS, 5).orElseThrow();
        assertThat(one.id()).isEqualTo("4:1");
        assertThat(one.topics()).containsExactly(ORDERS, PAYMENTS);
        assertThat(one.partitions(ORDERS)).containsExactly(1, 5);
        assertThat(one.partitions(PAYMENTS)).containsExactly(1);
        assertThat(one.partitions(AUDIT)).isEmpty();
        assertThat(one.weight()).isEqualTo(3);
        assertThat(units.unitOf(PAYMENTS, 1)).contains(one);
        assertThat(units.totalWeight()).isEqualTo(14);
        verifyUnits(THREE_TOPICS, Set.of(ORDERS, PAYMENTS, AUDIT), units, CoPartitioning.BY_TASK_COUNT);
    }

    @Test
    void shouldKeepUnitIdsWhenPartitionsGrowToAMultipleOfT() {
        Units before = Units.of(THREE_TOPICS, List.of(ORDERS), CoPartitioning.BY_TASK_COUNT);
        GroupLayout grown = LayoutFixtures.apply(THREE_TOPICS, ExpansionPolicy.KEEP, ORDERS, 12).layout();

        Units after = Units.of(grown, List.of(ORDERS), CoPartitioning.BY_TASK_COUNT);

        assertThat(after.units()).extracting(Unit::id).isEqualTo(before.units().stream().map(Unit::id).collect(Collectors.toList()));
        assertThat(after.unitOf(ORDERS, 9).orElseThrow().partitions(ORDERS)).containsExactly(1, 5, 9);
    }

    @Test
    void shouldLeaveOutTasksWithoutPartitionsAndTopicsWithoutLayout() {
        GroupLayout declaredAhead = layout(1, ORDERS, 8, 4);

        Units units = Units.of(declaredAhead, List.of(ORDERS, "unknown"), CoPartitioning.BY_TASK_COUNT);

        assertThat(units.units()).extracting(Unit::id).containsExactly("8:0", "8:1", "8:2", "8:3");
        assertThat(units.unknownTopics()).containsExactly("unknown");
        assertThat(units.unitOf(ORDERS, 4)).isEmpty();
        assertThat(units.unitOf(ORDERS, -1)).isEmpty();
        assertThat(units.unitOf("unknown", 0)).isEmpty();
    }

    @Test
    void shouldGiveEveryTopicUnitsOfItsOwnWithoutCoPartitioning() {
        Units units = Units.of(THREE_TOPICS, List.of(ORDERS, PAYMENTS, AUDIT), CoPartitioning.NONE);

        assertThat(units.units()).extracting(Unit::id).containsExactly("audit:2:0", "audit:2:1",
                "orders:4:0", "orders:4:1", "orders:4:2", "orders:4:3",
                "payments:4:0", "payments:4:1", "payments:4:2", "payments:4:3");
        Unit one = units.unitOf(ORDERS, 5).orElseThrow();
        assertThat(one.topics()).containsExactly(ORDERS);
        assertThat(one.partitions(ORDERS)).containsExactly(1, 5);
        assertThat(units.unitOf(PAYMENTS, 1).orElseThrow().id()).isEqualTo("payments:4:1");
        assertThat(units.unitOfTask(PAYMENTS, 1)).isEqualTo(units.unitOf(PAYMENTS, 1));
        assertThat(units.unitOfTask(PAYMENTS, 4)).isEmpty();
        verifyUnits(THREE_TOPICS, Set.of(ORDERS, PAYMENTS, AUDIT), units, CoPartitioning.NONE);
    }

    @Property
    Stream<DynamicTest> everyPartitionIsInExactlyOneUnitWithTheOtherPartitionsOfItsTask() {
        return Seeds.tries(300, random -> {
            GroupLayout layout = randomLayout(random);
            boolean everyTopic = random.nextBoolean();
            CoPartitioning coPartitioning = Seeds.pick(random, CoPartitioning.class);
            Set<String> topics = new HashSet<>();
            layout.topics().forEach(topic -> {
                if (everyTopic || topic.topic().hashCode() % 2 == 0) {
                    topics.add(topic.topic());
                }
            });
            topics.add("not-in-layout");
            Seeds.sample("%s, topics %s, %s", layout, topics, coPartitioning);

            verifyUnits(layout, topics, Units.of(layout, topics, coPartitioning), coPartitioning);
        });
    }

    private static GroupLayout randomLayout(SplittableRandom random) {
        return GroupLayout.of(Seeds.longBetween(random, 0, 10), Seeds.uniqueListOf(random, 8, r -> TopicLayout.of(
                LayoutFixtures.topicName(r), Seeds.intBetween(r, 1, 12), Seeds.intBetween(r, 1, 40)), TopicLayout::topic));
    }
}
