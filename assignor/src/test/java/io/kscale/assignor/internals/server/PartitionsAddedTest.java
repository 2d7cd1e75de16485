package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** A target with partitions added ({@link PartitionsAdded}): a set equal to the union, the target's sets not copied. */
class PartitionsAddedTest {

    private static final Uuid ORDERS = new Uuid(1, 1);
    private static final Uuid AUDIT = new Uuid(3, 3);

    @Test
    void shouldBeTheUnionOfTheTargetAndTheAddedPartitions() {
        Set<Integer> orders = Collections.unmodifiableSet(new HashSet<>(List.of(3, 1, 7)));
        Set<Integer> audit = Collections.unmodifiableSet(new HashSet<>(List.of(0)));
        Map<Uuid, Set<Integer>> target = Map.of(ORDERS, orders, AUDIT, audit);

        Map<Uuid, Set<Integer>> joined = PartitionsAdded.toTarget(target,
                Map.of(ORDERS, new SortedPartitions(new int[] {2, 9}), new Uuid(5, 5), new SortedPartitions(new int[] {4})));

        assertThat(joined).containsOnlyKeys(ORDERS, AUDIT, new Uuid(5, 5));
        assertThat(joined.get(AUDIT)).isSameAs(audit);
        Set<Integer> added = joined.get(ORDERS);
        assertThat(added).hasSize(5).containsExactlyInAnyOrder(1, 2, 3, 7, 9).isEqualTo(Set.of(1, 2, 3, 7, 9));
        assertThat(added.hashCode()).isEqualTo(Set.of(1, 2, 3, 7, 9).hashCode());
        assertThat(added.contains(2)).isTrue();
        assertThat(added.contains(4)).isFalse();
        assertThat(added.contains("2")).isFalse();
        List<Integer> numbers = new ArrayList<>();
        SortedPartitions.forEachNumber(added, numbers::add);
        assertThat(numbers).containsExactlyInAnyOrder(1, 2, 3, 7, 9);
        assertThatThrownBy(() -> added.add(4)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> added.iterator().remove()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void shouldReadANestedTargetIntoOneSortedSetSoThatSetsNeverNest() {
        Map<Uuid, Set<Integer>> once = PartitionsAdded.toTarget(Map.of(ORDERS, Set.of(5, 1)),
                Map.of(ORDERS, new SortedPartitions(new int[] {3})));
        Map<Uuid, Set<Integer>> many = once;
        // A member gaining a partition on every one of many changes: each time its target is a
        // joined set, that set is read into a sorted one, so the next join is one level again.
        for (int p = 10; p < 10_001; p++) {
            many = PartitionsAdded.toTarget(many, Map.of(ORDERS, new SortedPartitions(new int[] {p})));
        }

        assertThat(once.get(ORDERS)).isInstanceOf(PartitionsAdded.class);
        Set<Integer> expected = new TreeSet<>(List.of(1, 3, 5));
        for (int p = 10; p < 10_001; p++) {
            expected.add(p);
        }
        assertThat(many.get(ORDERS)).isInstanceOf(SortedPartitions.class).isEqualTo(expected);
    }
}
