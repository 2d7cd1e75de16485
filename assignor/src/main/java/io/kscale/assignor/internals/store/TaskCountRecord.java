package io.kscale.assignor.internals.store;

import io.kscale.assignor.internals.layout.MessageFrame;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.layout.Varints;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * One record of the task count topic: the T chosen for a topic id. Immutable.
 *
 * <p>Key: the topic id in Kafka's string form (22 characters of URL-safe base64, as
 * {@code kafka-topics.sh --describe} prints it), so that an operator can find a topic's record
 * with the console consumer. Value: a {@link MessageFrame} (magic {@code 'T'}, version, CRC32C),
 * whose version 0 body is
 * <pre>
 *   varint  T, 1..{@link TopicLayout#MAX_COUNT}
 *   varint  the partition count when T was chosen, 0..MAX_COUNT (0: unknown)
 *   varint  when T was chosen, epoch ms
 *   varint  n, 0..{@value #MAX_WRITER_BYTES}, then n bytes of UTF-8: who wrote it ("broker 3")
 * </pre>
 * A later version may only append to this body (a reader takes what it knows). Example: T=4 for
 * 8 partitions, chosen at epoch ms 1 by "broker 1" is {@code 54 00 <crc:4> 04 08 01 08 "broker 1"}.
 *
 * <p>Decoding is bounded: a value longer than {@value #MAX_VALUE_BYTES} bytes, or one that is not
 * exactly this format, decodes to empty and never throws.
 */
public final class TaskCountRecord {

    /** The message type byte: 'T' for task count. */
    static final byte MAGIC = 0x54;
    static final int VERSION = MessageFrame.VERSION_0;
    static final int MAX_WRITER_BYTES = 255;
    /** Far above any value this version writes (under 300 bytes): a longer one is not ours. */
    static final int MAX_VALUE_BYTES = 1024;
    /** Kafka's string form of a {@link Uuid}: 16 bytes in unpadded base64. */
    static final int KEY_LENGTH = 22;

    private final int taskCount;
    private final int partitionCount;
    private final long chosenAtMs;
    private final String writer;

    /**
     * @param taskCount      T, 1..{@link TopicLayout#MAX_COUNT}
     * @param partitionCount the partition count when T was chosen, 0 (unknown) to MAX_COUNT
     * @param chosenAtMs     when, epoch ms, at least 0
     * @param writer         who chose it, at most {@value #MAX_WRITER_BYTES} bytes of UTF-8 (longer is cut)
     * @throws IllegalArgumentException if a number is out of its range
     */
    public TaskCountRecord(int taskCount, int partitionCount, long chosenAtMs, String writer) {
        if (taskCount < 1 || taskCount > TopicLayout.MAX_COUNT) {
            throw new IllegalArgumentException("task count " + taskCount + " is outside 1.." + TopicLayout.MAX_COUNT);
        }
        if (partitionCount < 0 || partitionCount > TopicLayout.MAX_COUNT) {
            throw new IllegalArgumentException("partition count " + partitionCount + " is outside 0.."
                    + TopicLayout.MAX_COUNT);
        }
        if (chosenAtMs < 0) {
            throw new IllegalArgumentException("chosen at " + chosenAtMs + " ms is negative");
        }
        this.taskCount = taskCount;
        this.partitionCount = partitionCount;
        this.chosenAtMs = chosenAtMs;
        this.writer = cut(Objects.requireNonNull(writer, "writer"));
    }

    public int taskCount() {
        return taskCount;
    }

    /** @return the partition count when T was chosen, 0 if unknown */
    public int partitionCount() {
        return partitionCount;
    }

    public long chosenAtMs() {
        return chosenAtMs;
    }

    public String writer() {
        return writer;
    }

    /** @return the record key of a topic id */
    public static byte[] key(Uuid topicId) {
        return topicId.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * @param key any bytes, may be null
     * @return the topic id the key names, or empty if it names none (not Kafka's canonical string
     *     form of a non-zero id)
     */
    public static Optional<Uuid> topicId(byte[] key) {
        if (key == null || key.length != KEY_LENGTH) {
            return Optional.empty();
        }
        String text = new String(key, StandardCharsets.US_ASCII);
        try {
            Uuid id = Uuid.fromString(text);
            return id.toString().equals(text) && !Uuid.ZERO_UUID.equals(id) ? Optional.of(id) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** @return the record value */
    public byte[] value() {
        ByteArrayOutputStream out = MessageFrame.start(MAGIC, VERSION);
        Varints.write(out, taskCount);
        Varints.write(out, partitionCount);
        Varints.write(out, chosenAtMs);
        byte[] name = writer.getBytes(StandardCharsets.UTF_8);
        Varints.write(out, name.length);
        out.write(name, 0, name.length);
        ByteBuffer message = MessageFrame.finish(out);
        byte[] value = new byte[message.remaining()];
        message.get(value);
        return value;
    }

    /**
     * @param value any bytes, may be null
     * @return the record, or empty if the bytes are not a well-formed task count record
     */
    public static Optional<TaskCountRecord> decode(byte[] value) {
        if (value == null || value.length > MAX_VALUE_BYTES) {
            return Optional.empty();
        }
        Optional<MessageFrame.Body> opened = MessageFrame.open(ByteBuffer.wrap(value), MAGIC);
        if (opened.isEmpty()) {
            return Optional.empty();
        }
        ByteBuffer in = opened.get().in();
        long taskCount = Varints.read(in, TopicLayout.MAX_COUNT);
        long partitionCount = Varints.read(in, TopicLayout.MAX_COUNT);
        long chosenAtMs = Varints.read(in, Long.MAX_VALUE);
        long writerLength = Varints.read(in, MAX_WRITER_BYTES);
        if (taskCount < 1 || partitionCount < 0 || chosenAtMs < 0 || writerLength < 0
                || writerLength > in.remaining()) {
            return Optional.empty();
        }
        byte[] writer = new byte[(int) writerLength];
        in.get(writer);
        if (!opened.get().endsWell(VERSION)) {
            return Optional.empty();
        }
        return Optional.of(new TaskCountRecord((int) taskCount, (int) partitionCount, chosenAtMs,
                new String(writer, StandardCharsets.UTF_8)));
    }

    /** Cuts a writer name to {@value #MAX_WRITER_BYTES} bytes of UTF-8, on a character boundary. */
    private static String cut(String writer) {
        if (writer.getBytes(StandardCharsets.UTF_8).length <= MAX_WRITER_BYTES) {
            return writer;
        }
        int end = Math.min(writer.length(), MAX_WRITER_BYTES);
        while (writer.substring(0, end).getBytes(StandardCharsets.UTF_8).length > MAX_WRITER_BYTES) {
            end--;
        }
        if (end > 0 && Character.isHighSurrogate(writer.charAt(end - 1))) {
            end--;
        }
        return writer.substring(0, end);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TaskCountRecord)) {
            return false;
        }
        TaskCountRecord other = (TaskCountRecord) o;
        return taskCount == other.taskCount && partitionCount == other.partitionCount
                && chosenAtMs == other.chosenAtMs && writer.equals(other.writer);
    }

    @Override
    public int hashCode() {
        return Objects.hash(taskCount, partitionCount, chosenAtMs, writer);
    }

    @Override
    public String toString() {
        return "T=" + taskCount + " (" + partitionCount + " partitions, by " + writer + " at " + chosenAtMs + " ms)";
    }
}
