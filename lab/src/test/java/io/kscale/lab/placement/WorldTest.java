package io.kscale.lab.placement;

import static io.kscale.lab.placement.SimFixtures.FIRST;
import static io.kscale.lab.placement.SimFixtures.SECOND;
import static io.kscale.lab.placement.SimFixtures.active;
import static io.kscale.lab.placement.SimFixtures.decision;
import static io.kscale.lab.placement.SimFixtures.warmup;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WorldTest {

    private static final long ACCEPTABLE = 10_000;

    /** c01 runs both tasks, caught up; c02 has no state. */
    private static World settledOnFirst(long stateRecords, long writesPerSecond) {
        World world = new World(List.of(SimTask.stateful(0, 0, stateRecords, writesPerSecond),
                SimTask.stateful(0, 1, stateRecords, writesPerSecond)));
        world.join(FIRST);
        world.join(SECOND);
        world.apply(decision("c01", active("0_0", "0_1"), "c02", Copies.NONE), ACCEPTABLE);
        world.catchUpAssigned();
        return world;
    }

    @Test
    void shouldRestoreAWarmupAtTheClientsRate() {
        World world = settledOnFirst(50_000, 0);
        world.apply(decision("c01", active("0_0", "0_1"), "c02", warmup("0_1")), ACCEPTABLE);

        world.advance(3);
        assertThat(world.lag("c02", "0_1")).isEqualTo(20_000);
        world.advance(2);
        assertThat(world.lag("c02", "0_1")).isZero();
        assertThat(world.totals().restoredRecords()).isEqualTo(50_000);
        assertThat(world.totals().downtimeSeconds()).isZero();
        assertThat(world.totals().warmups()).isEqualTo(1);
    }

    @Test
    void shouldShareAClientsRateAmongTheCopiesItRestores() {
        World world = settledOnFirst(50_000, 0);
        world.apply(decision("c01", active("0_0", "0_1"), "c02", warmup("0_0", "0_1")), ACCEPTABLE);

        world.advance(4);

        assertThat(world.lag("c02", "0_0")).isEqualTo(30_000);
        assertThat(world.lag("c02", "0_1")).isEqualTo(30_000);
    }

    @Test
    void shouldCountDowntimeWhileAnActiveTaskRestoresOnAClientWithoutState() {
        World world = settledOnFirst(20_000, 0);
        world.apply(decision("c01", active("0_0"), "c02", active("0_1")), ACCEPTABLE);

        world.advance(10);

        // 20,000 records at 10,000/s: 2 s of downtime, avoidable since c01 was caught up.
        assertThat(world.totals()).isEqualTo(new World.Totals(2, 2, 20_000, 1, 0));
    }

    @Test
    void shouldNotWriteWhileTheActiveTaskRestoresThenGrowTheChangelogAndLeaveDroppedStateBehind() {
        World world = settledOnFirst(50_000, 100);
        world.apply(decision("c01", active("0_0"), "c02", active("0_1")), ACCEPTABLE);

        world.advance(3);
        assertThat(world.lag("c01", "0_1")).isZero();
        assertThat(world.lag("c02", "0_1")).isEqualTo(20_000);

        world.advance(7);
        // c02 restored 0_1 in 5 s, then processed 5 s; c01 dropped 0_1 and kept its state from then.
        assertThat(world.lag("c02", "0_1")).isZero();
        assertThat(world.lag("c01", "0_1")).isEqualTo(500);
        assertThat(world.lag("c01", "0_0")).isZero();
    }

    @Test
    void shouldRejectATaskActiveTwice() {
        World world = settledOnFirst(1_000, 0);

        assertThatThrownBy(() -> world.apply(decision("c01", active("0_0", "0_1"), "c02", active("0_1")), ACCEPTABLE))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("0_1");
    }

    @Test
    void shouldRejectATaskActiveNowhere() {
        World world = settledOnFirst(1_000, 0);

        assertThatThrownBy(() -> world.apply(new RoundDecision(Map.of("c01", active("0_0")), Optional.empty()), ACCEPTABLE))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("0_1 is active nowhere");
    }
}
