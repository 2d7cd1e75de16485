package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.ORDERS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.decode;
import static io.kscale.assignor.internals.layout.LayoutFixtures.encode;
import static io.kscale.assignor.internals.layout.LayoutFixtures.layout;
import static io.kscale.assignor.internals.layout.LayoutFixtures.seal;
import static io.kscale.assignor.internals.layout.LayoutFixtures.sealedMessage;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.junit.jupiter.api.Test;

/**
 * The codec's format, pinned byte by byte, its size, its compatibility rules and its answers to
 * crafted hostile input; {@link LayoutCodecFuzzTest} throws random input at it.
 */
class LayoutCodecTest {

    private static final GroupLayout TWO_TOPICS = layout(3, ORDERS, 4, 8, "orders-dlq", 4, 4);

    /**
     * The format of the class comment, version 0: this is what every member and the durable store
     * read, so a change here breaks compatibility unless it follows the rule (append after the
     * body, bump the version).
     */
    @Test
    void shouldEncodeVersionZeroExactlyAsDocumented() {
        String body = "03" + "02"
                + "00" + "06" + ascii("orders") + "04" + "08"
                + "06" + "04" + ascii("-dlq") + "04" + "04";
        byte[] expected = seal(HexFormat.of().parseHex("4c00" + "00000000" + body));

        byte[] encoded = encode(TWO_TOPICS);

        assertThat(HexFormat.of().formatHex(encoded)).isEqualTo(HexFormat.of().formatHex(expected))
                .isEqualTo("4c00" + "ebbeea8a" + body);
        assertThat(encoded).hasSize(26);
        assertThat(decode(encoded)).contains(TWO_TOPICS);
    }

    @Test
    void shouldUseMultiByteVarintsForLargeValues() {
        GroupLayout large = layout(300, "t", TopicLayout.MAX_COUNT, 128);

        byte[] encoded = encode(large);

        assertThat(HexFormat.of().formatHex(Arrays.copyOfRange(encoded, 6, encoded.length)))
                .isEqualTo("ac02" + "01" + "00" + "01" + ascii("t") + "808040" + "8001");
        assertThat(decode(encoded)).contains(large);
    }

    @Test
    void shouldRoundTripTheEmptyLayoutAndTheLargestEpoch() {
        assertThat(encode(GroupLayout.empty())).hasSize(8);
        assertThat(decode(encode(GroupLayout.empty()))).contains(GroupLayout.empty());
        GroupLayout last = layout(Long.MAX_VALUE, ORDERS, 1, 1);
        assertThat(decode(encode(last))).contains(last);
    }

    /** The size report the issue asks for: 100 topics as a member's userData carries them. */
    @Test
    void shouldEncodeAHundredTopicsInAFewHundredBytes() {
        GroupLayout numbered = hundredTopics(i -> String.format("topic-%03d", i), 12, 24);
        GroupLayout realistic = hundredTopics(i -> String.format("payments.eu-west-1.orders-v2-%03d", i), 64, 128);
        Random random = new Random(42);
        GroupLayout unrelated = hundredTopics(i -> randomName(random, 20), 100, 300);

        int numberedSize = encode(numbered).length;
        int realisticSize = encode(realistic).length;
        int unrelatedSize = encode(unrelated).length;
        System.out.printf("layout codec v0, 100 topics: 'topic-000'.. T=12/24 partitions: %d bytes; "
                        + "'payments.eu-west-1.orders-v2-000'.. T=64/128: %d bytes; random 20-character names T=100/300: %d bytes "
                        + "(fixed-width ints and full names would take %d, %d and %d)%n", numberedSize, realisticSize, unrelatedSize,
                fixedWidthSize(numbered), fixedWidthSize(realistic), fixedWidthSize(unrelated));

        // 6 header + 1 epoch + 1 count + 13 for the first topic + 90 x 5 + 9 x 6 (the tens digit changes).
        assertThat(numberedSize).isEqualTo(525);
        assertThat(realisticSize).isEqualTo(6 + 1 + 1 + (2 + 32 + 1 + 2) + 90 * 6 + 9 * 7);
        assertThat(unrelatedSize).isLessThan(100 * (2 + 20 + 2 + 2) + 8);
        assertThat(decode(encode(unrelated))).contains(unrelated);
    }

    /**
     * A version 3 message (none exists yet) is read as far as version 2 goes: its sections, then
     * anything. (Before issue 17 this test used version 2, which now carries provisional marks.)
     */
    @Test
    void shouldDecodeTheKnownPrefixOfAHigherVersion() {
        byte[] v0 = encode(TWO_TOPICS);
        byte[] v3 = Arrays.copyOf(v0, v0.length + 2 + 2 + 3);
        v3[1] = 3;
        // after the two topics' v1 flags (0: no id, no stamp): one provisional topic, index 0
        v3[v0.length + 2] = 1;
        v3[v0.length + 3] = 0;
        v3[v0.length + 4] = 0x7F;

        assertThat(decode(seal(v3))).contains(ProvisionalTopics.mark(TWO_TOPICS, List.of(ORDERS), true));
    }

    /**
     * The format of the class comment, version 1: a topic id's fingerprint and a missing-since
     * stamp per topic after the version 0 body, which a kscale before topic ids reads alone.
     */
    @Test
    void shouldEncodeVersionOneExactlyAsDocumented() {
        GroupLayout identified = GroupLayout.of(3, List.of(TopicLayout.of(ORDERS, 4, 8).withTopicId(0x0102030405060708L)));
        String body = "03" + "01" + "00" + "06" + ascii(ORDERS) + "04" + "08" + "01" + "0102030405060708";

        byte[] encoded = encode(identified);

        assertThat(HexFormat.of().formatHex(encoded)).startsWith("4c01").endsWith(body);
        assertThat(encoded).hasSize(27);
        assertThat(decode(encoded)).contains(identified);
        byte[] asVersionZero = encoded.clone();
        asVersionZero[1] = 0;
        assertThat(decode(seal(Arrays.copyOf(asVersionZero, encoded.length - 9))))
                .as("what a reader of version 0 sees: the layout without its id")
                .contains(layout(3, ORDERS, 4, 8));
    }

    @Test
    void shouldRoundTripIdsAndStampsAndWriteVersionZeroWithoutThem() {
        GroupLayout mixed = GroupLayout.of(7, List.of(
                TopicLayout.of(ORDERS, 4, 8).withTopicId(-1L),
                TopicLayout.of("orders-dlq", 4, 4),
                TopicLayout.of("orders-old", 2, 2).withTopicId(42).withMissingSince(1_700_000_000_000L),
                TopicLayout.of("payments", 1, 1).withMissingSince(0)));

        assertThat(decode(encode(mixed))).contains(mixed);
        assertThat(encode(mixed)[1]).isEqualTo((byte) 1);
        assertThat(encode(TWO_TOPICS)[1]).as("no id, no stamp: version 0").isEqualTo((byte) 0);
    }

    @Test
    void shouldRejectVersionOneThatIsNotCanonicalOrMalformed() {
        byte[] v0 = encode(TWO_TOPICS);
        byte[] allZero = Arrays.copyOf(v0, v0.length + 2);
        allZero[1] = 1;
        assertThat(decode(seal(allZero))).as("version 1 without any id or stamp").isEmpty();

        byte[] v1 = encode(GroupLayout.of(3, List.of(TopicLayout.of(ORDERS, 4, 8).withTopicId(5))));
        byte[] zeroId = v1.clone();
        Arrays.fill(zeroId, v1.length - 8, v1.length, (byte) 0);
        assertThat(decode(seal(zeroId))).as("an id of 0, which means none").isEmpty();
        byte[] unknownFlag = v1.clone();
        unknownFlag[v1.length - 9] = 4;
        assertThat(decode(seal(unknownFlag))).as("a flag version 1 does not define").isEmpty();
        assertThat(decode(seal(Arrays.copyOf(v1, v1.length + 1)))).as("bytes after the version 1 body").isEmpty();
        assertThat(decode(seal(Arrays.copyOf(v1, v1.length - 1)))).as("a truncated id").isEmpty();
    }

    @Test
    void shouldRejectVersionZeroWithBytesAfterItsBody() {
        byte[] v0 = encode(TWO_TOPICS);

        assertThat(decode(seal(Arrays.copyOf(v0, v0.length + 1)))).isEmpty();
    }

    @Test
    void shouldRejectAnotherMagicByteAndAWrongChecksum() {
        byte[] otherMagic = encode(TWO_TOPICS);
        otherMagic[0] = 0x4D;
        byte[] wrongChecksum = encode(TWO_TOPICS);
        wrongChecksum[5] ^= 1;

        assertThat(decode(seal(otherMagic))).isEmpty();
        assertThat(decode(wrongChecksum)).isEmpty();
    }

    @Test
    void shouldReturnEmptyForForeignUserDataNullAndShortInput() {
        ByteBuffer cooperativeSticky = new CooperativeStickyAssignor().subscriptionUserData(Set.of(ORDERS));

        assertThat(LayoutCodec.decode(cooperativeSticky)).isEmpty();
        assertThat(LayoutCodec.decode(null)).isEmpty();
        assertThat(LayoutCodec.decode(ByteBuffer.allocate(0))).isEmpty();
        assertThat(decode("{\"epoch\": 3}".getBytes(StandardCharsets.UTF_8))).isEmpty();
        assertThat(decode(Arrays.copyOf(encode(GroupLayout.empty()), 7))).isEmpty();
    }

    @Test
    void shouldReadFromThePositionWithoutMovingIt() {
        byte[] message = encode(TWO_TOPICS);
        ByteBuffer framed = ByteBuffer.allocateDirect(message.length + 10);
        framed.position(4);
        framed.put(message);
        framed.position(4).limit(4 + message.length);
        ByteBuffer readOnly = framed.asReadOnlyBuffer();

        assertThat(LayoutCodec.decode(readOnly)).contains(TWO_TOPICS);
        assertThat(readOnly.position()).isEqualTo(4);
        assertThat(readOnly.limit()).isEqualTo(4 + message.length);
    }

    @Test
    void shouldRejectOversizedCountsAndLengthsWithoutAllocatingThem() {
        assertThat(decode(sealedMessage(hex("00" + "ffffffff0f")))).as("topic count 2^32 - 1").isEmpty();
        assertThat(decode(sealedMessage(hex("00" + "a08d06")))).as("topic count 100,000 in 4 bytes").isEmpty();
        assertThat(decode(sealedMessage(hex("00" + "01" + "00" + "ffffff7f" + "61" + "01" + "01"))))
                .as("name length 2^28").isEmpty();
        assertThat(decode(sealedMessage(hex("00" + "01" + "00" + "fa01" + "61".repeat(250) + "01" + "01"))))
                .as("name of 250 bytes").isEmpty();
        assertThat(decode(sealedMessage(hex("00" + "01" + "00" + "01" + "61" + "818040" + "01"))))
                .as("T above MAX_COUNT").isEmpty();
        assertThat(decode(sealedMessage(hex("ffffffffffffffffff01" + "00")))).as("epoch of 10 bytes").isEmpty();
        assertThat(decode(sealedMessage(hex("8000" + "00")))).as("epoch padded to 2 bytes").isEmpty();
    }

    @Test
    void shouldRejectNamesThatAreIllegalUnorderedOrNotFrontCodedTheOneWay() {
        assertThat(decode(sealedMessage(hex("00" + "01" + "00" + "01" + "20" + "01" + "01")))).as("space").isEmpty();
        assertThat(decode(sealedMessage(hex("00" + "01" + "00" + "01" + "2e" + "01" + "01")))).as("'.'").isEmpty();
        assertThat(decode(sealedMessage(hex("00" + "02" + "00" + "01" + "62" + "01" + "01" + "00" + "01" + "61" + "01" + "01"))))
                .as("b before a").isEmpty();
        assertThat(decode(sealedMessage(hex("00" + "02" + "00" + "01" + "61" + "01" + "01" + "00" + "01" + "61" + "01" + "01"))))
                .as("a twice").isEmpty();
        assertThat(decode(sealedMessage(hex("00" + "02" + "00" + "01" + "61" + "01" + "01" + "00" + "02" + "6162" + "01" + "01"))))
                .as("ab without sharing a").isEmpty();
        assertThat(decode(sealedMessage(hex("00" + "02" + "00" + "01" + "61" + "01" + "01" + "01" + "01" + "62" + "01" + "01"))))
                .as("ab sharing a").contains(layout(0, "a", 1, 1, "ab", 1, 1));
    }

    private static GroupLayout hundredTopics(java.util.function.IntFunction<String> name, int taskCount, int partitionCount) {
        List<TopicLayout> topics = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            topics.add(TopicLayout.of(name.apply(i), taskCount, partitionCount));
        }
        return GroupLayout.of(42, topics);
    }

    private static String randomName(Random random, int length) {
        String chars = "abcdefghijklmnopqrstuvwxyz0123456789._-";
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < length; i++) {
            name.append(chars.charAt(random.nextInt(chars.length())));
        }
        return name.toString();
    }

    /** The size of the obvious alternative: 8-byte epoch, 4-byte count, per topic 2-byte length, name, two 4-byte ints. */
    private static int fixedWidthSize(GroupLayout layout) {
        return 6 + 8 + 4 + layout.topics().stream().mapToInt(topic -> 2 + topic.topic().length() + 4 + 4).sum();
    }

    private static String ascii(String text) {
        return HexFormat.of().formatHex(text.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex);
    }
}
