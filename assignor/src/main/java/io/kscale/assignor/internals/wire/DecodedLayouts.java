package io.kscale.assignor.internals.wire;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.layout.MessageFrame;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The layouts decoded during one rebalance, by their bytes. Every member of a group reports the
 * same layout (a few bytes per topic), so the leader decodes each distinct one once and the
 * members' reports share the instance: 2,000 members of 1,000 topics would otherwise decode the
 * same 7 KB 2,000 times. Not thread-safe; one per {@code assign()}.
 */
public final class DecodedLayouts {

    private final Map<LayoutBytes, Optional<GroupLayout>> byBytes = new HashMap<>();

    /**
     * @param bytes an encoded layout, from position to limit; not modified
     * @return the layout, or empty if the bytes are not one (see {@link LayoutCodec#decode})
     */
    public Optional<GroupLayout> decode(ByteBuffer bytes) {
        return byBytes.computeIfAbsent(new LayoutBytes(bytes), key -> LayoutCodec.decode(key.bytes));
    }

    /**
     * Bytes as a map key, hashed by the checksum their frame already carries: hashing the bytes
     * themselves ({@link ByteBuffer#hashCode()}, a byte at a time) was 6% of a leader's
     * {@code assign()} at 1,000 members. Equality still compares every byte, so a wrong or forged
     * checksum costs a collision, never a wrong layout.
     */
    private static final class LayoutBytes {
        private final ByteBuffer bytes;
        private final int hash;

        public LayoutBytes(ByteBuffer bytes) {
            this.bytes = bytes;
            this.hash = bytes.remaining() >= MessageFrame.HEADER_SIZE
                    ? bytes.getInt(bytes.position() + MessageFrame.CRC_OFFSET) : bytes.hashCode();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof LayoutBytes && bytes.equals(((LayoutBytes) o).bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
