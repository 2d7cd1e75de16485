package io.kscale.admin.internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class SafeCountsTest {

    @Test
    void shouldAllowMultiplesOfTheLeastCommonMultipleOfTheTaskCounts() {
        SafeCounts safe = SafeCounts.of(List.of(4, 6));

        assertThat(safe.step()).isEqualTo(12);
        assertThat(safe.keepsKeys(24)).isTrue();
        assertThat(safe.keepsKeys(18)).as("18 %% 4 == 2").isFalse();
        assertThat(safe.keepsKeys(16)).as("16 %% 6 == 4").isFalse();
    }

    @Test
    void shouldAllowAnyCountWithoutKeyPreservingGroups() {
        SafeCounts safe = SafeCounts.of(List.of());

        assertThat(safe.step()).isEqualTo(1);
        assertThat(safe.keepsKeys(7)).isTrue();
    }

    @Test
    void shouldNameTheNearestSafeCountsAroundARefusedOne() {
        SafeCounts safe = SafeCounts.of(List.of(4, 2));

        assertThat(safe.nearestBelow(4, 14)).isEqualTo(OptionalInt.of(12));
        assertThat(safe.nearestAbove(4, 14)).isEqualTo(OptionalInt.of(16));
        assertThat(safe.nearestBelow(4, 6)).as("nothing safe between 4 and 6").isEmpty();
        assertThat(safe.nearestAbove(8, 6)).as("a count below today's: the next above today's").isEqualTo(OptionalInt.of(12));
    }

    @Test
    void shouldCapTheStepInsteadOfOverflowingOnHugeTaskCounts() {
        SafeCounts safe = SafeCounts.of(List.of(1 << 19, (1 << 19) - 1));

        assertThat(safe.step()).isGreaterThan(SafeCounts.MAX_COUNT);
        assertThat(safe.nearestAbove(4, 8)).isEmpty();
    }

    @Test
    void shouldRejectATaskCountBelowOne() {
        assertThatThrownBy(() -> SafeCounts.of(List.of(0))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1, got 0");
    }
}
