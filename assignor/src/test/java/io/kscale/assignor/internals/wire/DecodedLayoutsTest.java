package io.kscale.assignor.internals.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.layout.MessageFrame;
import io.kscale.assignor.internals.layout.TopicLayout;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecodedLayoutsTest {

    private static final GroupLayout ORDERS = GroupLayout.of(3, List.of(TopicLayout.of("orders", 4, 8)));
    private static final GroupLayout PAYMENTS = GroupLayout.of(3, List.of(TopicLayout.of("payments", 4, 8)));

    @Test
    void shouldDecodeEqualBytesOnceAndShareTheLayout() {
        DecodedLayouts layouts = new DecodedLayouts();

        GroupLayout first = layouts.decode(copy(LayoutCodec.encode(ORDERS))).orElseThrow();
        GroupLayout second = layouts.decode(copy(LayoutCodec.encode(ORDERS))).orElseThrow();

        assertThat(first).isEqualTo(ORDERS).isSameAs(second);
    }

    @Test
    void shouldTellLayoutsApartWhoseFramesClaimTheSameChecksum() {
        DecodedLayouts layouts = new DecodedLayouts();
        ByteBuffer orders = LayoutCodec.encode(ORDERS);
        ByteBuffer forged = copy(LayoutCodec.encode(PAYMENTS));
        forged.putInt(MessageFrame.CRC_OFFSET, orders.getInt(MessageFrame.CRC_OFFSET));

        assertThat(layouts.decode(orders)).contains(ORDERS);
        assertThat(layouts.decode(forged)).as("a forged checksum fails to decode, it never aliases").isEmpty();
        assertThat(layouts.decode(LayoutCodec.encode(PAYMENTS))).contains(PAYMENTS);
    }

    @Test
    void shouldIgnoreBytesTooShortForAFrame() {
        assertThat(new DecodedLayouts().decode(ByteBuffer.wrap(new byte[] {1, 2}))).isEmpty();
    }

    /** A buffer with its own array, at a non-zero offset, as the consumer's deserializer hands them out. */
    private static ByteBuffer copy(ByteBuffer bytes) {
        ByteBuffer padded = ByteBuffer.allocate(bytes.remaining() + 3);
        padded.position(3);
        padded.put(bytes.duplicate());
        padded.position(3);
        return padded.slice();
    }
}
