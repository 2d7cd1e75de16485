package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.ORDERS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.decode;
import static io.kscale.assignor.internals.layout.LayoutFixtures.encode;
import static io.kscale.assignor.internals.layout.LayoutFixtures.seal;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Issue 17, finding 1: a T taken from the partition count while the layout store could not be
 * read is provisional. The mark travels in userData (layout codec version 2, which older members
 * read without it), survives expansions and merges, and gives way to the stored T.
 */
class ProvisionalTopicsTest {

    private static final String PAYMENTS = "payments";
    private static final long SEED = 17L;

    private static final GroupLayout GUESSED = GroupLayout.of(1, List.of(
            TopicLayout.of(ORDERS, 16, 16).withProvisional(true), TopicLayout.of(PAYMENTS, 2, 2)));

    @Test
    void shouldEncodeVersionTwoExactlyAsDocumented() {
        GroupLayout layout = GroupLayout.of(3, List.of(
                TopicLayout.of(ORDERS, 4, 8).withTopicId(0x0102030405060708L).withProvisional(true)));
        String body = "03" + "01" + "00" + "06" + hex(ORDERS) + "04" + "08" + "01" + "0102030405060708" + "01" + "00";

        byte[] encoded = encode(layout);

        assertThat(HexFormat.of().formatHex(encoded)).startsWith("4c02").endsWith(body);
        assertThat(encoded).hasSize(29);
        assertThat(decode(encoded)).contains(layout);
    }

    /** A member on kscale before issue 17 reads the layout without the marks: it stays in the group. */
    @Test
    void shouldBeReadWithoutItsMarksByAVersionOneReader() {
        byte[] encoded = encode(GUESSED);

        Optional<GroupLayout> old = LayoutCodec.decode(ByteBuffer.wrap(encoded), LayoutCodec.VERSION_1);

        assertThat(old).contains(GroupLayout.of(1, List.of(TopicLayout.of(ORDERS, 16, 16), TopicLayout.of(PAYMENTS, 2, 2))));
        assertThat(old.get().topics().get(0).isProvisional()).isFalse();
    }

    @Test
    void shouldWriteNoVersionTwoWithoutAProvisionalTopic() {
        GroupLayout confirmed = ProvisionalTopics.mark(GUESSED, List.of(ORDERS), false);

        assertThat(encode(confirmed)[1]).isEqualTo(LayoutCodec.VERSION_0);
        assertThat(decode(encode(confirmed))).contains(confirmed);
    }

    @Test
    void shouldRejectNonCanonicalVersionTwoMessages() {
        byte[] valid = encode(GUESSED);
        int marks = valid.length - 2; // "01 00": one provisional topic, index 0

        assertThat(decode(seal(withTail(valid, marks, 0x00)))).as("no provisional topic").isEmpty();
        assertThat(decode(seal(withTail(valid, marks, 0x01, 0x02)))).as("index out of range").isEmpty();
        assertThat(decode(seal(withTail(valid, marks, 0x02, 0x01, 0x00)))).as("not ascending").isEmpty();
        assertThat(decode(seal(withTail(valid, marks, 0x02, 0x00, 0x00)))).as("twice").isEmpty();
        assertThat(decode(seal(withTail(valid, marks, 0x01, 0x00, 0x00)))).as("bytes after the body").isEmpty();
        assertThat(decode(seal(withTail(valid, marks, 0x03, 0x00, 0x01)))).as("more than the topics").isEmpty();
        assertThat(decode(seal(withTail(valid, marks, 0x02, 0x00, 0x01))))
                .contains(ProvisionalTopics.mark(GUESSED, List.of(PAYMENTS), true));
    }

    /** Untrusted input: random tails and edits of a version 2 message never throw and decode only canonically. */
    @Test
    void shouldNeverThrowForDamagedVersionTwoMessages() {
        Random random = new Random(SEED);
        byte[] valid = encode(GUESSED);
        for (int i = 0; i < 5_000; i++) {
            byte[] message = valid.clone();
            int from = random.nextInt(message.length - 6) + 6;
            int length = random.nextInt(8);
            byte[] damaged = java.util.Arrays.copyOf(message, from + length);
            for (int b = from; b < damaged.length; b++) {
                damaged[b] = (byte) random.nextInt(256);
            }
            byte[] sealed = seal(damaged);
            Optional<GroupLayout> decoded = decode(sealed);
            if (decoded.isPresent()) {
                assertThat(encode(decoded.get())).as("seed %s, case %s: the one encoding", SEED, i).isEqualTo(sealed);
            }
        }
    }

    @Test
    void shouldKeepTheMarkThroughAnExpansion() {
        LayoutUpdate update = GUESSED.withPartitionCounts(java.util.Map.of(ORDERS, 32, PAYMENTS, 2), ExpansionPolicy.KEEP,
                java.util.Map.of());

        assertThat(update.layout().topic(ORDERS).orElseThrow().isProvisional()).isTrue();
        assertThat(update.layout().topic(ORDERS).orElseThrow().partitionCount()).isEqualTo(32);
    }

    /** An older member reports the layout without the mark: the same layout, no conflict, the marked one wins. */
    @Test
    void shouldMergeAnUnmarkedReportOfTheSameLayoutIntoTheMarkedOne() {
        GroupLayout unmarked = ProvisionalTopics.mark(GUESSED, List.of(ORDERS), false);

        LayoutMerge merge = GroupLayout.merge(List.of(unmarked, GUESSED));

        assertThat(merge.conflicts()).isEmpty();
        assertThat(merge.layout()).isEqualTo(GUESSED);
    }

    @Test
    void shouldTakeTheStoredTWhateverTheEpochsAndCallItAnAffinityBreak() {
        GroupLayout stored = GroupLayout.of(0, List.of(TopicLayout.of(ORDERS, 4, 4)));

        ProvisionalTopics.Resolution resolution = ProvisionalTopics.resolve(GUESSED, Optional.of(stored));

        assertThat(resolution.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 4));
        assertThat(resolution.layout().topic(PAYMENTS)).isEqualTo(GUESSED.topic(PAYMENTS));
        assertThat(resolution.layout().epoch()).as("a change: after both epochs").isEqualTo(2);
        assertThat(resolution.resolved()).hasSize(1);
        ProvisionalTopics.Resolved orders = resolution.resolved().get(0);
        assertThat(orders.breaksAffinity()).isTrue();
        assertThat(orders.message()).contains("T=16").contains("T=4");
    }

    @Test
    void shouldConfirmAProvisionalTopicTheStoreLacks() {
        GroupLayout stored = GroupLayout.of(7, List.of(TopicLayout.of(PAYMENTS, 2, 2)));

        ProvisionalTopics.Resolution resolution = ProvisionalTopics.resolve(GUESSED, Optional.of(stored));

        assertThat(resolution.layout().topic(ORDERS)).contains(TopicLayout.of(ORDERS, 16, 16));
        assertThat(resolution.layout().epoch()).isEqualTo(8);
        assertThat(resolution.resolved().get(0).breaksAffinity()).isFalse();
        assertThat(ProvisionalTopics.resolve(GUESSED, Optional.empty()).layout().topic(ORDERS))
                .as("nothing stored: a new topic").contains(TopicLayout.of(ORDERS, 16, 16));
    }

    @Test
    void shouldLeaveALayoutWithoutProvisionalTopicsAsItIs() {
        GroupLayout confirmed = GroupLayout.of(4, List.of(TopicLayout.of(ORDERS, 4, 8)));

        assertThat(ProvisionalTopics.resolve(confirmed, Optional.empty()).layout()).isSameAs(confirmed);
        assertThat(ProvisionalTopics.confirm(confirmed, List.of(ORDERS))).isSameAs(confirmed);
        assertThat(ProvisionalTopics.confirm(GUESSED, List.of(ORDERS)).epoch()).as("confirming is a change").isEqualTo(2);
    }

    private static byte[] withTail(byte[] message, int at, int... tail) {
        byte[] out = java.util.Arrays.copyOf(message, at + tail.length);
        for (int i = 0; i < tail.length; i++) {
            out[at + i] = (byte) tail[i];
        }
        return out;
    }

    private static String hex(String text) {
        return HexFormat.of().formatHex(text.getBytes(StandardCharsets.US_ASCII));
    }
}
