package io.kscale.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.admin.TopicExpansions.GroupReport;
import io.kscale.admin.TopicExpansions.Kind;
import io.kscale.admin.TopicExpansions.Plan;
import io.kscale.admin.TopicExpansions.TopicReport;
import io.kscale.admin.internals.GroupSnapshot;
import io.kscale.admin.internals.StoredTaskCount;
import io.kscale.assignor.KeyPreservingAssignor;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlanTest {

    private static final String TOPIC = "orders";

    @Test
    void shouldAllowAMultipleOfEveryKeyPreservingGroupsTaskCount() {
        Plan plan = Plan.of(topic(4, keyPreserving("classic-g", GroupSnapshot.CLASSIC, 4),
                keyPreserving("server-g", GroupSnapshot.CONSUMER, 2)), 8);

        assertThat(plan.allowed()).isTrue();
        assertThat(plan.reasons()).isEmpty();
        assertThat(plan.nearestAbove()).isEmpty();
    }

    @Test
    void shouldRefuseACountThatBreaksOneGroupAndNameTheNearestSafeCounts() {
        Plan plan = Plan.of(topic(4, keyPreserving("classic-g", GroupSnapshot.CLASSIC, 4),
                keyPreserving("server-g", GroupSnapshot.CONSUMER, 2)), 14);

        assertThat(plan.allowed()).isFalse();
        assertThat(plan.breaking()).containsExactly("classic-g");
        assertThat(plan.reasons()).containsExactly("14 is not a multiple of T=4 of group classic-g: keys would move "
                + "between its tasks");
        assertThat(plan.nearestBelow()).isEqualTo(OptionalInt.of(12));
        assertThat(plan.nearestAbove()).isEqualTo(OptionalInt.of(16));
    }

    @Test
    void shouldRefuseACountNotAboveTodaysEvenWithoutGroups() {
        Plan plan = Plan.of(topic(8), 8);

        assertThat(plan.allowed()).isFalse();
        assertThat(plan.reasons()).singleElement().asString().contains("must be above 8");
        assertThat(plan.nearestAbove()).isEqualTo(OptionalInt.of(9));
    }

    @Test
    void shouldListOtherAssignorsAsMovingKeysWithoutRefusing() {
        GroupReport sticky = GroupReport.of(snapshot("sticky-g", GroupSnapshot.CLASSIC, "cooperative-sticky"), TOPIC,
                Kind.OTHER, null, 4);

        Plan plan = Plan.of(topic(4, sticky), 6);

        assertThat(plan.allowed()).isTrue();
        assertThat(plan.keysMove()).containsExactly("sticky-g");
        assertThat(sticky.onExpansion()).startsWith("keys move on any expansion");
    }

    @Test
    void shouldRefuseEveryCountWhileAKeyPreservingGroupsTaskCountIsUnreadable() {
        GroupReport unreadable = GroupReport.of(snapshot("classic-g", GroupSnapshot.CLASSIC, KeyPreservingAssignor.NAME),
                TOPIC, Kind.KEY_PRESERVING, StoredTaskCount.unreadable("cannot read layout topic x"), 4);

        Plan plan = Plan.of(topic(4, unreadable), 8);

        assertThat(plan.allowed()).isFalse();
        assertThat(plan.breaking()).containsExactly("classic-g");
        assertThat(plan.reasons()).singleElement().asString().contains("unknown: cannot read layout topic x");
        assertThat(plan.nearestAbove()).as("no count is known to be safe").isEmpty();
    }

    @Test
    void shouldListThePartitionsOfEachTask() {
        GroupReport group = GroupReport.of(snapshot("classic-g", GroupSnapshot.CLASSIC, KeyPreservingAssignor.NAME),
                TOPIC, Kind.KEY_PRESERVING, StoredTaskCount.known(2, "test"), 6);

        TopicReport report = topic(6, group);

        assertThat(report.groups().get(0).tasks()).isEqualTo(Map.of(0, List.of(0, 2, 4), 1, List.of(1, 3, 5)));
        assertThat(report.safeStep()).isEqualTo(2);
        assertThat(report.nextSafeCounts(3)).containsExactly(8, 10, 12);
    }

    @Test
    void shouldListKafkaStreamsApplicationsOnEitherProtocolWithWhatAnExpansionDoesToThem() {
        GroupSnapshot classicStreams = snapshot("app-classic", GroupSnapshot.CLASSIC, "stream");
        GroupSnapshot streamsGroup = new GroupSnapshot("app-streams", GroupSnapshot.STREAMS, "", "stable", 1, Map.of(),
                Set.of(TOPIC));
        GroupReport app = GroupReport.of(classicStreams, TOPIC, Kind.STREAMS, null, 4);

        Plan plan = Plan.of(topic(4, app), 8);

        assertThat(classicStreams.isStreams()).isTrue();
        assertThat(streamsGroup.isStreams()).isTrue();
        assertThat(plan.allowed()).as("listed, never blocking").isTrue();
        assertThat(plan.keysMove()).containsExactly("app-classic");
        assertThat(app.onExpansion()).startsWith("Kafka Streams does not support growing a source topic")
                .contains("Existing internal topic", "Topics not co-partitioned");
    }

    @Test
    void shouldTakeAGroupWithoutMembersAsKeyPreservingWhenATaskCountIsStoredForIt() {
        GroupSnapshot stopped = new GroupSnapshot("stopped-g", GroupSnapshot.CONSUMER, "uniform", "empty", 0, Map.of(),
                Set.of(TOPIC));
        GroupSnapshot running = new GroupSnapshot("uniform-g", GroupSnapshot.CONSUMER, "uniform", "stable", 1, Map.of(),
                Set.of(TOPIC));

        assertThat(TopicExpansions.mayPreserveKeys(stopped)).as("its assignor name says nothing").isTrue();
        assertThat(TopicExpansions.kindOf(stopped, StoredTaskCount.known(4, "test"))).isEqualTo(Kind.KEY_PRESERVING);
        assertThat(TopicExpansions.kindOf(stopped, StoredTaskCount.noneStored("none"))).isEqualTo(Kind.UNKNOWN);
        assertThat(TopicExpansions.mayPreserveKeys(running)).isFalse();
        assertThat(TopicExpansions.kindOf(running, null)).isEqualTo(Kind.OTHER);
    }

    @Test
    void shouldTellWhatKeyedProducersDoAndWhatKeepsKeyOrderOnEitherProtocol() {
        String producers = new TopicExpansions.Outcome(Plan.of(topic(4), 8), true, List.of()).producers();

        assertThat(producers).contains("metadata.max.age.ms", "ExpansionBarrier", "on either protocol",
                "kscale.barrier.task.count.topic", "CreateTime", "kscale.barrier.grace.ms", "kscale.barrier.max.hold.ms");
    }

    private static TopicReport topic(int partitions, GroupReport... groups) {
        return new TopicReport(TOPIC, "", partitions, List.of(groups));
    }

    private static GroupReport keyPreserving(String group, String protocol, int taskCount) {
        return GroupReport.of(snapshot(group, protocol, KeyPreservingAssignor.NAME), TOPIC, Kind.KEY_PRESERVING,
                StoredTaskCount.known(taskCount, "test"), 4);
    }

    private static GroupSnapshot snapshot(String group, String protocol, String assignor) {
        return new GroupSnapshot(group, protocol, assignor, "stable", 1, Map.of(), Set.of(TOPIC));
    }
}
