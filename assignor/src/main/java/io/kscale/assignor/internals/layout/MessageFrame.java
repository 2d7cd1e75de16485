package io.kscale.assignor.internals.layout;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The frame of every kscale message ({@link LayoutCodec}'s layouts, the assignor's userData):
 * a magic byte naming the message type, a version byte, then a CRC32C of everything but the
 * checksum itself, then the body. Every later version only appends to the body of the version
 * before it, so a member reads what it knows of a newer message and ignores the rest; a message
 * that fails the checksum or has an unknown magic byte is not ours and is ignored.
 *
 * <p>Public only so that the assignor's userData messages share it; not part of kscale's API.
 */
public final class MessageFrame {

    public static final byte VERSION_0 = 0;
    public static final byte VERSION_1 = 1;
    public static final int HEADER_SIZE = 6;
    /** Where the 4-byte checksum sits, after the magic and version bytes. */
    public static final int CRC_OFFSET = 2;

    private MessageFrame() {
    }

    /** Starts a message: header with a zero checksum, to be filled in by {@link #finish}. */
    public static ByteArrayOutputStream start(byte magic, int version) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        out.write(magic);
        out.write(version);
        for (int i = 0; i < 4; i++) {
            out.write(0);
        }
        return out;
    }

    /** @return the finished message, checksum filled in, positioned at 0 */
    public static ByteBuffer finish(ByteArrayOutputStream out) {
        ByteBuffer message = ByteBuffer.wrap(out.toByteArray());
        message.putInt(CRC_OFFSET, checksum(message));
        return message;
    }

    /**
     * Opens a message of the given type.
     *
     * @param buffer any bytes, from position to limit; not modified; may be null
     * @return the body (a new buffer positioned after the header) and the version, or empty if the
     *     bytes are not a message of this magic byte with a valid checksum
     */
    public static Optional<Body> open(ByteBuffer buffer, byte magic) {
        if (buffer == null || buffer.remaining() < HEADER_SIZE) {
            return Optional.empty();
        }
        ByteBuffer message = buffer.slice().order(ByteOrder.BIG_ENDIAN);
        if (message.get(0) != magic || message.getInt(CRC_OFFSET) != checksum(message)) {
            return Optional.empty();
        }
        int version = message.get(1) & 0xFF;
        message.position(HEADER_SIZE);
        return Optional.of(new Body(version, message));
    }

    /** CRC32C over the whole message but the checksum field, so magic and version are covered. */
    private static int checksum(ByteBuffer message) {
        CRC32C crc = new CRC32C();
        ByteBuffer part = message.duplicate();
        part.position(0).limit(CRC_OFFSET);
        crc.update(part);
        part.limit(message.limit()).position(HEADER_SIZE);
        crc.update(part);
        return (int) crc.getValue();
    }

    /** An opened message: its version and its body. */
    public static final class Body {
        private final int version;
        private final ByteBuffer in;

        Body(int version, ByteBuffer in) {
            this.version = version;
            this.in = in;
        }

        /** @return the message's version byte */
        public int version() {
            return version;
        }

        /** @return the body, positioned at what has not been read yet */
        public ByteBuffer in() {
            return in;
        }

        /** Reads a length-prefixed nested message (a layout), or null if malformed. */
        public ByteBuffer readNested() {
            long length = Varints.read(in, in.remaining());
            // The bound above counted the length's own bytes: check again what is left after them.
            if (length < 0 || length > in.remaining()) {
                return null;
            }
            ByteBuffer nested = in.slice();
            nested.limit((int) length);
            in.position(in.position() + (int) length);
            return nested;
        }

        /**
         * Whether the body ended where a reader of {@code readerVersion} expects: a message of that
         * version (or older) has nothing after what the reader read; a newer one may append.
         *
         * @param readerVersion the newest version the reader knows, whose fields it has read
         */
        public boolean endsWell(int readerVersion) {
            return version > readerVersion || !in.hasRemaining();
        }
    }

    /** Writes a nested message with its length in front. */
    public static void writeNested(ByteArrayOutputStream out, ByteBuffer nested) {
        Varints.write(out, nested.remaining());
        out.write(nested.array(), nested.arrayOffset() + nested.position(), nested.remaining());
    }
}
