package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.decode;
import static io.kscale.assignor.internals.layout.LayoutFixtures.encode;
import static io.kscale.assignor.internals.layout.LayoutFixtures.seal;
import static io.kscale.assignor.internals.layout.LayoutFixtures.sealedMessage;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.Property;
import io.kscale.assignor.Seeds;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * Round trips, and {@link LayoutCodec#decode} against every kind of bad input: random bytes,
 * random bodies behind a correct header and checksum (which reach the parser), truncations, bit
 * flips, and edits of valid messages. It must never throw, never accept a damaged message the
 * checksum can see, and whatever it does accept must be the one canonical encoding of its
 * layout. Samples are drawn from the seed of each try ({@link Seeds}, a failure prints it; the
 * properties of one layout shrink a failing one to fewer topics); the parsing properties print
 * how many samples were accepted, by number of topics.
 */
class LayoutCodecFuzzTest {

    private static GroupLayout layout(SplittableRandom random) {
        GroupLayout layout = random.nextBoolean() ? LayoutFixtures.groupLayout(random, 40) : LayoutFixtures.identifiedGroupLayout(random, 40);
        Seeds.sample("%s", layout);
        return layout;
    }

    /**
     * Checks {@code layout}; if that fails, looks for fewer of its topics that still fail (a layout
     * of up to 40 topics, some with names of 249 characters, is hard to read).
     */
    private static void checkShrinkingTopics(GroupLayout layout, Consumer<GroupLayout> check) {
        Seeds.checkShrinking(layout.topics(), topics -> check.accept(GroupLayout.of(layout.epoch(), topics)));
    }

    @Property
    Stream<DynamicTest> shouldDecodeWhatItEncodes() {
        return Seeds.tries(500, random -> checkShrinkingTopics(layout(random), layout -> {
            ByteBuffer encoded = LayoutCodec.encode(layout);

            assertThat(encoded.position()).isZero();
            assertThat(LayoutCodec.decode(encoded)).contains(layout);
            assertThat(LayoutCodec.decode(encoded.asReadOnlyBuffer())).contains(layout);
        }));
    }

    @Property
    Stream<DynamicTest> shouldNeverThrowForRandomBytes() {
        return Seeds.tries(2000, random -> {
            byte[] bytes = Seeds.bytes(random, 400);
            Seeds.sample("%s", Arrays.toString(bytes));
            decode(bytes);
            if (bytes.length > 1) {
                bytes[0] = LayoutCodec.MAGIC;
                assertThat(decode(bytes)).as("a random checksum never matches here").isEmpty();
            }
        });
    }

    /** Behind a valid header and checksum, random bytes exercise every branch of the parser. */
    @Property
    Stream<DynamicTest> shouldNeverThrowForRandomBodiesAndAcceptOnlyCanonicalOnes() {
        return decodingTries(2000, LayoutCodecFuzzTest::body);
    }

    /**
     * Bodies that follow the grammar with small, often wrong values (names over "ab.", shared
     * prefixes that are too short or too long, zero counts, a topic count off by one): many parse,
     * so this reaches the checks that keep decoding strict (order, canonical front coding).
     */
    @Property
    Stream<DynamicTest> shouldAcceptOnlyCanonicalBodiesThatFollowTheGrammar() {
        return decodingTries(5000, LayoutCodecFuzzTest::grammarBody);
    }

    /** Sealed messages of random bodies: accepted only if canonical; prints what was decoded. */
    private static Stream<DynamicTest> decodingTries(int tries, Function<SplittableRandom, byte[]> bodies) {
        Map<String, Integer> decodedTopics = new TreeMap<>();
        return Seeds.tries(tries, random -> {
            byte[] body = bodies.apply(random);
            Seeds.sample("body %s", Arrays.toString(body));
            byte[] message = sealedMessage(body);

            Optional<GroupLayout> decoded = decode(message);
            decodedTopics.merge(decoded.map(layout -> layout.topics().size() + " topics").orElse("rejected"), 1, Integer::sum);
            assertCanonicalIfAccepted(message, decoded);
        }).onClose(() -> System.out.println("  decoded: " + decodedTopics));
    }

    @Property
    Stream<DynamicTest> shouldRejectEveryTruncation() {
        return Seeds.tries(300, random -> checkShrinkingTopics(layout(random), layout -> {
            byte[] message = encode(layout);

            for (int length = 0; length < message.length; length++) {
                byte[] truncated = Arrays.copyOf(message, length);
                assertThat(decode(truncated)).as("first %d of %d bytes", length, message.length).isEmpty();
                assertCanonicalIfAccepted(seal(truncated), decode(seal(truncated)));
            }
        }));
    }

    @Property
    Stream<DynamicTest> shouldRejectEverySingleBitFlip() {
        return Seeds.tries(100, random -> checkShrinkingTopics(layout(random), layout -> {
            byte[] message = encode(layout);

            for (int bit = 0; bit < message.length * 8; bit++) {
                byte[] flipped = message.clone();
                flipped[bit / 8] ^= (byte) (1 << (bit % 8));
                assertThat(decode(flipped)).as("bit %d flipped", bit).isEmpty();
            }
        }));
    }

    /**
     * Edits that keep the checksum right (as a bug in a writer would): overwritten, inserted and
     * removed bytes and bit flips, then sealed. Most messages fail to parse; none throws, and an
     * accepted one is canonical.
     */
    @Property
    Stream<DynamicTest> shouldNeverThrowForEditedMessagesWithAValidChecksum() {
        Map<String, Integer> outcomes = new TreeMap<>();
        return Seeds.tries(3000, random -> {
            GroupLayout layout = layout(random);
            List<int[]> edits = Seeds.listOf(random, 1, 4, r -> new int[] {Seeds.intBetween(r, 0, 3), Seeds.intBetween(r, 0, 10_000),
                    Seeds.anyByte(r)});
            Seeds.sample("%s, edits (kind, where, value) %s", layout,
                    edits.stream().map(Arrays::toString).collect(Collectors.toList()));
            byte[] message = encode(layout);
            for (int[] edit : edits) {
                message = edit(message, edit[0], edit[1], (byte) edit[2]);
            }
            byte[] sealed = seal(message);

            Optional<GroupLayout> decoded = decode(sealed);
            outcomes.merge(decoded.isPresent() ? "accepted" : "rejected", 1, Integer::sum);
            assertCanonicalIfAccepted(sealed, decoded);
        }).onClose(() -> System.out.println("  decoded: " + outcomes));
    }

    /** Small bytes are frequent so that counts and lengths are often plausible and parsing goes deep. */
    private static byte[] body(SplittableRandom random) {
        byte[] body = new byte[Seeds.intBetween(random, 0, 120)];
        for (int i = 0; i < body.length; i++) {
            int draw = random.nextInt(9);
            body[i] = draw < 4 ? (byte) Seeds.intBetween(random, 0, 8)
                    : draw < 7 ? Seeds.pick(random, (byte) 'a', (byte) 'b', (byte) '.', (byte) '-') : Seeds.anyByte(random);
        }
        return body;
    }

    /** Every value stays below 128, so each varint is the value's own byte. */
    private static byte[] grammarBody(SplittableRandom random) {
        List<byte[]> topics = Seeds.listOf(random, 0, 4, r -> {
            int sharedDraw = r.nextInt(8);
            String rest = r.nextInt(10) == 0 ? "" : Seeds.string(r, "ab.", 1, 3);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(sharedDraw < 5 ? 0 : sharedDraw < 7 ? 1 : 2);
            out.write(rest.length());
            out.writeBytes(rest.getBytes(StandardCharsets.US_ASCII));
            out.write(mostlyValid(r));
            out.write(mostlyValid(r));
            return out.toByteArray();
        });
        int epoch = Seeds.intBetween(random, 0, 2);
        int countDraw = random.nextInt(10);
        int countError = countDraw < 8 ? 0 : countDraw == 8 ? -1 : 1;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(epoch);
        out.write(Math.max(0, topics.size() + (topics.isEmpty() ? 0 : countError)));
        topics.forEach(out::writeBytes);
        return out.toByteArray();
    }

    private static int mostlyValid(SplittableRandom random) {
        return random.nextInt(10) == 0 ? 0 : Seeds.intBetween(random, 1, 3);
    }

    /** One edit: 0 overwrites a byte, 1 inserts one, 2 removes one, 3 flips a bit; the header's first two bytes are fair game. */
    private static byte[] edit(byte[] message, int kind, int where, byte value) {
        if (message.length == 0) {
            return message;
        }
        int at = where % message.length;
        switch (kind) {
            case 0:
                message = message.clone();
                message[at] = value;
                return message;
            case 1:
                byte[] longer = new byte[message.length + 1];
                System.arraycopy(message, 0, longer, 0, at);
                longer[at] = value;
                System.arraycopy(message, at, longer, at + 1, message.length - at);
                return longer;
            case 2:
                byte[] shorter = new byte[message.length - 1];
                System.arraycopy(message, 0, shorter, 0, at);
                System.arraycopy(message, at + 1, shorter, at, message.length - at - 1);
                return shorter;
            default:
                message = message.clone();
                message[at] ^= (byte) (1 << (value & 7));
                return message;
        }
    }

    private static void assertCanonicalIfAccepted(byte[] message, Optional<GroupLayout> decoded) {
        if (decoded.isPresent() && message[1] == LayoutCodec.VERSION_0) {
            assertThat(encode(decoded.get())).as("the one encoding of %s", decoded.get()).isEqualTo(message);
        }
    }
}
