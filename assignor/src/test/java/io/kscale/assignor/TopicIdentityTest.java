package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.leader.TopicIds;
import io.kscale.assignor.internals.wire.MemberReport;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 11, "a deleted and re-created topic keeps its old layout": a layout belongs to a topic
 * id. A new id under a known name is a new topic (fresh T, no old owners); the same id with fewer
 * partitions is stale metadata (the layout holds); and whatever the metadata says, no partition
 * it lacks is ever assigned. Before the fix, layouts were keyed by name only: {@code events}
 * re-created with 4 partitions was still assigned {@code events-4..7}.
 */
class TopicIdentityTest {

    private static final Map<String, Object> NO_STORE = Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
    private static final String EVENTS = "events";
    private static final String CLICKS = "clicks";

    @ParameterizedTest
    @EnumSource(RebalanceProtocol.class)
    void shouldGiveATopicRecreatedWithFewerPartitionsAFreshLayoutAndOnlyItsPartitions(RebalanceProtocol protocol) {
        GroupSimulator group = new GroupSimulator(protocol, NO_STORE).withTopicIds().topic(EVENTS, 8);
        group.join("a", EVENTS);
        group.join("b", EVENTS);
        group.rebalanceUntilStable();

        group.recreateTopic(EVENTS, 4);
        group.rebalanceUntilStable();

        assertThat(group.owners().keySet()).as("only the partitions the re-created topic has")
                .containsExactlyInAnyOrderElementsOf(partitions(EVENTS, 4));
        TopicLayout layout = group.member("a").assignor.knownLayout().topic(EVENTS).orElseThrow();
        assertThat(layout.taskCount()).as("fresh T").isEqualTo(4);
        assertThat(layout.partitionCount()).isEqualTo(4);
        assertThat(layout.topicId()).hasValue(TopicIds.fingerprint(group.topicId(EVENTS)));
        assertThat(group.member("a").assignor.metrics().value("topics-recreated-total")).isEqualTo(1.0);
    }

    @Test
    void shouldGiveATopicRecreatedWithMorePartitionsItsNewCountAsTaskCount() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).withTopicIds().topic(CLICKS, 4);
        for (int m = 0; m < 6; m++) {
            group.join("member-" + m, CLICKS);
        }
        group.rebalanceUntilStable();

        group.recreateTopic(CLICKS, 6);
        group.rebalanceUntilStable();

        assertThat(group.member("member-0").assignor.knownLayout().topic(CLICKS).orElseThrow().taskCount()).isEqualTo(6);
        assertThat(group.load().values()).as("6 members, one partition each").containsOnly(1);
        assertThat(group.member("member-0").assignor.metrics().value("affinity-breaks-total"))
                .as("a new topic breaks no affinity: its keys are new").isZero();
    }

    @Test
    void shouldHoldTheLayoutButAssignOnlyListedPartitionsWhenTheSameTopicIdShowsFewerPartitions() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).withTopicIds().topic(EVENTS, 4);
        group.join("a", EVENTS);
        group.join("b", EVENTS);
        group.rebalanceUntilStable();
        group.topic(EVENTS, 8);
        group.rebalanceUntilStable();
        Map<TopicPartition, String> before = group.owners();

        group.topic(EVENTS, 4); // a leader with stale metadata: same id, fewer partitions
        group.rebalanceUntilStable();

        assertThat(group.owners().keySet()).containsExactlyInAnyOrderElementsOf(partitions(EVENTS, 4));
        assertThat(group.member("a").assignor.knownLayout().topic(EVENTS).orElseThrow())
                .as("the layout holds T and the count seen").satisfies(layout -> {
                    assertThat(layout.taskCount()).isEqualTo(4);
                    assertThat(layout.partitionCount()).isEqualTo(8);
                });

        group.topic(EVENTS, 8); // the metadata catches up
        group.rebalanceUntilStable();
        assertThat(group.owners()).as("every key back with its member").isEqualTo(before);
    }

    @ParameterizedTest
    @EnumSource(RebalanceProtocol.class)
    void shouldKeepTheLayoutWithoutTopicIdsButNeverAssignAPartitionTheMetadataLacks(RebalanceProtocol protocol) {
        GroupSimulator group = new GroupSimulator(protocol, NO_STORE).topic(EVENTS, 8);
        group.join("a", EVENTS);
        group.join("b", EVENTS);
        group.rebalanceUntilStable();

        group.recreateTopic(EVENTS, 4); // no ids: indistinguishable from stale metadata
        group.rebalanceUntilStable();

        assertThat(group.owners().keySet()).containsExactlyInAnyOrderElementsOf(partitions(EVENTS, 4));
        assertThat(group.member("a").assignor.knownLayout().topic(EVENTS)).as("today's behaviour: T and count held")
                .contains(TopicLayout.of(EVENTS, 8, 8));
    }

    @Test
    void shouldAdoptTheTopicIdOfALayoutFromBeforeTopicIdsWithoutChangingIt() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(EVENTS, 4);
        group.join("a", EVENTS);
        group.join("b", EVENTS);
        group.rebalanceUntilStable();
        Map<TopicPartition, String> before = group.owners();

        group.withTopicIds().topic(EVENTS, 8); // the brokers (or this kscale) start to carry ids
        group.rebalanceUntilStable();

        TopicLayout layout = group.member("a").assignor.knownLayout().topic(EVENTS).orElseThrow();
        assertThat(layout.taskCount()).as("T kept: the id is adopted, not taken as a re-creation").isEqualTo(4);
        assertThat(layout.topicId()).hasValue(TopicIds.fingerprint(group.topicId(EVENTS)));
        for (int p = 0; p < 8; p++) {
            assertThat(group.owners().get(new TopicPartition(EVENTS, p))).isEqualTo(before.get(new TopicPartition(EVENTS, p % 4)));
        }
    }

    /** Ids and stamps come from other members' userData: untrusted, whatever they say, assign() goes on. */
    @Test
    void shouldAssignWhateverIdsAndStampsMembersReport() {
        KeyPreservingAssignor leader = new KeyPreservingAssignor();
        leader.configure(Map.of("group.id", "g", "client.id", "identity-untrusted",
                KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false,
                KeyPreservingAssignorConfig.LAYOUT_FORGET_AFTER_MS_CONFIG, Long.MAX_VALUE));
        GroupSimulator cluster = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).withTopicIds().topic(EVENTS, 4);
        Map<String, org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription> subscriptions = new java.util.TreeMap<>();
        long[][] idsAndStamps = {{1, Long.MAX_VALUE}, {-1, 0}, {Long.MIN_VALUE, -1}, {TopicIds.fingerprint(cluster.topicId(EVENTS)), 5}};
        for (int m = 0; m < idsAndStamps.length; m++) {
            TopicLayout topic = TopicLayout.of(EVENTS, 3, 1 + m * 1000).withTopicId(idsAndStamps[m][0]);
            if (idsAndStamps[m][1] >= 0) {
                topic = topic.withMissingSince(idsAndStamps[m][1]);
            }
            io.kscale.assignor.internals.layout.GroupLayout reported = io.kscale.assignor.internals.layout.GroupLayout.of(m,
                    java.util.List.of(topic, TopicLayout.of("gone", 2, 2).withMissingSince(Long.MAX_VALUE)));
            subscriptions.put("m" + m, new org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription(
                    java.util.List.of(EVENTS), new MemberReport(m, Map.of(EVENTS, java.util.List.of(0, 1, 2)), reported).encode()));
        }

        Map<String, org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment> assignments = leader.assign(
                cluster.cluster(), new org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription(subscriptions))
                .groupAssignment();

        assertThat(assignments.values().stream().flatMap(assignment -> assignment.partitions().stream()))
                .containsExactlyInAnyOrderElementsOf(partitions(EVENTS, 4));
    }

    private static Set<TopicPartition> partitions(String topic, int count) {
        return IntStream.range(0, count).mapToObj(p -> new TopicPartition(topic, p))
                .collect(Collectors.toCollection(() -> new TreeSet<>(java.util.Comparator.comparing(TopicPartition::toString))));
    }
}
