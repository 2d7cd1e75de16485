package io.kscale.assignor.internals.layout;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/**
 * Unsigned LEB128 varints, as in protobuf and Kafka's record format: 7 bits per byte, low
 * group first, the high bit set on every byte but the last. Small numbers (most epochs, task
 * and partition counts) take one or two bytes instead of four or eight.
 *
 * <p>Reading is strict so that a message has exactly one encoding: a value must fit the bound
 * the caller gives, and must use the fewest bytes (no trailing {@code 0x80 0x00} padding).
 * Malformed input gives -1, never an exception.
 *
 * <p>Public only so that the assignor's own userData messages share it; not part of kscale's API.
 */
public final class Varints {

    private Varints() {
    }

    /**
     * Writes one varint.
     *
     * @param out where to write
     * @param value the value, at least 0
     * @throws IllegalArgumentException if the value is negative
     */
    public static void write(ByteArrayOutputStream out, long value) {
        if (value < 0) {
            throw new IllegalArgumentException("varints here are unsigned; got " + value);
        }
        while ((value & ~0x7FL) != 0) {
            out.write((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
    }

    /** @return the number of bytes {@link #write} uses for a value at least 0 */
    public static int size(long value) {
        int size = 1;
        while ((value & ~0x7FL) != 0) {
            value >>>= 7;
            size++;
        }
        return size;
    }

    /**
     * Reads one varint.
     *
     * @param in the input, advanced past the varint when it is well formed
     * @param max the largest value allowed, at least 0
     * @return the value, or -1 if the input ends early, the encoding is longer than needed, or
     *         the value exceeds {@code max}
     */
    public static long read(ByteBuffer in, long max) {
        long value = 0;
        for (int shift = 0; shift < 63; shift += 7) {
            if (!in.hasRemaining()) {
                return -1;
            }
            int b = in.get() & 0xFF;
            if (shift > 0 && b == 0) {
                return -1;
            }
            value |= (long) (b & 0x7F) << shift;
            if (value > max || value < 0) {
                return -1;
            }
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        return -1;
    }
}
