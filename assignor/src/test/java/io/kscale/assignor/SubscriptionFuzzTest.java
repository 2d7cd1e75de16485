package io.kscale.assignor;

import static io.kscale.assignor.SubscriptionChecks.allocatedBytes;
import static io.kscale.assignor.SubscriptionChecks.checkComplete;
import static io.kscale.assignor.SubscriptionChecks.checkValid;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.MessageFrame;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.wire.AssignmentInfo;
import io.kscale.assignor.internals.wire.MemberReport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 17, finding 2: the leader against whole random {@link Subscription}s, not only random
 * userData: topic lists (known, not yet created, null, illegal, repeated), owned partitions (valid,
 * claimed twice, of unknown topics, negative, past the count, 2^30, {@code Integer.MAX_VALUE}),
 * generations (none, below -1, huge), racks and userData (none, random bytes, another message,
 * kscale reports of random layouts, owned tasks and lags, old and corrupted ones). Whatever the
 * members sent, {@code assign()} returns without the fallback, within a bounded allocation, an
 * assignment Kafka's consumer accepts ({@link SubscriptionChecks#checkValid}), complete up to
 * partitions withheld while their owner revokes them; every member then takes its assignment. The
 * same subscriptions then go through the fallback (a placement made to throw), which must be
 * valid and complete in the same sense.
 *
 * <p>Seeded by {@link Seeds}, as every property of this module: each case is drawn from its own
 * seed, shown in its name; a failed try names its seed and the command that replays it first
 * ({@code -Dkscale.seed=<seed>}); {@code -Dkscale.seed=random} or {@code -Pfresh-seeds} draws
 * fresh ones. Without either the seeds are fixed, so a red build is a change's doing.
 */
class SubscriptionFuzzTest {

    private static final int TRIES = 400;
    private static final long ALLOCATION_BOUND = 64L << 20;
    private static final int[] HOSTILE_PARTITIONS = {-1, Integer.MIN_VALUE, 1 << 30, Integer.MAX_VALUE, (1 << 30) - 1, 1 << 20};

    /** Distinct client ids for the leaders of the cases: their metrics register per client id. */
    private static final AtomicInteger CASES = new AtomicInteger();

    @Property
    @Timeout(300)
    Stream<DynamicTest> assignNeverFailsForAnySubscription() {
        return Seeds.tries(TRIES, SubscriptionFuzzTest::runCase);
    }

    private static void runCase(SplittableRandom random) {
        GroupSimulator cluster = new GroupSimulator(RebalanceProtocol.COOPERATIVE, Map.of());
        if (random.nextInt(3) == 0) {
            cluster.withTopicIds();
        }
        int topicCount = 1 + random.nextInt(4);
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < topicCount; i++) {
            topics.add("t" + i);
            cluster.topic("t" + i, 1 + random.nextInt(12));
        }
        Cluster metadata = cluster.cluster();
        Map<String, Subscription> subscriptions = new TreeMap<>();
        int members = 1 + random.nextInt(8);
        boolean eager = random.nextInt(4) == 0;
        for (int m = 0; m < members; m++) {
            subscriptions.put("member-" + random.nextInt(1000) + "-" + m, subscription(random, topics, metadata, eager));
        }
        Seeds.sample("%d topics, %d members%s: %s", topicCount, members, eager ? " (no owned partitions)" : "",
                subscriptions);
        KeyPreservingAssignor leader = new KeyPreservingAssignor();
        leader.configure(Map.of("group.id", "fuzz", "client.id", "subscription-fuzz-" + CASES.incrementAndGet(),
                KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false));
        try {
            long before = allocatedBytes();
            Map<String, Assignment> assignments = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();
            long allocated = allocatedBytes() - before;

            checkValid(metadata, subscriptions, assignments);
            checkComplete(metadata, subscriptions, assignments);
            assertThat(allocated).as("bytes allocated by assign()").isLessThan(ALLOCATION_BOUND);
            assertThat(leader.metrics().value("assignment-fallbacks-total")).as("fallbacks").isZero();
            assignments.forEach((member, assignment) -> {
                KeyPreservingAssignor receiver = new KeyPreservingAssignor();
                receiver.onAssignment(assignment, new ConsumerGroupMetadata("fuzz", 7, member, Optional.empty()));
                assertThat(AssignmentInfo.decode(assignment.userData())).as("layout sent to %s", member).isPresent();
            });

            // The same group through the fallback, as if the placement had failed.
            leader.placementFault(new IllegalStateException("injected by SubscriptionFuzzTest"));
            Map<String, Assignment> fallback = leader.assign(metadata, new GroupSubscription(subscriptions)).groupAssignment();
            checkValid(metadata, subscriptions, fallback);
            checkComplete(metadata, subscriptions, fallback);
            assertThat(leader.metrics().value("assignment-fallbacks-total")).as("fallbacks").isEqualTo(1.0);
        } finally {
            leader.close();
        }
    }

    private static Subscription subscription(SplittableRandom random, List<String> known, Cluster metadata, boolean eager) {
        List<String> topics = new ArrayList<>();
        for (String topic : known) {
            if (random.nextInt(4) != 0) {
                topics.add(topic);
            }
        }
        switch (random.nextInt(8)) {
            case 0: topics.add("not-created-yet"); break;
            case 1: topics.add(null); break;
            case 2: topics.add(""); break;
            case 3: topics.add("x".repeat(300)); break;
            case 4: if (!topics.isEmpty()) {
                topics.add(topics.get(0));
            }
                break;
            default: break;
        }
        List<TopicPartition> owned = eager ? List.of() : owned(random, known, topics, metadata);
        int generation = pick(random, -1, -1, -2, Integer.MIN_VALUE, Integer.MAX_VALUE, random.nextInt(10));
        Optional<String> rack = Optional.ofNullable(pickString(random, null, null, "r0", "r1", "", "\u0000\uFFFF"));
        Subscription subscription = new Subscription(topics, userData(random, known, metadata), owned, generation, rack);
        if (random.nextInt(5) == 0) {
            subscription.setGroupInstanceId(Optional.of("instance-" + random.nextInt(3)));
        }
        return subscription;
    }

    private static List<TopicPartition> owned(SplittableRandom random, List<String> known, List<String> subscribed,
                                              Cluster metadata) {
        List<TopicPartition> owned = new ArrayList<>();
        int entries = random.nextInt(10);
        for (int i = 0; i < entries; i++) {
            int kind = random.nextInt(10);
            String topic = kind < 6 && !subscribed.isEmpty() ? subscribed.get(random.nextInt(subscribed.size()))
                    : kind < 8 ? known.get(random.nextInt(known.size())) : "gone-" + random.nextInt(3);
            Integer count = topic == null ? null : metadata.partitionCountForTopic(topic);
            int partition = count != null && random.nextInt(4) != 0 ? random.nextInt(count)
                    : random.nextBoolean() ? HOSTILE_PARTITIONS[random.nextInt(HOSTILE_PARTITIONS.length)] : random.nextInt();
            if (topic != null) {
                owned.add(new TopicPartition(topic, partition));
            }
        }
        return owned;
    }

    private static ByteBuffer userData(SplittableRandom random, List<String> known, Cluster metadata) {
        switch (random.nextInt(8)) {
            case 0:
                return null;
            case 1:
                return ByteBuffer.allocate(0);
            case 2: {
                byte[] bytes = new byte[random.nextInt(80)];
                random.nextBytes(bytes);
                if (bytes.length > 0 && random.nextBoolean()) {
                    bytes[0] = MemberReport.MAGIC;
                }
                return ByteBuffer.wrap(bytes);
            }
            case 3: {
                GroupLayout layout = layout(random, known, metadata);
                return AssignmentInfo.encode(io.kscale.assignor.internals.layout.LayoutCodec.encode(layout), layout,
                        OptionalLong.of(random.nextLong()), List.of(), List.of(), AssignmentInfo.VERSION);
            }
            default: {
                ByteBuffer report = report(random, known, metadata);
                if (random.nextInt(4) == 0) {
                    report = MemberReport.decode(report).orElseThrow().encode(MessageFrame.VERSION_0);
                }
                if (random.nextInt(5) == 0) {
                    byte[] bytes = new byte[report.remaining()];
                    report.get(bytes);
                    bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
                    report = ByteBuffer.wrap(bytes);
                }
                return report;
            }
        }
    }

    /** A well-formed report of a random layout (T and counts that may disagree with the metadata), owned tasks and lags. */
    private static ByteBuffer report(SplittableRandom random, List<String> known, Cluster metadata) {
        GroupLayout layout = layout(random, known, metadata);
        Map<String, List<Integer>> ownedTasks = new HashMap<>();
        Map<String, MemberReport.TopicLags> lags = new HashMap<>();
        for (TopicLayout topic : layout.topics()) {
            List<Integer> tasks = new ArrayList<>();
            Map<Integer, Long> topicLags = new HashMap<>();
            for (int i = random.nextInt(4); i > 0; i--) {
                int task = random.nextInt(topic.taskCount());
                tasks.add(task);
                topicLags.put(task, pickLong(random, 0L, Long.MAX_VALUE, (long) random.nextInt(100_000)));
            }
            if (!tasks.isEmpty()) {
                ownedTasks.put(topic.topic(), tasks);
                lags.put(topic.topic(), new MemberReport.TopicLags(topic.taskCount(), topicLags));
            }
        }
        if (random.nextInt(4) == 0) {
            lags.put("restored-" + random.nextInt(2), new MemberReport.TopicLags(1 + random.nextInt(8),
                    Map.of(0, (long) random.nextInt(1000))));
        }
        return new MemberReport(pick(random, -1, 0, 5, Integer.MAX_VALUE - 1), ownedTasks, layout, random.nextBoolean(), lags).encode();
    }

    private static GroupLayout layout(SplittableRandom random, List<String> known, Cluster metadata) {
        List<TopicLayout> topics = new ArrayList<>();
        for (String topic : known) {
            if (random.nextInt(3) != 0) {
                int count = metadata.partitionCountForTopic(topic);
                int taskCount = pick(random, count, count, 1 + random.nextInt(count), 1 + random.nextInt(64), TopicLayout.MAX_COUNT);
                int partitions = pick(random, count, Math.max(count, taskCount), TopicLayout.MAX_COUNT, 1 + random.nextInt(count));
                topics.add(TopicLayout.of(topic, taskCount, partitions));
            }
        }
        if (random.nextInt(4) == 0) {
            topics.add(TopicLayout.of("elsewhere", 1 + random.nextInt(8), 8));
        }
        return GroupLayout.of(pickLong(random, 0L, 1L, (long) random.nextInt(100), Long.MAX_VALUE / 2), topics);
    }

    private static int pick(SplittableRandom random, int... values) {
        return values[random.nextInt(values.length)];
    }

    private static long pickLong(SplittableRandom random, long... values) {
        return values[random.nextInt(values.length)];
    }

    private static String pickString(SplittableRandom random, String... values) {
        return values[random.nextInt(values.length)];
    }
}
