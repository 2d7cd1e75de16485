package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.KeyPreservingAssignorTest.InMemoryLayoutStore;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.store.KafkaLayoutStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 11, "layouts never forget topics": a topic that no member subscribes to and that the
 * leader's metadata no longer has is forgotten once {@code kscale.assignor.layout.forget.after.ms}
 * has passed since a leader first saw it so, in userData and in the store. Before the fix, a
 * member's userData grew by about 5 bytes per dead topic, without end. The clock is a
 * {@link MockTime}: nothing sleeps.
 */
class TopicForgettingTest {

    private static final String FORGET_AFTER = KeyPreservingAssignorConfig.LAYOUT_FORGET_AFTER_MS_CONFIG;
    private static final long HOUR = Duration.ofHours(1).toMillis();
    private static final long DAY = Duration.ofDays(1).toMillis();
    private static final String ORDERS = "orders";
    private static final String AUDIT = "audit";

    private static Map<String, Object> settings(long forgetAfterMs) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
        settings.put(FORGET_AFTER, forgetAfterMs);
        return settings;
    }

    /**
     * Members a and b read orders and audit; then both drop audit and it is deleted, and one
     * rebalance has seen it gone (grace period: an hour).
     */
    private static GroupSimulator groupThatDroppedAudit() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, settings(HOUR))
                .topic(ORDERS, 4).topic(AUDIT, 2);
        group.join("a", ORDERS, AUDIT);
        group.join("b", ORDERS, AUDIT);
        group.rebalanceUntilStable();

        group.subscribe("a", ORDERS);
        group.subscribe("b", ORDERS);
        group.deleteTopic(AUDIT);
        group.rebalanceUntilStable();
        return group;
    }

    @Test
    void shouldForgetATopicNoMemberSubscribesOnceTheMetadataHasLackedItForTheGracePeriod() {
        GroupSimulator group = groupThatDroppedAudit();
        assertThat(group.member("a").assignor.knownLayout().topic(AUDIT)).as("within the grace period").isPresent();

        advance(group, HOUR - 1);
        group.rebalanceUntilStable();
        assertThat(group.member("a").assignor.knownLayout().topic(AUDIT)).as("1 ms before the end").isPresent();

        advance(group, 1);
        group.rebalanceUntilStable();
        assertThat(group.member("a").assignor.knownLayout().topic(AUDIT)).as("forgotten").isEmpty();
        assertThat(group.member("b").assignor.knownLayout().topic(AUDIT)).isEmpty();
        assertThat(group.member("a").assignor.knownLayout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 4));
        assertThat(group.member("a").assignor.metrics().value("topics-forgotten-total")).isEqualTo(1.0);
    }

    @Test
    void shouldKeepTheTaskCountOfATopicThatReturnsWithinTheGracePeriod() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, settings(HOUR)).topic(ORDERS, 4);
        group.join("a", ORDERS);
        group.rebalanceUntilStable();
        group.topic(ORDERS, 8);
        group.rebalanceUntilStable();

        group.subscribe("a", AUDIT); // a deployment that drops orders, rolled back 59 minutes later
        group.deleteTopic(ORDERS).topic(AUDIT, 2);
        group.rebalanceUntilStable();
        advance(group, HOUR - 60_000);
        group.rebalanceUntilStable();
        group.subscribe("a", ORDERS, AUDIT);
        group.topic(ORDERS, 8);
        group.rebalanceUntilStable();
        advance(group, 2 * HOUR);
        group.rebalanceUntilStable();

        assertThat(group.member("a").assignor.knownLayout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 8));
    }

    @Test
    void shouldCountTheGracePeriodFromTheFirstLeaderThatSawTheTopicGone() {
        GroupSimulator group = groupThatDroppedAudit(); // leader a sees audit gone

        advance(group, HOUR / 2);
        group.leave("a"); // b leads from now on, with what a put in the layout
        group.rebalanceUntilStable();
        advance(group, HOUR / 2);
        group.rebalanceUntilStable();

        assertThat(group.member("b").assignor.knownLayout().topic(AUDIT)).as("an hour after a saw it gone").isEmpty();
    }

    @Test
    void shouldKeepASubscribedTopicTheMetadataLacksAndAnUnsubscribedTopicTheMetadataHas() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, settings(HOUR))
                .topic(ORDERS, 4).topic(AUDIT, 2);
        group.join("a", ORDERS, AUDIT);
        group.rebalanceUntilStable();

        group.deleteTopic(ORDERS); // still subscribed: the application may re-create it
        group.subscribe("a", ORDERS); // audit unsubscribed, still in the metadata
        advance(group, 10 * HOUR);
        group.rebalanceUntilStable();
        advance(group, 10 * HOUR);
        group.rebalanceUntilStable();

        assertThat(group.member("a").assignor.knownLayout().topic(ORDERS)).isPresent();
        assertThat(group.member("a").assignor.knownLayout().topic(AUDIT)).isPresent();
    }

    @Test
    void shouldForgetTheTopicInTheStoreToo() {
        InMemoryLayoutStore store = new InMemoryLayoutStore();
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, settings(HOUR))
                .topic(ORDERS, 4).topic(AUDIT, 2);
        group.join("a", ORDERS, AUDIT).assignor.layoutStore(store);
        group.rebalanceUntilStable();
        assertThat(store.saved.topic(AUDIT)).isPresent();

        group.subscribe("a", ORDERS);
        group.deleteTopic(AUDIT);
        group.rebalanceUntilStable();
        advance(group, HOUR);
        group.rebalanceUntilStable();

        assertThat(store.saved.topic(AUDIT)).isEmpty();
        assertThat(store.saved.topic(ORDERS)).isPresent();
    }

    @Test
    void shouldLeaveAnEmptyLayoutForTheStoreToDeleteWhenTheLastTopicIsForgotten() {
        InMemoryLayoutStore store = new InMemoryLayoutStore();
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, settings(HOUR)).topic(AUDIT, 2);
        group.join("a", AUDIT).assignor.layoutStore(store);
        group.rebalanceUntilStable();

        group.subscribe("a", "audit-v2"); // not created yet
        group.deleteTopic(AUDIT);
        group.rebalanceUntilStable();
        advance(group, HOUR);
        group.rebalanceUntilStable();

        assertThat(store.saved.isEmpty()).as("saved as a tombstone (KafkaLayoutStore.recordValue)").isTrue();
        assertThat(KafkaLayoutStore.recordValue(store.saved)).isNull();
    }

    /**
     * The scenario at scale: a topic a day for 1,000 days, each deleted the day after, 3
     * members, the default grace period. Prints the largest member's userData as it goes (the
     * number in issue 11's closing note); before the fix it grew by ~5 bytes a day.
     */
    @Test
    @Timeout(120)
    void shouldKeepUserDataBoundedOverAThousandRotatingTopics() {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, settings(DAY));
        String[] members = {"a", "b", "c"};
        int[] sizes = new int[1001];
        int mostTopics = 0;
        for (int day = 1; day <= 1000; day++) {
            String today = String.format("clicks.%04d", day);
            group.topic(today, 4);
            if (day == 1) {
                for (String member : members) {
                    group.join(member, today);
                }
            } else {
                for (String member : members) {
                    group.subscribe(member, today);
                }
                group.deleteTopic(String.format("clicks.%04d", day - 1));
            }
            group.rebalanceUntilStable();
            sizes[day] = group.largestUserData();
            mostTopics = Math.max(mostTopics, group.member("a").assignor.knownLayout().topicCount());
            advance(group, DAY);
        }
        int largest = java.util.Arrays.stream(sizes).max().orElseThrow();
        System.out.printf("userData over 1,000 rotating topics (largest member, bytes): day 1 %d, day 10 %d, "
                + "day 120 %d, day 1000 %d, largest %d; most topics in the layout: %d%n", sizes[1], sizes[10],
                sizes[120], sizes[1000], largest, mostTopics);
        assertThat(mostTopics).as("today's topic and yesterday's, missing since this morning").isEqualTo(2);
        // Two topics, a stamp and the owned tasks; what still grows is logarithmic: the epoch and
        // generation varints take a byte more at 128 and 16,384, and names share less at 0999 -> 1000.
        assertThat(largest).as("largest userData over 1,000 days").isLessThanOrEqualTo(sizes[10] + 8);
    }

    private static void advance(GroupSimulator group, long ms) {
        group.time.sleep(ms);
    }
}
