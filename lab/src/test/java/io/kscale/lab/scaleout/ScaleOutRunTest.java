package io.kscale.lab.scaleout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class ScaleOutRunTest {

    @Test
    void shouldCountOverlappingRestorationsOnceInTheDowntime() {
        // 7.0-9.0 and 7.5-10.0 overlap: 3.0 s; then 12.0-13.0: 1.0 s.
        assertThat(ScaleOutRuns.STICKY.activeRestoreSeconds()).isCloseTo(4.0, within(1e-9));
        assertThat(ScaleOutRuns.STICKY.activeRestoreTaskSeconds()).isCloseTo(5.5, within(1e-9));
        assertThat(ScaleOutRuns.STICKY.maxRecordsToRestore()).isEqualTo(16_673);
        assertThat(ScaleOutRuns.STICKY.recordsRestoredByActives()).isEqualTo(49_173);
    }

    @Test
    void shouldCountANestedRestorationInsideTheOneAroundIt() {
        ScaleOutRun run = withRestores(List.of(
                new ActiveRestore("instance-1", 0, 2.0, 10.0, 10, 10, ActiveRestore.End.RESTORED),
                new ActiveRestore("instance-2", 1, 3.0, 4.0, 10, 10, ActiveRestore.End.SUSPENDED)));

        assertThat(run.activeRestoreSeconds()).isCloseTo(8.0, within(1e-9));
    }

    @Test
    void shouldReportNoDowntimeWithoutRestorations() {
        assertThat(ScaleOutRuns.HIGH_AVAILABILITY.activeRestoreSeconds()).isZero();
        assertThat(ScaleOutRuns.HIGH_AVAILABILITY.maxRecordsToRestore()).isZero();
    }

    @Test
    void shouldMeasureThroughputOverTheTransitionOnly() {
        // Samples at -1 (before), 5, 65 and 75 s; KSCALE is balanced at 70.5 s: 5 and 65 count.
        assertThat(ScaleOutRuns.KSCALE.minRecordsPerSecond()).isZero();
        assertThat(ScaleOutRuns.KSCALE.meanRecordsPerSecond()).isCloseTo(240, within(1e-9));
        // Not balanced: every sample after the scale-out counts.
        assertThat(ScaleOutRuns.HIGH_AVAILABILITY.meanRecordsPerSecond()).isCloseTo(500, within(1e-9));
        assertThat(ScaleOutRuns.KSCALE.maxBacklog()).isEqualTo(30);
    }

    @Test
    void shouldRejectARestorationThatEndsBeforeItStarts() {
        assertThatThrownBy(() -> new ActiveRestore("instance-1", 0, 5.0, 4.0, 1, 1, ActiveRestore.End.RESTORED))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("5.0 > 4.0");
    }

    private static ScaleOutRun withRestores(List<ActiveRestore> restores) {
        return new ScaleOutRun(ScaleOutPeer.STICKY, 6, 3, 500, 1_000, 150, OptionalDouble.empty(), List.of(2, 2, 2),
                restores, 0, 1, new CountCheck(1, 0, 0, 1, 1), List.of(), List.of());
    }
}
