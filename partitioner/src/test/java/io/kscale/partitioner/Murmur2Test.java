package io.kscale.partitioner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * kscale's murmur2 is Kafka's, bit for bit: a key placed by {@link UniformStickyBytesPartitioner}
 * goes where Kafka's default partitioner puts it. Compared with the {@code Utils.murmur2} of the
 * kafka-clients on the classpath, so that client-compat's matrix checks it on every client version
 * it runs.
 */
class Murmur2Test {

    private static final int RANDOM_KEYS = 1_000_000;
    private static final int LONGEST_RANDOM_KEY = 100;

    @Test
    void shouldHashAMillionRandomKeysLikeKafka() {
        long seed = StickyFixtures.seed("murmur2 keys");
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < RANDOM_KEYS; i++) {
            byte[] key = new byte[random.nextInt(LONGEST_RANDOM_KEY + 1)];
            random.nextBytes(key);
            int expected = Utils.murmur2(key);
            if (Murmur2.hash(key) != expected) {
                // One assertion per key would dominate the run; describe only a mismatch.
                assertThat(Murmur2.hash(key)).as("key %d of seed %d, %d bytes", i, seed, key.length).isEqualTo(expected);
            }
        }
    }

    @Test
    void shouldHashTheEdgeCasesLikeKafka() {
        List<byte[]> keys = new ArrayList<>();
        keys.add(new byte[0]);
        for (int length = 1; length <= 8; length++) {
            // Every tail length (0 to 3 bytes after the 4-byte blocks), with bytes below and at or
            // above 0x80, where a missing mask would sign-extend.
            keys.add(filled(length, (byte) 0x00));
            keys.add(filled(length, (byte) 0x7f));
            keys.add(filled(length, (byte) 0x80));
            keys.add(filled(length, (byte) 0xff));
            byte[] counting = new byte[length];
            for (int i = 0; i < length; i++) {
                counting[i] = (byte) (0x7e + i);
            }
            keys.add(counting);
        }
        keys.add("21".getBytes(StandardCharsets.UTF_8));
        keys.add("a key of some length".getBytes(StandardCharsets.UTF_8));
        for (byte[] key : keys) {
            assertThat(Murmur2.hash(key)).as("murmur2 of %d bytes %s", key.length, Arrays.toString(key))
                    .isEqualTo(Utils.murmur2(key));
            for (int partitionCount : new int[] {1, 2, 7, 16, 1000}) {
                assertThat(Murmur2.partition(key, partitionCount))
                        .isEqualTo(Utils.toPositive(Utils.murmur2(key)) % partitionCount);
            }
        }
    }

    private static byte[] filled(int length, byte value) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, value);
        return bytes;
    }
}
