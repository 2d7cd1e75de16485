package io.kscale.lab.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class BalanceTest {

    private static final int[] CAPACITIES = {1, 1, 4, 3, 3};

    @Test
    void shouldAcceptTasksPerThreadWithinOneOfEachOther() {
        assertThat(balanced(2, 2, 11, 8, 9)).isTrue();
        assertThat(balanced(3, 2, 11, 8, 8)).isTrue();
    }

    @Test
    void shouldRejectTasksPerThreadMoreThanOneApart() {
        assertThat(balanced(4, 2, 10, 8, 8)).isFalse();
        assertThat(balanced(2, 2, 13, 8, 7)).isFalse();
    }

    @Test
    void shouldRequireSingleThreadedClientsToBeWithinOneTask() {
        Map<String, SimClient> two = Map.of("a", new SimClient("a", 1, 1), "b", new SimClient("b", 1, 1));

        assertThat(Balance.isBalanced(Map.of("a", tasks(0, 5), "b", tasks(5, 4)), two)).isTrue();
        assertThat(Balance.isBalanced(Map.of("a", tasks(0, 6), "b", tasks(6, 4)), two)).isFalse();
    }

    /** Clients c0..c4 of {@link #CAPACITIES} running the given numbers of tasks. */
    private static boolean balanced(int... counts) {
        Map<String, SimClient> clients = new HashMap<>();
        Map<String, Copies> assignment = new HashMap<>();
        int next = 0;
        for (int c = 0; c < counts.length; c++) {
            clients.put("c" + c, new SimClient("c" + c, CAPACITIES[c], 1));
            assignment.put("c" + c, tasks(next, counts[c]));
            next += counts[c];
        }
        return Balance.isBalanced(assignment, clients);
    }

    private static Copies tasks(int first, int count) {
        Set<String> ids = new TreeSet<>();
        for (int t = first; t < first + count; t++) {
            ids.add("0_" + t);
        }
        return new Copies(ids, Set.of(), Set.of());
    }
}
