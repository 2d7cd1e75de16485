package io.kscale.partitioner;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The hash of Kafka's default partitioning of keyed records, {@code toPositive(murmur2(keyBytes)) %
 * numPartitions}: 32-bit MurmurHash2 with Kafka's seed {@code 0x9747b28c}, bit for bit. Kafka's
 * own copy sits in {@code org.apache.kafka.common.utils.Utils}, which is not part of Kafka's public
 * API (it carries no {@code @InterfaceAudience.Public}, and may change in any release), so kscale
 * keeps this one; {@code Murmur2Test} checks it against Kafka's on every client version the build
 * tests.
 */
final class Murmur2 {

    private static final int SEED = 0x9747b28c;
    private static final int M = 0x5bd1e995;
    private static final int R = 24;
    /** Reads 4 bytes as a little-endian int in one access, as murmur2 takes them: one bounds check, not four. */
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private Murmur2() {
    }

    /**
     * The 32-bit murmur2 hash of {@code data}, as Kafka's producer computes it.
     *
     * @param data the bytes to hash
     * @return the hash, any int
     */
    static int hash(byte[] data) {
        int length = data.length;
        int h = SEED ^ length;
        int whole = length & ~3;
        for (int i = 0; i < whole; i += 4) {
            int k = (int) INT_LE.get(data, i);
            k *= M;
            k ^= k >>> R;
            k *= M;
            h *= M;
            h ^= k;
        }
        // The last one to three bytes, fall-through as in the reference implementation.
        switch (length & 3) {
            case 3:
                h ^= (data[whole + 2] & 0xff) << 16;
                // fall through
            case 2:
                h ^= (data[whole + 1] & 0xff) << 8;
                // fall through
            case 1:
                h ^= data[whole] & 0xff;
                h *= M;
                break;
            default:
                break;
        }
        h ^= h >>> 13;
        h *= M;
        h ^= h >>> 15;
        return h;
    }

    /**
     * The partition of a keyed record: {@code toPositive(murmur2(keyBytes)) % partitionCount}, where
     * {@code toPositive} clears the sign bit (not {@code Math.abs}, which stays negative for
     * {@code Integer.MIN_VALUE}).
     *
     * @param keyBytes the serialized key
     * @param partitionCount the topic's partition count, at least 1
     * @return a partition in {@code [0, partitionCount)}
     */
    static int partition(byte[] keyBytes, int partitionCount) {
        return (hash(keyBytes) & 0x7fffffff) % partitionCount;
    }
}
