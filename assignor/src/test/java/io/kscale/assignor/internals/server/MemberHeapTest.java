package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MemberHeapTest {

    @Test
    void shouldHandOutMembersInTheSameOrderWhetherAddedOneByOneOrAllAtOnce() {
        SplittableRandom random = new SplittableRandom(42);
        for (int round = 0; round < 200; round++) {
            int n = random.nextInt(1, 300);
            long[] load = new long[n];
            for (int m = 0; m < n; m++) {
                load[m] = random.nextInt(4); // few loads: most comparisons are ties, broken by index
            }
            int[] members = new int[n];
            for (int m = 0; m < n; m++) {
                members[m] = m;
            }
            for (boolean heaviestFirst : new boolean[] {false, true}) {
                MemberHeap oneByOne = heap(load, n, heaviestFirst);
                for (int m : members) {
                    oneByOne.add(m);
                }
                MemberHeap allAtOnce = heap(load, n, heaviestFirst);
                allAtOnce.addAll(members);
                assertThat(drain(allAtOnce)).isEqualTo(drain(oneByOne));
            }
        }
    }

    @Test
    void shouldKeepPositionsAfterABulkAdd() {
        long[] load = {5, 1, 4, 1, 3};
        MemberHeap heap = MemberHeap.lightestFirst(load, load.length, new int[load.length]);
        heap.addAll(new int[] {0, 1, 2, 3, 4});
        load[4] = 0;
        heap.update(4); // needs member 4's position, set by the bulk add
        assertThat(drain(heap)).containsExactly(4, 1, 3, 2, 0);
    }

    @Test
    void shouldRefuseABulkAddToAHeapThatHoldsMembers() {
        long[] load = {1, 2};
        MemberHeap heap = MemberHeap.lightestFirst(load, 2, new int[2]);
        heap.add(0);
        assertThatThrownBy(() -> heap.addAll(new int[] {1})).isInstanceOf(IllegalStateException.class);
    }

    private static MemberHeap heap(long[] load, int n, boolean heaviestFirst) {
        return heaviestFirst ? MemberHeap.heaviestFirst(load, n, new int[n]) : MemberHeap.lightestFirst(load, n, new int[n]);
    }

    private static List<Integer> drain(MemberHeap heap) {
        List<Integer> order = new ArrayList<>();
        while (!heap.isEmpty()) {
            order.add(heap.poll());
        }
        return order;
    }
}
