package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.decode;
import static io.kscale.assignor.internals.layout.LayoutFixtures.encode;
import static io.kscale.assignor.internals.layout.LayoutFixtures.seal;
import static io.kscale.assignor.internals.layout.LayoutFixtures.sealedMessage;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.PropertySeeds;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.statistics.Statistics;

/**
 * Round trips, and {@link LayoutCodec#decode} against every kind of bad input: random bytes,
 * random bodies behind a correct header and checksum (which reach the parser), truncations, bit
 * flips, and edits of valid messages. It must never throw, never accept a damaged message the
 * checksum can see, and whatever it does accept must be the one canonical encoding of its
 * layout. Samples are drawn from {@link PropertySeeds#SEED}; jqwik prints a falsified sample.
 */
class LayoutCodecFuzzTest {

    @Provide
    Arbitrary<GroupLayout> layouts() {
        return Arbitraries.oneOf(LayoutFixtures.groupLayouts(40), LayoutFixtures.identifiedGroupLayouts(40));
    }

    @Property(tries = 500, seed = PropertySeeds.SEED)
    void shouldDecodeWhatItEncodes(@ForAll("layouts") GroupLayout layout) {
        ByteBuffer encoded = LayoutCodec.encode(layout);

        assertThat(encoded.position()).isZero();
        assertThat(LayoutCodec.decode(encoded)).contains(layout);
        assertThat(LayoutCodec.decode(encoded.asReadOnlyBuffer())).contains(layout);
    }

    @Property(tries = 2000, seed = PropertySeeds.SEED)
    void shouldNeverThrowForRandomBytes(@ForAll @Size(max = 400) byte[] bytes) {
        decode(bytes);
        if (bytes.length > 1) {
            bytes[0] = LayoutCodec.MAGIC;
            assertThat(decode(bytes)).as("a random checksum never matches here").isEmpty();
        }
    }

    /** Behind a valid header and checksum, random bytes exercise every branch of the parser. */
    @Property(tries = 2000, seed = PropertySeeds.SEED)
    void shouldNeverThrowForRandomBodiesAndAcceptOnlyCanonicalOnes(@ForAll("bodies") byte[] body) {
        byte[] message = sealedMessage(body);

        Optional<GroupLayout> decoded = decode(message);
        Statistics.label("decoded").collect(decoded.map(layout -> layout.topics().size() + " topics").orElse("rejected"));
        assertCanonicalIfAccepted(message, decoded);
    }

    /**
     * Bodies that follow the grammar with small, often wrong values (names over "ab.", shared
     * prefixes that are too short or too long, zero counts, a topic count off by one): many parse,
     * so this reaches the checks that keep decoding strict (order, canonical front coding).
     */
    @Property(tries = 5000, seed = PropertySeeds.SEED)
    void shouldAcceptOnlyCanonicalBodiesThatFollowTheGrammar(@ForAll("grammarBodies") byte[] body) {
        byte[] message = sealedMessage(body);

        Optional<GroupLayout> decoded = decode(message);
        Statistics.label("decoded").collect(decoded.map(layout -> layout.topics().size() + " topics").orElse("rejected"));
        assertCanonicalIfAccepted(message, decoded);
    }

    @Property(tries = 300, seed = PropertySeeds.SEED)
    void shouldRejectEveryTruncation(@ForAll("layouts") GroupLayout layout) {
        byte[] message = encode(layout);

        for (int length = 0; length < message.length; length++) {
            byte[] truncated = Arrays.copyOf(message, length);
            assertThat(decode(truncated)).as("first %d of %d bytes", length, message.length).isEmpty();
            assertCanonicalIfAccepted(seal(truncated), decode(seal(truncated)));
        }
    }

    @Property(tries = 100, seed = PropertySeeds.SEED)
    void shouldRejectEverySingleBitFlip(@ForAll("layouts") GroupLayout layout) {
        byte[] message = encode(layout);

        for (int bit = 0; bit < message.length * 8; bit++) {
            byte[] flipped = message.clone();
            flipped[bit / 8] ^= (byte) (1 << (bit % 8));
            assertThat(decode(flipped)).as("bit %d flipped", bit).isEmpty();
        }
    }

    /**
     * Edits that keep the checksum right (as a bug in a writer would): overwritten, inserted and
     * removed bytes and bit flips, then sealed. Most messages fail to parse; none throws, and an
     * accepted one is canonical.
     */
    @Property(tries = 3000, seed = PropertySeeds.SEED)
    void shouldNeverThrowForEditedMessagesWithAValidChecksum(@ForAll("layouts") GroupLayout layout,
                                                            @ForAll("edits") List<Tuple.Tuple3<Integer, Integer, Byte>> edits) {
        byte[] message = encode(layout);
        for (Tuple.Tuple3<Integer, Integer, Byte> edit : edits) {
            message = edit(message, edit.get1(), edit.get2(), edit.get3());
        }
        byte[] sealed = seal(message);

        Optional<GroupLayout> decoded = decode(sealed);
        Statistics.label("decoded").collect(decoded.isPresent() ? "accepted" : "rejected");
        assertCanonicalIfAccepted(sealed, decoded);
    }

    @Provide
    Arbitrary<byte[]> bodies() {
        // Small bytes are frequent so that counts and lengths are often plausible and parsing goes deep.
        Arbitrary<Byte> plausible = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.bytes().between((byte) 0, (byte) 8)),
                Tuple.of(3, Arbitraries.of((byte) 'a', (byte) 'b', (byte) '.', (byte) '-')),
                Tuple.of(2, Arbitraries.bytes()));
        return plausible.array(byte[].class).ofMaxSize(120);
    }

    @Provide
    Arbitrary<byte[]> grammarBodies() {
        // Every value stays below 128, so each varint is the value's own byte.
        Arbitrary<Integer> mostlyValid = Arbitraries.frequencyOf(Tuple.of(9, Arbitraries.integers().between(1, 3)),
                Tuple.of(1, Arbitraries.just(0)));
        Arbitrary<String> rests = Arbitraries.frequencyOf(Tuple.of(9, Arbitraries.strings().withChars("ab.").ofMinLength(1).ofMaxLength(3)),
                Tuple.of(1, Arbitraries.just("")));
        Arbitrary<byte[]> topic = Combinators.combine(Arbitraries.frequency(Tuple.of(5, 0), Tuple.of(2, 1), Tuple.of(1, 2)), rests, mostlyValid, mostlyValid).as((shared, rest, tasks, partitions) -> {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    out.write(shared);
                    out.write(rest.length());
                    out.writeBytes(rest.getBytes(StandardCharsets.US_ASCII));
                    out.write(tasks);
                    out.write(partitions);
                    return out.toByteArray();
                });
        return Combinators.combine(Arbitraries.integers().between(0, 2), topic.list().ofMaxSize(4),
                Arbitraries.frequency(Tuple.of(8, 0), Tuple.of(1, -1), Tuple.of(1, 1))).as((epoch, topics, countError) -> {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    out.write(epoch);
                    out.write(Math.max(0, topics.size() + (topics.isEmpty() ? 0 : countError)));
                    topics.forEach(out::writeBytes);
                    return out.toByteArray();
                });
    }

    @Provide
    Arbitrary<List<Tuple.Tuple3<Integer, Integer, Byte>>> edits() {
        Arbitrary<Tuple.Tuple3<Integer, Integer, Byte>> edit = Combinators.combine(
                Arbitraries.integers().between(0, 3), Arbitraries.integers().between(0, 10_000), Arbitraries.bytes()).as(Tuple::of);
        return edit.list().ofMinSize(1).ofMaxSize(4);
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
