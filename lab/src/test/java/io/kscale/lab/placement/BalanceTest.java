package io.kscale.lab.placement;

import static io.kscale.lab.placement.SimFixtures.active;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class BalanceTest {

    private static final Map<String, SimClient> CLIENTS = Map.of("a", new SimClient("a", 1, 1),
            "b", new SimClient("b", 1, 1), "c", new SimClient("c", 2, 1));

    @Test
    void shouldAcceptCountsWithinOneTaskOfTheCapacityShare() {
        // 10 tasks, shares 2.5, 2.5, 5.
        assertThat(Balance.isBalanced(Map.of("a", active("1", "2", "3"), "b", active("4", "5"),
                "c", active("6", "7", "8", "9", "10")), CLIENTS)).isTrue();
    }

    @Test
    void shouldRejectACountOneTaskOrMoreFromItsShare() {
        assertThat(Balance.isBalanced(Map.of("a", active("1", "2", "3", "4"), "b", active("5", "6"),
                "c", active("7", "8", "9", "10")), CLIENTS)).isFalse();
    }
}
