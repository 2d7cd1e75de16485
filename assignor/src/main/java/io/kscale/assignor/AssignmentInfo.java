package io.kscale.assignor;

import io.kscale.assignor.layout.GroupLayout;
import io.kscale.assignor.layout.LayoutCodec;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * What the leader sends every member in its assignment userData: the group's layout after this
 * rebalance, so every member carries it into its next subscription and any member can become the
 * next leader without the store.
 *
 * <p>Format, version 0 (header: {@link UserDataEnvelope}):
 * <pre>
 *   header   6      magic 0x41 ('A'), version 0, CRC32C
 *   1-5             layout length, varint; then the layout ({@link LayoutCodec})
 * </pre>
 */
final class AssignmentInfo {

    static final byte MAGIC = 0x41;

    private AssignmentInfo() {
    }

    static ByteBuffer encode(GroupLayout layout) {
        ByteArrayOutputStream out = UserDataEnvelope.start(MAGIC);
        UserDataEnvelope.writeNested(out, LayoutCodec.encode(layout));
        return UserDataEnvelope.finish(out);
    }

    /**
     * @param buffer assignment userData; may be null; not modified
     * @return the layout, or empty if the bytes are not a well-formed message; never throws
     */
    static Optional<GroupLayout> decode(ByteBuffer buffer) {
        Optional<UserDataEnvelope.Body> opened = UserDataEnvelope.open(buffer, MAGIC);
        if (opened.isEmpty()) {
            return Optional.empty();
        }
        ByteBuffer layoutBytes = opened.get().readNested();
        if (layoutBytes == null) {
            return Optional.empty();
        }
        Optional<GroupLayout> layout = LayoutCodec.decode(layoutBytes);
        return opened.get().endsWell() ? layout : Optional.empty();
    }
}
