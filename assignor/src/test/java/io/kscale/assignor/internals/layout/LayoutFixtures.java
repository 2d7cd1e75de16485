package io.kscale.assignor.internals.layout;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.Seeds;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.zip.CRC32C;
import org.apache.kafka.common.utils.Utils;

/**
 * Shared names, builders, generators and invariant checks of the layout tests, used by the
 * example tests and the properties alike (the generators draw from a try's random, {@link Seeds}).
 */
final class LayoutFixtures {

    static final String ORDERS = "orders";
    static final String PAYMENTS = "payments";
    static final String AUDIT = "audit";
    static final Map<String, Integer> NONE_DECLARED = Map.of();

    private LayoutFixtures() {
    }

    /** Kafka's partition of a keyed record when no partitioner is configured (and kscale's own). */
    static int partitionOf(byte[] key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key)) % partitions;
    }

    static byte[] key(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code counts("a", 4, "b", 8)}: a partition count per topic. */
    static Map<String, Integer> counts(Object... topicsAndCounts) {
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < topicsAndCounts.length; i += 2) {
            counts.put((String) topicsAndCounts[i], (Integer) topicsAndCounts[i + 1]);
        }
        return counts;
    }

    /** {@code layout(3, "a", 4, 8, "b", 2, 2)}: a layout of epoch 3 with (topic, T, partitions) triples. */
    static GroupLayout layout(long epoch, Object... topicTaskAndPartitionCounts) {
        List<TopicLayout> topics = new ArrayList<>();
        for (int i = 0; i < topicTaskAndPartitionCounts.length; i += 3) {
            topics.add(TopicLayout.of((String) topicTaskAndPartitionCounts[i], (Integer) topicTaskAndPartitionCounts[i + 1],
                    (Integer) topicTaskAndPartitionCounts[i + 2]));
        }
        return GroupLayout.of(epoch, topics);
    }

    static LayoutUpdate apply(GroupLayout layout, ExpansionPolicy policy, Object... topicsAndCounts) {
        return layout.withPartitionCounts(counts(topicsAndCounts), policy, NONE_DECLARED);
    }

    static Optional<GroupLayout> decode(byte[] bytes) {
        return LayoutCodec.decode(ByteBuffer.wrap(bytes));
    }

    static byte[] encode(GroupLayout layout) {
        ByteBuffer buffer = LayoutCodec.encode(layout);
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    /** Writes a correct checksum into a message, so a test reaches the parser behind it. */
    static byte[] seal(byte[] message) {
        byte[] sealed = message.clone();
        if (sealed.length >= LayoutCodec.HEADER_SIZE) {
            CRC32C crc = new CRC32C();
            crc.update(sealed, 0, LayoutCodec.CRC_OFFSET);
            crc.update(sealed, LayoutCodec.HEADER_SIZE, sealed.length - LayoutCodec.HEADER_SIZE);
            ByteBuffer.wrap(sealed).putInt(LayoutCodec.CRC_OFFSET, (int) crc.getValue());
        }
        return sealed;
    }

    /** A header of magic, version 0 and room for the checksum, followed by {@code body}, sealed. */
    static byte[] sealedMessage(byte[] body) {
        byte[] message = new byte[LayoutCodec.HEADER_SIZE + body.length];
        message[0] = LayoutCodec.MAGIC;
        message[1] = LayoutCodec.VERSION_0;
        System.arraycopy(body, 0, message, LayoutCodec.HEADER_SIZE, body.length);
        return seal(message);
    }

    /** Legal topic names, many sharing prefixes (as real ones do), some as long as Kafka allows. */
    static String topicName(SplittableRandom random) {
        for (;;) {
            String name = random.nextInt(21) == 0 ? Seeds.string(random, "ab", TopicLayout.MAX_NAME_LENGTH, TopicLayout.MAX_NAME_LENGTH)
                    : Seeds.pick(random, "", "orders", "orders.eu-", "payments_v2.", "a") + Seeds.string(random, "abcxyzABC0189._-", 1, 12);
            if (TopicLayout.isLegalName(name)) {
                return name;
            }
        }
    }

    /** Task and partition counts: mostly small, sometimes at the bounds. */
    static int count(SplittableRandom random) {
        int draw = random.nextInt(14);
        return draw < 10 ? Seeds.intBetween(random, 1, 64) : draw < 13 ? Seeds.intBetween(random, 1, TopicLayout.MAX_COUNT)
                : Seeds.pick(random, 1, 127, 128, 16_383, 16_384, TopicLayout.MAX_COUNT);
    }

    static TopicLayout topicLayout(SplittableRandom random) {
        return TopicLayout.of(topicName(random), count(random), count(random));
    }

    /** Topic layouts that may carry a topic id fingerprint (any but 0) and a missing-since stamp. */
    static TopicLayout identifiedTopicLayout(SplittableRandom random) {
        TopicLayout topic = topicLayout(random);
        int idDraw = random.nextInt(9);
        long id = idDraw < 3 ? 0 : idDraw < 8 ? nonZero(random) : Seeds.pick(random, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE);
        int stampDraw = random.nextInt(9);
        long stamp = stampDraw < 5 ? -1 : stampDraw < 8 ? Seeds.longBetween(random, 0, Long.MAX_VALUE)
                : Seeds.pick(random, 0L, 127L, 1_700_000_000_000L, Long.MAX_VALUE);
        TopicLayout identified = id == 0 ? topic : topic.withTopicId(id);
        return stamp < 0 ? identified : identified.withMissingSince(stamp);
    }

    private static long nonZero(SplittableRandom random) {
        long id = Seeds.anyLong(random);
        return id != 0 ? id : nonZero(random);
    }

    /** Layouts as {@link #groupLayout}, whose topics may carry ids and stamps (version 1 of the codec). */
    static GroupLayout identifiedGroupLayout(SplittableRandom random, int maxTopics) {
        long epoch = Seeds.longBetween(random, 0, Long.MAX_VALUE);
        return GroupLayout.of(epoch, Seeds.uniqueListOf(random, maxTopics, LayoutFixtures::identifiedTopicLayout, TopicLayout::topic));
    }

    /** Layouts of 0 to {@code maxTopics} topics at any epoch, including the largest. */
    static GroupLayout groupLayout(SplittableRandom random, int maxTopics) {
        int draw = random.nextInt(14);
        long epoch = draw < 10 ? Seeds.longBetween(random, 0, 1_000) : draw < 13 ? Seeds.longBetween(random, 0, Long.MAX_VALUE)
                : Seeds.pick(random, 0L, 127L, 128L, Long.MAX_VALUE);
        return GroupLayout.of(epoch, Seeds.uniqueListOf(random, maxTopics, LayoutFixtures::topicLayout, TopicLayout::topic));
    }

    /**
     * The invariants of a set of units: every partition of every known topic is in exactly one
     * unit, the one of its task {@code p % T}; topics in one unit share T; weights count
     * partitions and are at least 1.
     */
    static void verifyUnits(GroupLayout layout, Set<String> topics, Units units, CoPartitioning coPartitioning) {
        Set<String> seen = new HashSet<>();
        Set<String> ids = new HashSet<>();
        long partitions = 0;
        for (Unit unit : units.units()) {
            assertThat(unit.weight()).as("weight of %s", unit).isPositive();
            assertThat(ids.add(unit.id())).as("unit id %s twice", unit.id()).isTrue();
            if (coPartitioning == CoPartitioning.NONE) {
                assertThat(unit.topics()).as("topics of %s", unit).hasSize(1);
            } else {
                assertThat(unit.topics()).as("topics of %s: every subscribed topic with its T", unit)
                        .containsExactlyElementsOf(topics.stream().filter(topic -> layout.topic(topic)
                                .map(t -> t.taskCount() == unit.taskCount()).orElse(false)).sorted()
                                .collect(Collectors.toList()));
            }
            long weight = 0;
            for (String topic : unit.topics()) {
                TopicLayout topicLayout = layout.topic(topic).orElseThrow();
                assertThat(topicLayout.taskCount()).as("T of %s in %s", topic, unit).isEqualTo(unit.taskCount());
                for (int partition : unit.partitions(topic)) {
                    assertThat(partition % unit.taskCount()).isEqualTo(unit.task());
                    assertThat(seen.add(topic + "-" + partition)).as("%s-%d in two units", topic, partition).isTrue();
                    assertThat(units.unitOf(topic, partition)).contains(unit);
                    weight++;
                }
            }
            assertThat(unit.weight()).isEqualTo(weight);
            partitions += weight;
        }
        long expected = 0;
        for (String topic : topics) {
            if (layout.topic(topic).isPresent()) {
                expected += layout.topic(topic).get().partitionCount();
            } else {
                assertThat(units.unknownTopics()).contains(topic);
            }
        }
        assertThat(partitions).as("partitions in all units").isEqualTo(expected).isEqualTo(units.totalWeight());
    }
}
