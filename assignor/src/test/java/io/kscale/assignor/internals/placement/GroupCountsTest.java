package io.kscale.assignor.internals.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The per-group, per-client task counts of a balancing pass, against a plain map doing the same. */
class GroupCountsTest {

    @Test
    void shouldCountEachGroupOnEachClientApart() {
        GroupCounts counts = new GroupCounts(3, 2);

        counts.add(2, 1, 1);
        counts.add(2, 1, 1);
        counts.add(1, 0, 1);

        assertThat(counts.count(2, 1)).isEqualTo(2);
        assertThat(counts.count(2, 0)).isZero();
        assertThat(counts.count(1, 0)).isEqualTo(1);
        assertThat(counts.count(1, 1)).isZero();
        assertThat(counts.count(0, 0)).isZero();
    }

    @Test
    void shouldAnswerZeroAfterEveryTaskOfAGroupMovedOff() {
        GroupCounts counts = new GroupCounts(1, 2);
        counts.add(0, 0, 1);

        counts.add(0, 0, -1);
        counts.add(0, 1, 1);
        counts.add(0, 1, -1);

        assertThat(counts.count(0, 0)).isZero();
        assertThat(counts.count(0, 1)).isZero();
    }

    @Test
    void shouldAgreeWithAMapThroughManyMovesAndTableGrowths() {
        int groups = 500;
        int clients = 300;
        GroupCounts counts = new GroupCounts(groups, clients);
        Map<Long, Integer> expected = new HashMap<>();
        Random random = new Random(19);
        for (int i = 0; i < 50_000; i++) {
            int group = random.nextInt(groups);
            int client = random.nextInt(clients);
            long key = (long) group * clients + client;
            int delta = expected.getOrDefault(key, 0) > 0 && random.nextBoolean() ? -1 : 1;
            counts.add(group, client, delta);
            expected.merge(key, delta, Integer::sum);
        }

        for (int group = 0; group < groups; group++) {
            for (int client = 0; client < clients; client++) {
                assertThat(counts.count(group, client))
                        .isEqualTo(expected.getOrDefault((long) group * clients + client, 0));
            }
        }
    }
}
