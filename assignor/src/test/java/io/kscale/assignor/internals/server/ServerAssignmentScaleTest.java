package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A million partitions, a fresh group of 50 and a member joining: the shapes the broker-side
 * benchmark is meant to measure, here only checked for a complete, balanced result. The
 * {@link Timeout} is a guard against a quadratic step, not a measurement (measurements belong to
 * JMH).
 */
class ServerAssignmentScaleTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldPlaceAMillionSinglePartitionTasksAndMoveOnlyTheNewcomersShare() {
        Uuid topic = new Uuid(42, 42);
        TestGroup group = new TestGroup().topic(topic, 1_000_000);
        for (int m = 0; m < 50; m++) {
            group.member(String.format("m%02d", m), topic);
        }
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        GroupAssignment fresh = assign(group, store);
        assertThat(ServerChecks.loads(group, fresh).values()).containsOnly(20_000);
        group.apply(fresh).member("m50", topic);

        GroupAssignment joined = assign(group, store);
        Map<String, Integer> loads = ServerChecks.loads(group, joined);
        assertThat(loads.values()).allMatch(load -> load == 19_607 || load == 19_608);
        assertThat(ServerChecks.moved(group, joined)).isEqualTo(loads.get("m50"));
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldPlaceAThousandTopicsOfAThousandPartitions() {
        List<Uuid> topics = new ArrayList<>();
        TestGroup group = new TestGroup();
        for (int t = 0; t < 1_000; t++) {
            Uuid id = new Uuid(7, t);
            topics.add(id);
            group.topic(id, 1_000);
        }
        for (int m = 0; m < 50; m++) {
            group.member(String.format("m%02d", m), topics);
        }
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        GroupAssignment fresh = assign(group, store);
        // one T for all: 1,000 co-partitioned units of 1,000 partitions, 20 per member
        assertThat(ServerChecks.loads(group, fresh).values()).containsOnly(20_000);
        group.apply(fresh).leave("m07");
        GroupAssignment left = assign(group, store);
        assertThat(ServerChecks.moved(group, left)).isZero();
        assertThat(ServerChecks.loads(group, left).values()).allMatch(load -> load == 20_000 || load == 21_000);
    }

    private static GroupAssignment assign(TestGroup group, TaskCountStore store) {
        return new ServerAssignmentBuilder(group.spec(), group.describer(), store, new TaskCountLog(),
                new ServerAssignorMetrics(() -> 0)).build();
    }
}
