package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class TaskRefTest {

    @Test
    void shouldNameTheTaskByItsTopicsInNameOrderAndItsUnitId() {
        TaskRef task = TaskRef.of(List.of("payments", "orders", "orders"), 4, 1);
        assertThat(task.topics()).containsExactly("orders", "payments");
        assertThat(task.id()).isEqualTo("4:1");
        assertThat(task).hasToString("4:1[orders, payments]").isEqualTo(TaskRef.of(List.of("orders", "payments"), 4, 1));
        assertThat(task).isNotEqualTo(TaskRef.of(List.of("orders"), 4, 1));
    }

    @Test
    void shouldContainEveryPartitionOfItsTaskAlsoAfterAnExpansion() {
        TaskRef task = TaskRef.of(List.of("orders", "payments"), 4, 1);
        assertThat(task.contains(new TopicPartition("orders", 1))).isTrue();
        assertThat(task.contains(new TopicPartition("orders", 13))).as("a partition added later").isTrue();
        assertThat(task.contains(new TopicPartition("payments", 5))).isTrue();
        assertThat(task.contains(new TopicPartition("orders", 2))).isFalse();
        assertThat(task.contains(new TopicPartition("audit", 1))).isFalse();
    }

    @Test
    void shouldOrderByTaskCountThenTaskThenTopics() {
        TreeSet<TaskRef> tasks = new TreeSet<>(List.of(TaskRef.of(List.of("b"), 4, 1), TaskRef.of(List.of("a"), 4, 1),
                TaskRef.of(List.of("a"), 4, 0), TaskRef.of(List.of("a"), 2, 1), TaskRef.of(List.of("a", "b"), 4, 1)));
        assertThat(tasks).extracting(TaskRef::toString)
                .containsExactly("2:1[a]", "4:0[a]", "4:1[a]", "4:1[a, b]", "4:1[b]");
    }

    @Test
    void shouldRejectWhatNamesNoTask() {
        assertThatThrownBy(() -> TaskRef.of(List.of(), 4, 1)).hasMessageContaining("at least one topic");
        assertThatThrownBy(() -> TaskRef.of(List.of("bad topic"), 4, 1)).hasMessageContaining("not a legal");
        assertThatThrownBy(() -> TaskRef.of(List.of("orders"), 0, 0)).hasMessageContaining("task count 0");
        assertThatThrownBy(() -> TaskRef.of(List.of("orders"), 4, 4)).hasMessageContaining("task 4 is outside 0..3");
    }
}
