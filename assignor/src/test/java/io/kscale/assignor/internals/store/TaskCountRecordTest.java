package io.kscale.assignor.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.layout.TopicLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class TaskCountRecordTest {

    private static final TaskCountRecord RECORD = new TaskCountRecord(4, 8, 1, "broker 1");

    @Test
    void shouldEncodeTheDocumentedExample() {
        byte[] value = RECORD.value();

        assertThat(Arrays.copyOfRange(value, 0, 2)).containsExactly(0x54, 0);
        assertThat(Arrays.copyOfRange(value, 6, 10)).containsExactly(4, 8, 1, 8);
        assertThat(new String(value, 10, value.length - 10, StandardCharsets.UTF_8)).isEqualTo("broker 1");
    }

    @Test
    void shouldDecodeWhatItEncodes() {
        assertThat(TaskCountRecord.decode(RECORD.value())).contains(RECORD);
        TaskCountRecord largest = new TaskCountRecord(TopicLayout.MAX_COUNT, TopicLayout.MAX_COUNT, Long.MAX_VALUE,
                "x".repeat(TaskCountRecord.MAX_WRITER_BYTES));
        assertThat(TaskCountRecord.decode(largest.value())).contains(largest);
    }

    @Test
    void shouldRejectWhatIsNotARecord() {
        byte[] value = RECORD.value();
        byte[] corrupt = value.clone();
        corrupt[6] = 5;
        byte[] trailing = Arrays.copyOf(value, value.length + 1);

        assertThat(TaskCountRecord.decode(null)).isEmpty();
        assertThat(TaskCountRecord.decode(new byte[0])).isEmpty();
        assertThat(TaskCountRecord.decode(corrupt)).as("checksum").isEmpty();
        assertThat(TaskCountRecord.decode(Arrays.copyOf(value, value.length - 1))).as("truncated").isEmpty();
        assertThat(TaskCountRecord.decode(trailing)).as("trailing byte, checksum aside").isEmpty();
        assertThat(TaskCountRecord.decode(new byte[TaskCountRecord.MAX_VALUE_BYTES + 1])).as("oversized").isEmpty();
    }

    @Test
    void shouldReadTheFieldsItKnowsOfALaterVersion() {
        java.io.ByteArrayOutputStream out = io.kscale.assignor.internals.layout.MessageFrame.start(TaskCountRecord.MAGIC, 1);
        byte[] body = Arrays.copyOfRange(RECORD.value(), 6, RECORD.value().length);
        out.write(body, 0, body.length);
        out.write(42); // a field version 1 appends
        java.nio.ByteBuffer message = io.kscale.assignor.internals.layout.MessageFrame.finish(out);

        assertThat(TaskCountRecord.decode(message.array())).contains(RECORD);
    }

    @Test
    void shouldCutALongWriterName() {
        assertThat(new TaskCountRecord(1, 1, 0, "é".repeat(200)).writer().getBytes(StandardCharsets.UTF_8))
                .hasSizeLessThanOrEqualTo(TaskCountRecord.MAX_WRITER_BYTES);
    }

    @Test
    void shouldKeyARecordByTheTopicIdsStringForm() {
        Uuid id = Uuid.randomUuid();

        assertThat(new String(TaskCountRecord.key(id), StandardCharsets.US_ASCII)).isEqualTo(id.toString());
        assertThat(TaskCountRecord.topicId(TaskCountRecord.key(id))).contains(id);
        assertThat(TaskCountRecord.topicId(TaskCountRecord.key(Uuid.ZERO_UUID))).isEmpty();
        assertThat(TaskCountRecord.topicId("orders".getBytes(StandardCharsets.US_ASCII))).isEmpty();
        assertThat(TaskCountRecord.topicId("!!!!!!!!!!!!!!!!!!!!!!".getBytes(StandardCharsets.US_ASCII))).isEmpty();
        assertThat(TaskCountRecord.topicId(null)).isEmpty();
    }
}
