package io.kscale.admin.internals;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class TaskPlacementTest {

    @Test
    void shouldSettleWhenEveryTaskIsWholeOnOneMember() {
        TaskPlacement placement = new TaskPlacement(4, 8, owners(Map.of("a", new int[] {0, 4, 1, 5}, "b", new int[] {2, 6, 3, 7})));

        assertThat(placement.settled()).isTrue();
        assertThat(placement.placedWithTask(4)).isEqualTo(4);
        assertThat(placement.problems()).isEmpty();
    }

    @Test
    void shouldNotSettleWhileANewPartitionIsUnassigned() {
        TaskPlacement placement = new TaskPlacement(4, 8, owners(Map.of("a", new int[] {0, 4, 1, 5}, "b", new int[] {2, 6, 3})));

        assertThat(placement.settled()).isFalse();
        assertThat(placement.unassigned()).containsExactly(7);
        assertThat(placement.placedWithTask(4)).isEqualTo(3);
        assertThat(placement.problems()).containsExactly("partitions [7] unassigned");
    }

    @Test
    void shouldNotSettleWhileATaskIsSplitAcrossMembers() {
        TaskPlacement placement = new TaskPlacement(2, 4, owners(Map.of("a", new int[] {0, 1}, "b", new int[] {2, 3})));

        assertThat(placement.settled()).isFalse();
        assertThat(placement.splitTasks()).containsOnlyKeys(0, 1);
        assertThat(placement.placedWithTask(2)).isZero();
    }

    @Test
    void shouldIgnorePartitionsBeyondTheCountItComparesWith() {
        TaskPlacement placement = new TaskPlacement(2, 2, owners(Map.of("a", new int[] {0, 1, 9})));

        assertThat(placement.settled()).isTrue();
    }

    private static Map<String, SortedSet<Integer>> owners(Map<String, int[]> owned) {
        Map<String, SortedSet<Integer>> owners = new TreeMap<>();
        owned.forEach((member, partitions) -> {
            SortedSet<Integer> set = new TreeSet<>();
            for (int p : partitions) {
                set.add(p);
            }
            owners.put(member, set);
        });
        return owners;
    }
}
