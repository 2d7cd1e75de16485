package io.kscale.lab.expansion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The faulted expansion's referee and its snapshot codec: a split must be reported, a handover
 * must not. These are what let {@code FaultedExpansionIT}'s "0 split keys" fail.
 */
class TaskLineageTest {

    @Test
    void shouldReportASplitWhenACopyCommitsAfterAnotherCopyRestoredFromIt() {
        TaskLineage lineage = new TaskLineage();
        lineage.committed(0, "a#1");
        lineage.restored(0, "b#1", Optional.of("a#1"));

        lineage.committed(0, "a#1"); // a still counts task 0 beside b: two states for one key

        assertThat(lineage.splitTasks()).containsExactly(0);
        assertThat(lineage.problems()).singleElement().asString().contains("task 0", "a#1");
    }

    @Test
    void shouldAcceptAHandOverFromCopyToCopy() {
        TaskLineage lineage = new TaskLineage();
        lineage.committed(0, "a#1");
        lineage.restored(0, "b#1", Optional.of("a#1"));
        lineage.committed(0, "b#1");
        lineage.restored(0, "a#2", Optional.of("b#1"));
        lineage.committed(0, "a#2");
        lineage.restored(1, "c#1", Optional.empty());
        lineage.committed(1, "c#1");

        assertThat(lineage.splitTasks()).isEmpty();
        assertThat(lineage.problems()).isEmpty();
    }

    @Test
    void shouldReportTasksOwnedByTwoMembers() {
        TaskLineage lineage = new TaskLineage();

        lineage.splitTask(2, "task 2 split between member-0 and member-1");
        lineage.splitTask(2, "member-1 holds task 2 without its partition 2");

        assertThat(lineage.splitTasks()).containsExactly(2);
        assertThat(lineage.problems()).containsExactly("task 2 split between member-0 and member-1");
    }

    @Test
    void shouldCountRecordsNeverDeliveredAndRecordsDeliveredAgain() {
        TaskLineage lineage = new TaskLineage();
        lineage.delivered("key-0", 0, true);
        lineage.delivered("key-0", 1, true);
        lineage.delivered("key-0", 1, false);
        lineage.delivered("key-1", 1, false);

        assertThat(lineage.missing(Map.of("key-0", 2L, "key-1", 2L, "key-2", 1L))).isEqualTo(2);
        assertThat(lineage.deliveries() - lineage.distinctRecords()).isEqualTo(1);
        assertThat(lineage.outOfOrder()).isEqualTo(2);
    }

    @Test
    void shouldRoundTripASnapshotThroughItsOffsetMetadata() {
        TaskSnapshot snapshot = new TaskSnapshot("member-0#3", Map.of("key-1", new long[] {41, 40}, "key-9", new long[] {7, 6}));

        TaskSnapshot decoded = TaskSnapshot.decode(snapshot.encode());

        assertThat(decoded.writer()).contains("member-0#3");
        assertThat(decoded.counts()).containsOnlyKeys("key-1", "key-9");
        assertThat(decoded.counts().get("key-1")).containsExactly(41, 40);
        assertThat(decoded.counts().get("key-9")).containsExactly(7, 6);
    }

    @Test
    void shouldReadNoMetadataAsAnEmptySnapshotAndRefuseAnythingElse() {
        assertThat(TaskSnapshot.decode(null).writer()).isEmpty();
        assertThat(TaskSnapshot.decode("").counts()).isEmpty();
        assertThat(TaskSnapshot.decode(new TaskSnapshot("m#1", Map.of()).encode()).counts()).isEmpty();
        assertThatThrownBy(() -> TaskSnapshot.decode("someone else's metadata"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a task snapshot");
    }
}
