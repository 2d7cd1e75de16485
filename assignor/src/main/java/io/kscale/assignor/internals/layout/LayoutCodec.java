package io.kscale.assignor.internals.layout;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The binary form of a {@link GroupLayout}: small enough for every member's subscription userData,
 * stable enough to be stored durably (a compacted topic keyed by group id), and versioned from
 * its first release, like the sticky assignor's {@code USER_DATA_V0}. Only JDK types.
 *
 * <p>Format, versions 0 and 1 (multi-byte integers big-endian; varints unsigned LEB128, see
 * {@link Varints}):
 * <pre>
 *   offset  size   field
 *   0       1      magic 0x4C ('L')
 *   1       1      version: 0
 *   2       4      CRC32C of every byte of the message except these four (offsets 0-1 and 6-end)
 *   6       1-9    epoch, varint
 *           1-3    topic count, varint (at most {@link GroupLayout#MAX_TOPICS})
 *   then per topic, in ascending name order:
 *           1-2    bytes shared with the previous topic's name, varint (0 for the first)
 *           1-2    length of the rest of the name, varint (at least 1)
 *           n      the rest of the name, ASCII ([a-zA-Z0-9._-], at most 249 bytes in all)
 *           1-3    T, varint (1 to {@link TopicLayout#MAX_COUNT})
 *           1-3    partition count, varint (1 to {@link TopicLayout#MAX_COUNT})
 *   version 1 appends, per topic in the same order:
 *           1      flags, varint: 1 a topic id follows, 2 a missing-since time follows, 3 both
 *           8      the fingerprint of the topic id, big-endian, not 0 (flag 1; see {@link TopicLayout})
 *           1-9    missing since, epoch ms, varint (flag 2)
 *   version 2 appends, after the version 1 section (written in full, flags 0 included):
 *           1-3    number of provisional topics, varint (at least 1)
 *           1-3    per provisional topic its index in name order, varint, ascending
 * </pre>
 * A layout is written in version 0 when no topic has an id or a stamp (so it is byte for byte what
 * kscale wrote before topic ids), else in version 1; a version 1 message in which no topic has
 * either is not canonical and is rejected. Why a fingerprint and not the 16-byte id: every member
 * carries the layout in its userData, and the group's metadata record holds every member's
 * (1 MB by default). With the id a numbered topic costs 14 bytes instead of 22, so that
 * record holds about 1.6 times as many topics, at a 2<sup>-64</sup> chance of missing a
 * re-creation.
 * Example: epoch 3 with {@code orders} (T=4, 8 partitions, id fingerprint {@code 0x0102030405060708})
 * is {@code 4C 01 <crc:4> 03 01 | 00 06 "orders" 04 08 | 01 01 02 03 04 05 06 07 08}, 27 bytes.
 *
 * <p>Why front coding of names: topics of one application share long prefixes
 * ({@code payments.eu.orders-0..99}), so a name usually costs two bytes plus its changed tail.
 * Example: epoch 3 with {@code orders} (T=4, 8 partitions) and {@code orders-dlq} (T=4, 4):
 * {@code 4C 00 <crc:4> 03 02 | 00 06 "orders" 04 08 | 06 04 "-dlq" 04 04}, 26 bytes.
 *
 * <p>Compatibility, the contract for every later version: bytes 0-5 keep their meaning, and a
 * new version only appends after the version 0 body. A reader decodes a higher version by that
 * prefix and ignores the rest, so members on mixed versions keep sharing T during a rolling
 * upgrade; an incompatible change needs a new magic byte, which old readers reject. A reader of
 * version 0 (kscale before topic ids) reads a version 1 message as the layout without ids and
 * stamps, and reports it so; {@link LayoutMerge} takes that for the same layout. A version 1
 * reader (kscale before issue 17) reads a version 2 message without its provisional marks. A
 * message of a version this class knows with bytes after its body is rejected.
 *
 * <p>Untrusted input: {@link #decode(ByteBuffer)} never throws for any bytes. The checksum
 * rejects accidental corruption (every single-bit flip, every truncation); the bounds on every
 * count and length, each checked against the bytes left before anything is allocated, keep
 * hostile input from allocating more than a few times its own size. Decoding is strict: a message
 * that decodes has exactly one encoding, so re-encoding gives back the same bytes.
 */
public final class LayoutCodec {

    static final byte MAGIC = 0x4C;
    static final byte VERSION_0 = MessageFrame.VERSION_0;
    static final byte VERSION_1 = MessageFrame.VERSION_1;
    /** Adds the provisional marks (issue 17). */
    static final byte VERSION_2 = 2;
    /** The newest version this class reads in full and writes. */
    static final byte VERSION = VERSION_2;
    private static final int HAS_ID = 1;
    private static final int HAS_MISSING_SINCE = 2;
    static final int HEADER_SIZE = MessageFrame.HEADER_SIZE;
    static final int CRC_OFFSET = MessageFrame.CRC_OFFSET;
    /** The fewest bytes a topic takes: shared prefix, rest length, one name byte, T, count. */
    private static final int MIN_TOPIC_SIZE = 5;

    private LayoutCodec() {
    }

    /**
     * Encodes a layout in the current version.
     *
     * @param layout the layout
     * @return a new heap buffer holding exactly the message, positioned at 0
     */
    public static ByteBuffer encode(GroupLayout layout) {
        boolean provisional = layout.topics().stream().anyMatch(TopicLayout::isProvisional);
        boolean identified = provisional || layout.topics().stream()
                .anyMatch(topic -> topic.topicId().isPresent() || topic.missingSince().isPresent());
        ByteArrayOutputStream out = MessageFrame.start(MAGIC, provisional ? VERSION_2 : identified ? VERSION_1 : VERSION_0);
        Varints.write(out, layout.epoch());
        Varints.write(out, layout.byName().size());
        byte[] previous = new byte[0];
        for (TopicLayout topic : layout.byName().values()) {
            byte[] name = topic.topic().getBytes(StandardCharsets.US_ASCII);
            int shared = sharedPrefix(previous, name);
            Varints.write(out, shared);
            Varints.write(out, name.length - shared);
            out.write(name, shared, name.length - shared);
            Varints.write(out, topic.taskCount());
            Varints.write(out, topic.partitionCount());
            previous = name;
        }
        if (identified) {
            for (TopicLayout topic : layout.topics()) {
                writeIdentity(out, topic);
            }
        }
        if (provisional) {
            List<TopicLayout> topics = layout.topics();
            Varints.write(out, topics.stream().filter(TopicLayout::isProvisional).count());
            for (int i = 0; i < topics.size(); i++) {
                if (topics.get(i).isProvisional()) {
                    Varints.write(out, i);
                }
            }
        }
        return MessageFrame.finish(out);
    }

    private static void writeIdentity(ByteArrayOutputStream out, TopicLayout topic) {
        int flags = (topic.topicId().isPresent() ? HAS_ID : 0) | (topic.missingSince().isPresent() ? HAS_MISSING_SINCE : 0);
        Varints.write(out, flags);
        if (topic.topicId().isPresent()) {
            long id = topic.topicId().getAsLong();
            for (int shift = 56; shift >= 0; shift -= 8) {
                out.write((int) (id >>> shift));
            }
        }
        if (topic.missingSince().isPresent()) {
            Varints.write(out, topic.missingSince().getAsLong());
        }
    }

    /**
     * Decodes a layout from any bytes: subscription userData from a member on any version,
     * another assignor's data, a stored record, garbage.
     *
     * @param buffer the message, from its position to its limit, in any version (a later one is
     *               read as far as this one knows); not modified, its position
     *               does not move; may be null
     * @return the layout, or empty if the bytes are not a well-formed layout message of a known
     *         magic byte; never throws
     */
    public static Optional<GroupLayout> decode(ByteBuffer buffer) {
        return decode(buffer, VERSION);
    }

    /**
     * Decodes as a reader that knows the versions up to {@code readerVersion}: with
     * {@link #VERSION_1}, exactly as kscale did before provisional marks (tests).
     */
    static Optional<GroupLayout> decode(ByteBuffer buffer, int readerVersion) {
        Optional<MessageFrame.Body> opened = MessageFrame.open(buffer, MAGIC);
        if (opened.isEmpty()) {
            return Optional.empty();
        }
        MessageFrame.Body body = opened.get();
        GroupLayout layout = readBody(body.in());
        if (layout != null && body.version() >= VERSION_1 && readerVersion >= VERSION_1) {
            layout = readIdentities(layout, body.in(), body.version() == VERSION_1);
        }
        if (layout != null && body.version() >= VERSION_2 && readerVersion >= VERSION_2) {
            layout = readProvisional(layout, body.in());
        }
        if (layout == null || !body.endsWell(readerVersion)) {
            return Optional.empty();
        }
        return Optional.of(layout);
    }

    /**
     * Reads the version 2 section: which topics are provisional.
     *
     * @return the layout with them marked, or null if malformed (none, out of order or out of range)
     */
    private static GroupLayout readProvisional(GroupLayout layout, ByteBuffer in) {
        List<TopicLayout> topics = layout.topics();
        long count = Varints.read(in, topics.size());
        if (count < 1) {
            return null;
        }
        SortedMap<String, TopicLayout> marked = new TreeMap<>(layout.byName());
        long previous = -1;
        for (long i = 0; i < count; i++) {
            long index = Varints.read(in, topics.size() - 1L);
            if (index <= previous) {
                return null;
            }
            TopicLayout topic = topics.get((int) index);
            marked.put(topic.topic(), topic.withProvisional(true));
            previous = index;
        }
        return GroupLayout.ofSorted(layout.epoch(), marked);
    }

    /**
     * Reads the version 1 section: each topic's id and stamp.
     *
     * @param exactlyVersion1 whether the message is version 1 (not later), which is written only
     *                        when some topic has an id or a stamp
     * @return the layout with them, or null if malformed
     */
    private static GroupLayout readIdentities(GroupLayout layout, ByteBuffer in, boolean exactlyVersion1) {
        SortedMap<String, TopicLayout> topics = new TreeMap<>();
        boolean any = false;
        for (TopicLayout topic : layout.topics()) {
            long flags = Varints.read(in, HAS_ID | HAS_MISSING_SINCE);
            if (flags < 0) {
                return null;
            }
            TopicLayout read = topic;
            if ((flags & HAS_ID) != 0) {
                if (in.remaining() < Long.BYTES) {
                    return null;
                }
                long id = in.getLong();
                if (id == TopicLayout.NO_ID) {
                    return null;
                }
                read = read.withTopicId(id);
            }
            if ((flags & HAS_MISSING_SINCE) != 0) {
                long since = Varints.read(in, Long.MAX_VALUE);
                if (since < 0) {
                    return null;
                }
                read = read.withMissingSince(since);
            }
            any |= flags != 0;
            topics.put(read.topic(), read);
        }
        if (exactlyVersion1 && !any) {
            return null; // the writer uses version 0 then
        }
        return GroupLayout.ofSorted(layout.epoch(), topics);
    }

    /** @return the layout, or null if the body is malformed */
    private static GroupLayout readBody(ByteBuffer in) {
        long epoch = Varints.read(in, Long.MAX_VALUE);
        long count = Varints.read(in, GroupLayout.MAX_TOPICS);
        if (epoch < 0 || count < 0 || count > in.remaining() / MIN_TOPIC_SIZE) {
            return null;
        }
        SortedMap<String, TopicLayout> topics = new TreeMap<>();
        byte[] previous = new byte[0];
        String previousName = null;
        for (long i = 0; i < count; i++) {
            byte[] name = readName(in, previous);
            if (name == null) {
                return null;
            }
            String topic = new String(name, StandardCharsets.US_ASCII);
            long taskCount = Varints.read(in, TopicLayout.MAX_COUNT);
            long partitionCount = Varints.read(in, TopicLayout.MAX_COUNT);
            if (!TopicLayout.isLegalName(topic) || (previousName != null && topic.compareTo(previousName) <= 0)
                    || taskCount < 1 || partitionCount < 1) {
                return null;
            }
            topics.put(topic, TopicLayout.of(topic, (int) taskCount, (int) partitionCount));
            previous = name;
            previousName = topic;
        }
        return GroupLayout.ofSorted(epoch, topics);
    }

    /** @return the name's bytes, legal characters only, front-coded in the one canonical way; or null */
    private static byte[] readName(ByteBuffer in, byte[] previous) {
        long shared = Varints.read(in, previous.length);
        long rest = Varints.read(in, TopicLayout.MAX_NAME_LENGTH);
        if (shared < 0 || rest < 1 || shared + rest > TopicLayout.MAX_NAME_LENGTH || rest > in.remaining()) {
            return null;
        }
        byte[] name = new byte[(int) (shared + rest)];
        System.arraycopy(previous, 0, name, 0, (int) shared);
        in.get(name, (int) shared, (int) rest);
        for (int i = (int) shared; i < name.length; i++) {
            if (!TopicLayout.isLegalChar(name[i])) {
                return null;
            }
        }
        if (shared < previous.length && previous[(int) shared] == name[(int) shared]) {
            return null; // the writer always shares the longest common prefix
        }
        return name;
    }

    private static int sharedPrefix(byte[] a, byte[] b) {
        int max = Math.min(a.length, b.length);
        int i = 0;
        while (i < max && a[i] == b[i]) {
            i++;
        }
        return i;
    }
}
