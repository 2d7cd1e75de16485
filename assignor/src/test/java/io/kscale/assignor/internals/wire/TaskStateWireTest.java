package io.kscale.assignor.internals.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.TaskRef;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.layout.MessageFrame;
import io.kscale.assignor.internals.layout.TopicLayout;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * Versions 0 and 1 of {@link MemberReport} and {@link AssignmentInfo}: version 1 only appends, so
 * each side reads the other's messages (a rolling upgrade has both); malformed version 1 parts
 * never throw; and the size of the lags a member reports.
 */
class TaskStateWireTest {

    private static final String ORDERS = "orders";
    private static final String PAYMENTS = "payments";
    private static final GroupLayout LAYOUT = GroupLayout.of(3, List.of(TopicLayout.of(ORDERS, 4, 8), TopicLayout.of(PAYMENTS, 4, 4)));
    /** Seed of the randomised tests; a failure message names the case. */
    private static final long SEED = 20_261_130L;

    private static MemberReport statefulReport() {
        Map<String, Map<Integer, Long>> lags = new TreeMap<>();
        lags.put(ORDERS, Map.of(0, 0L, 2, 12_345L, 3, 1L << 40));
        return new MemberReport(5, Map.of(ORDERS, List.of(1, 3)), LAYOUT, true, MemberReport.TopicLags.inLayout(LAYOUT, lags));
    }

    private static ByteBuffer assignmentWithWarmups() {
        return AssignmentInfo.encode(LayoutCodec.encode(LAYOUT), LAYOUT, OptionalLong.of(1_700_000_600_000L),
                List.of(List.of(ORDERS, PAYMENTS)), List.of(TaskRef.of(List.of(ORDERS, PAYMENTS), 4, 3)),
                AssignmentInfo.VERSION);
    }

    /** The body of a message (after the 6-byte header). */
    private static byte[] body(ByteBuffer message) {
        byte[] bytes = Utils.toArray(message.duplicate());
        return java.util.Arrays.copyOfRange(bytes, MessageFrame.HEADER_SIZE, bytes.length);
    }

    /** A message with a valid checksum around any body. */
    private static ByteBuffer message(byte magic, int version, byte[] body) {
        ByteArrayOutputStream out = MessageFrame.start(magic, version);
        out.write(body, 0, body.length);
        return MessageFrame.finish(out);
    }

    // ---- MemberReport ----

    @Test
    void shouldRoundTripAVersion1ReportWithLags() {
        MemberReport decoded = MemberReport.decode(statefulReport().encode()).orElseThrow();
        assertThat(decoded.stateful()).isTrue();
        assertThat(decoded.generation()).isEqualTo(5);
        assertThat(decoded.ownedTasks()).containsOnlyKeys(ORDERS);
        assertThat(decoded.lags()).containsOnlyKeys(ORDERS);
        assertThat(decoded.lags().get(ORDERS).taskCount).isEqualTo(4);
        assertThat(decoded.lags().get(ORDERS).lags).containsExactly(Map.entry(0, 0L), Map.entry(2, 12_345L), Map.entry(3, 1L << 40));
    }

    @Test
    void shouldReadAVersion1ReportByTheVersion0RulesAsItsVersion0Fields() {
        ByteBuffer v1 = statefulReport().encode();
        assertThat(v1.get(1)).as("version byte").isEqualTo((byte) 1);

        MemberReport readByOldMember = MemberReport.decode(v1, new DecodedLayouts(), MessageFrame.VERSION_0).orElseThrow();

        assertThat(readByOldMember.generation()).isEqualTo(5);
        assertThat(readByOldMember.ownedTasks()).isEqualTo(statefulReport().ownedTasks());
        assertThat(readByOldMember.layout()).isEqualTo(LAYOUT);
        assertThat(readByOldMember.stateful()).isFalse();
        assertThat(readByOldMember.lags()).isEmpty();
        assertThat(body(statefulReport().encode(MessageFrame.VERSION_0)))
                .as("version 1 is the version 0 body plus an appended part").isEqualTo(
                        java.util.Arrays.copyOf(body(v1), body(statefulReport().encode(MessageFrame.VERSION_0)).length));
    }

    @Test
    void shouldAcceptAVersion0ReportFromAnOldMemberAsStateless() {
        ByteBuffer v0 = statefulReport().encode(MessageFrame.VERSION_0);
        assertThat(v0.get(1)).isEqualTo((byte) 0);

        MemberReport report = MemberReport.decode(v0).orElseThrow();

        assertThat(report.generation()).isEqualTo(5);
        assertThat(report.owned(ORDERS, 3)).isTrue();
        assertThat(report.stateful()).isFalse();
        assertThat(report.lags()).isEmpty();
    }

    @Test
    void shouldReadTheVersion1PartOfALaterVersionAndRejectTrailingBytesInVersion1() {
        byte[] v1Body = body(statefulReport().encode());
        byte[] longer = java.util.Arrays.copyOf(v1Body, v1Body.length + 2);
        longer[v1Body.length] = 0x7F;

        assertThat(MemberReport.decode(message(MemberReport.MAGIC, 2, longer)))
                .as("a version 2 reader appended something: read the version 1 fields")
                .hasValueSatisfying(report -> assertThat(report.lags()).isEqualTo(statefulReport().lags()));
        assertThat(MemberReport.decode(message(MemberReport.MAGIC, 1, longer))).as("version 1 has nothing after its body").isEmpty();
    }

    @Test
    void shouldRejectUnknownFlagsInVersion1() {
        MemberReport stateless = new MemberReport(1, Map.of(), LAYOUT, false, Map.of());
        byte[] body = body(stateless.encode());
        assertThat(body[body.length - 3]).as("the flags").isEqualTo((byte) 0);
        body[body.length - 3] = 2;
        assertThat(MemberReport.decode(message(MemberReport.MAGIC, 1, body))).isEmpty();
        assertThat(MemberReport.decode(message(MemberReport.MAGIC, 2, body))).as("a later version may define flag 2").isPresent();
    }

    @Test
    void shouldLeaveOutLagsOfTasksOutsideTAndOfTopicsWhoseTChanged() {
        Map<String, MemberReport.TopicLags> lags = new TreeMap<>();
        lags.put(ORDERS, new MemberReport.TopicLags(4, Map.of(4, 1L, 1, 2L, 2, -1L)));
        lags.put(PAYMENTS, new MemberReport.TopicLags(2, Map.of(0, 1L))); // T was 2 before a rebase
        MemberReport report = MemberReport.decode(new MemberReport(0, Map.of(), LAYOUT, true, lags).encode()).orElseThrow();
        assertThat(report.lags()).containsOnlyKeys(ORDERS);
        assertThat(report.lags().get(ORDERS).lags).containsOnlyKeys(1);
    }

    @Test
    void shouldNameTheTopicsOfLagsThatAJustStartedMemberCannotIndex() {
        Map<String, MemberReport.TopicLags> lags = new TreeMap<>();
        lags.put(ORDERS, new MemberReport.TopicLags(4, Map.of(3, 100L)));
        lags.put(PAYMENTS, new MemberReport.TopicLags(4, Map.of(0, 7L, 2, 9L)));
        GroupLayout unknown = GroupLayout.empty();
        MemberReport fresh = new MemberReport(-1, Map.of(), unknown, true, lags);

        MemberReport decoded = MemberReport.decode(fresh.encode()).orElseThrow();

        assertThat(decoded.lags()).isEqualTo(lags);
        MemberReport mixed = MemberReport.decode(new MemberReport(2, Map.of(), GroupLayout.of(1,
                List.of(TopicLayout.of(ORDERS, 4, 4))), true, lags).encode()).orElseThrow();
        assertThat(mixed.lags()).as("orders by index, payments by name").isEqualTo(lags);
        byte[] prefix = body(fresh.encode(MessageFrame.VERSION_0));
        assertThat(MemberReport.decode(message(MemberReport.MAGIC, 1, named(prefix, ORDERS, PAYMENTS)))).isPresent();
        assertThat(MemberReport.decode(message(MemberReport.MAGIC, 1, named(prefix, PAYMENTS, ORDERS))))
                .as("named topics must be in ascending order").isEmpty();
        assertThat(MemberReport.decode(message(MemberReport.MAGIC, 1, named(prefix, ORDERS, ORDERS)))).isEmpty();
        assertThat(MemberReport.decode(message(MemberReport.MAGIC, 1, named(prefix, "bad topic")))).isEmpty();
    }

    /** A version 1 body: the prefix, flags 1, no layout topics, then each topic named with T = 4 and lag 1 on task 0. */
    private static byte[] named(byte[] prefix, String... topics) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(prefix, 0, prefix.length);
        out.write(1);
        out.write(0);
        out.write(topics.length);
        for (String topic : topics) {
            out.write(topic.length());
            out.write(topic.getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, topic.length());
            out.write(4);
            out.write(1);
            out.write(0);
            out.write(1);
        }
        return out.toByteArray();
    }

    /**
     * The size of a stateful member's subscription userData with lags for 1,000 tasks: one topic
     * of 1,000 partitions (T = 1,000), lags from 0 to 199,999 records.
     */
    @Test
    void shouldReportLagsOf1000TasksInAbout5BytesEach() {
        GroupLayout layout = GroupLayout.of(1, List.of(TopicLayout.of(ORDERS, 1000, 1000)));
        Map<Integer, Long> lags = new TreeMap<>();
        SplittableRandom random = new SplittableRandom(SEED);
        long expectedLagBytes = 0;
        for (int task = 0; task < 1000; task++) {
            long lag = random.nextLong(200_000);
            lags.put(task, lag);
            expectedLagBytes += io.kscale.assignor.internals.layout.Varints.size(task) + io.kscale.assignor.internals.layout.Varints.size(lag);
        }
        MemberReport withLags = new MemberReport(7, Map.of(ORDERS, List.of(1, 2, 3)), layout, true,
                Map.of(ORDERS, new MemberReport.TopicLags(1000, lags)));
        int v0 = withLags.encode(MessageFrame.VERSION_0).remaining();
        int v1 = withLags.encode().remaining();
        // flags, topic count, topic index, task count (2 bytes for 1,000), the pairs, named topic count
        long section = 1 + 1 + 1 + 2 + expectedLagBytes + 1;
        System.out.printf("userData of a member reporting lags for 1,000 tasks: %d bytes (version 0 part %d, lag "
                + "section %d, %.2f bytes per task)%n", v1, v0, v1 - v0, (v1 - v0) / 1000.0);
        assertThat(v1 - v0).isEqualTo(section);
        assertThat(v1).isLessThan(5_500);
        assertThat(MemberReport.decode(withLags.encode()).orElseThrow().lags().get(ORDERS).lags).isEqualTo(lags);
    }

    // ---- AssignmentInfo ----

    @Test
    void shouldRoundTripAVersion1AssignmentAsInTheClassComment() {
        ByteBuffer encoded = assignmentWithWarmups();
        AssignmentInfo info = AssignmentInfo.decode(encoded).orElseThrow();
        assertThat(info.layout()).isEqualTo(LAYOUT);
        assertThat(info.followUpDeadline()).hasValue(1_700_000_600_000L);
        assertThat(info.taskGroups()).containsExactly(List.of(ORDERS, PAYMENTS));
        assertThat(info.warmups()).containsExactly(TaskRef.of(List.of(PAYMENTS, ORDERS), 4, 3));

        byte[] v0Body = body(AssignmentInfo.encode(LayoutCodec.encode(LAYOUT), LAYOUT, OptionalLong.empty(), List.of(),
                List.of(), MessageFrame.VERSION_0));
        byte[] v1Body = body(encoded);
        byte[] appended = java.util.Arrays.copyOfRange(v1Body, v0Body.length, v1Body.length);
        assertThat(Utils.toArray(ByteBuffer.wrap(v1Body, 0, v0Body.length))).isEqualTo(v0Body);
        assertThat(hex(appended)).isEqualTo("C1 9F BA FF BC 31 01 02 00 01 01 00 03");
        assertThat(hex(body(AssignmentInfo.encode(LAYOUT))).substring(3 * v0Body.length)).isEqualTo("00 00 00");
    }

    private static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(out.length() == 0 ? "" : " ").append(String.format("%02X", b & 0xFF));
        }
        return out.toString();
    }

    @Test
    void shouldReadAVersion1AssignmentByTheVersion0RulesAsItsLayout() {
        Optional<AssignmentInfo> old = AssignmentInfo.decode(assignmentWithWarmups(), MessageFrame.VERSION_0);
        assertThat(old).hasValueSatisfying(info -> {
            assertThat(info.layout()).isEqualTo(LAYOUT);
            assertThat(info.warmups()).isEmpty();
            assertThat(info.followUpDeadline()).isEmpty();
        });
    }

    @Test
    void shouldReadAVersion0AssignmentFromAnOldLeaderAsNoWarmupsAndNoFollowUp() {
        ByteBuffer v0 = AssignmentInfo.encode(LayoutCodec.encode(LAYOUT), LAYOUT, OptionalLong.of(5), List.of(List.of(ORDERS)),
                List.of(), MessageFrame.VERSION_0);
        AssignmentInfo info = AssignmentInfo.decode(v0).orElseThrow();
        assertThat(info.layout()).isEqualTo(LAYOUT);
        assertThat(info.followUpDeadline()).isEmpty();
        assertThat(info.taskGroups()).isEmpty();
        assertThat(info.warmups()).isEmpty();
    }

    // ---- malformed input ----

    /**
     * Bodies with a valid checksum, so that the decoders' own checks are what rejects them: a
     * valid version 0 prefix followed by random bytes, and valid version 1 bodies with one byte
     * changed. Decoding never throws, and whatever decodes re-encodes to the same bytes (one
     * encoding per message).
     */
    @Test
    void shouldNeverThrowOnMalformedVersion1PartsAndReEncodeWhatDecodes() {
        SplittableRandom random = new SplittableRandom(SEED);
        byte[] reportPrefix = body(statefulReport().encode(MessageFrame.VERSION_0));
        byte[] reportV1 = body(statefulReport().encode());
        byte[] assignmentPrefix = body(AssignmentInfo.encode(LayoutCodec.encode(LAYOUT), LAYOUT, OptionalLong.empty(),
                List.of(), List.of(), MessageFrame.VERSION_0));
        byte[] assignmentV1 = body(assignmentWithWarmups());
        int decodedReports = 0;
        int decodedAssignments = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] report = i % 2 == 0 ? withRandomTail(reportPrefix, random) : withOneByteChanged(reportV1, random);
            byte[] assignment = i % 2 == 0 ? withRandomTail(assignmentPrefix, random) : withOneByteChanged(assignmentV1, random);
            ByteBuffer reportMessage = message(MemberReport.MAGIC, 1, report);
            ByteBuffer assignmentMessage = message(AssignmentInfo.MAGIC, 1, assignment);
            String what = "case " + i + " (seed " + SEED + ")";

            Optional<MemberReport> decoded = decodeOrFail(() -> MemberReport.decode(reportMessage), what);
            if (decoded.isPresent()) {
                decodedReports++;
                assertThat(Utils.toArray(decoded.get().encode())).as(what).isEqualTo(Utils.toArray(reportMessage.duplicate()));
            }
            Optional<AssignmentInfo> info = decodeOrFail(() -> AssignmentInfo.decode(assignmentMessage), what);
            if (info.isPresent()) {
                decodedAssignments++;
                AssignmentInfo got = info.get();
                ByteBuffer again = AssignmentInfo.encode(LayoutCodec.encode(got.layout()), got.layout(),
                        got.followUpDeadline(), got.taskGroups(), got.warmups(), AssignmentInfo.VERSION);
                assertThat(Utils.toArray(again)).as(what).isEqualTo(Utils.toArray(assignmentMessage.duplicate()));
            }
        }
        System.out.printf("malformed version 1 parts: %d of 20000 reports and %d of 20000 assignments still decoded%n",
                decodedReports, decodedAssignments);
    }

    private static <T> T decodeOrFail(java.util.function.Supplier<T> decode, String what) {
        try {
            return decode.get();
        } catch (RuntimeException e) {
            throw new AssertionError("decoding threw in " + what, e);
        }
    }

    private static byte[] withRandomTail(byte[] prefix, SplittableRandom random) {
        byte[] bytes = java.util.Arrays.copyOf(prefix, prefix.length + random.nextInt(24));
        for (int i = prefix.length; i < bytes.length; i++) {
            // Small values half the time, so that counts and indexes are often in range.
            bytes[i] = (byte) (random.nextBoolean() ? random.nextInt(4) : random.nextInt(256));
        }
        return bytes;
    }

    private static byte[] withOneByteChanged(byte[] valid, SplittableRandom random) {
        byte[] bytes = valid.clone();
        int at = random.nextInt(bytes.length);
        bytes[at] = (byte) (random.nextBoolean() ? bytes[at] + (random.nextBoolean() ? 1 : -1) : random.nextInt(256));
        return random.nextInt(8) == 0 ? java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length)) : bytes;
    }
}
