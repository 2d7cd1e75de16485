package io.kscale.lab.scaleout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScaleOutSettingsTest {

    @Test
    void shouldDefaultToTheDocumentedSizes() {
        ScaleOutSettings settings = ScaleOutSettings.defaults();

        assertThat(settings.peers()).containsExactly(ScaleOutPeer.KSCALE, ScaleOutPeer.HIGH_AVAILABILITY,
                ScaleOutPeer.STICKY);
        assertThat(settings.partitions()).isEqualTo(6);
        assertThat(settings.instances()).isEqualTo(3);
        assertThat(settings.acceptableRecoveryLag()).isEqualTo(1_000);
        assertThat(settings.maxWarmupReplicas()).isEqualTo(2);
        assertThat(settings.probingInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(settings.parallel()).isTrue();
        assertThat(settings.restoreRecordsPerSecond()).as("unset: WarmupTaskAssignor learns the rates").isZero();
        assertThat(settings.killWarmingInstance()).isFalse();
        assertThat(settings.sessionTimeout()).isEqualTo(Duration.ofSeconds(45));
    }

    @Test
    void shouldKeepEverySettingThroughToBuilder() {
        ScaleOutSettings settings = ScaleOutSettings.builder().peers(List.of(ScaleOutPeer.STICKY)).partitions(12)
                .instances(4).keys(10).preloadRecords(100).valueBytes(64).recordsPerSecond(10)
                .acceptableRecoveryLag(0).maxWarmupReplicas(3).probingInterval(Duration.ofMinutes(2))
                .balanceTimeout(Duration.ofSeconds(30)).stableFor(Duration.ZERO).parallel(false)
                .killWarmingInstance(true).restoreRecordsPerSecond(2_000).sessionTimeout(Duration.ofSeconds(10)).build();

        ScaleOutSettings copy = settings.toBuilder().build();
        assertThat(copy).usingRecursiveComparison().isEqualTo(settings);
    }

    @Test
    void shouldNameTheSettingOutOfRange() {
        assertThatThrownBy(() -> ScaleOutSettings.builder().instances(1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("instances must be at least 2");
        assertThatThrownBy(() -> ScaleOutSettings.builder().probingInterval(Duration.ofSeconds(10)).build())
                .hasMessageContaining("at least 60 s");
        assertThatThrownBy(() -> ScaleOutSettings.builder().keys(500).preloadRecords(100).build())
                .hasMessageContaining("at least the keys (500)");
        assertThatThrownBy(() -> ScaleOutSettings.builder().valueBytes(4).build()).hasMessageContaining("value bytes");
        assertThatThrownBy(() -> ScaleOutSettings.builder().sessionTimeout(Duration.ofSeconds(5)).build())
                .hasMessageContaining("session timeout must be at least 6 s");
        assertThatThrownBy(() -> ScaleOutSettings.builder().restoreRecordsPerSecond(-1).build())
                .hasMessageContaining("restore records per second");
        assertThatThrownBy(() -> ScaleOutSettings.builder().instances(2).killWarmingInstance(true).build())
                .hasMessageContaining("at least 3 instances");
    }

    @Test
    void shouldNameTheKnownAssignorsForAnUnknownOne() {
        assertThat(ScaleOutPeer.fromCliName(" High-Availability ")).isEqualTo(ScaleOutPeer.HIGH_AVAILABILITY);
        assertThat(ScaleOutPeer.HIGH_AVAILABILITY.taskAssignorClass()).isEmpty();
        assertThat(ScaleOutPeer.KSCALE.taskAssignorClass()).contains("io.kscale.streams.WarmupTaskAssignor");
        assertThatThrownBy(() -> ScaleOutPeer.fromCliName("ha"))
                .hasMessageContaining("'ha'").hasMessageContaining("kscale, high-availability, sticky");
    }
}
