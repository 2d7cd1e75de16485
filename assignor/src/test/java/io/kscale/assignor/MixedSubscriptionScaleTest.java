package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Balance across subscription groups at a size where a quadratic slip in members x groups would
 * show (issue 17): 1,000 members, each reading 5 to 15 of 200 topics, so nearly every topic has a
 * subscriber set of its own and is placed as a group of its own. The timeout is a generous guard,
 * not a measurement (that belongs in JMH).
 */
class MixedSubscriptionScaleTest {

    private static final long SEED = 20261202L;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldSettleAThousandMembersOfTwoHundredSubscriptionGroupsAndThenMoveNothing() {
        Random random = new Random(SEED);
        Map<String, Object> config = new HashMap<>();
        config.put(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
        config.put(KeyPreservingAssignorConfig.CO_PARTITIONING_CONFIG, "none");
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, config);
        List<String> topics = new ArrayList<>();
        for (int t = 0; t < 200; t++) {
            topics.add(String.format("topic-%03d", t));
            group.topic(topics.get(t), 1 + random.nextInt(64));
        }
        for (int m = 0; m < 1_000; m++) {
            List<String> subscribed = new ArrayList<>(topics);
            java.util.Collections.shuffle(subscribed, random);
            group.join(String.format("member-%04d", m), subscribed.subList(0, 5 + random.nextInt(11)).toArray(new String[0]));
        }
        group.rebalanceUntilStable();
        Map<TopicPartition, String> settled = group.owners();
        group.rebalance();
        assertThat(group.owners()).as("a rebalance with nothing changed moves nothing").isEqualTo(settled);
        int max = group.load().values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        int min = group.load().values().stream().mapToInt(Integer::intValue).min().orElseThrow();
        assertThat(max - min).as("spread of partitions per member").isLessThanOrEqualTo(1);
    }
}
