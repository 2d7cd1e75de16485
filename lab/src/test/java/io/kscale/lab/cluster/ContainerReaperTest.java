package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ContainerReaperTest {

    @Test
    void shouldMarkContainersWithTheirClusterAndOwner() {
        Map<String, String> labels = ContainerReaper.labels("kscale-test");

        assertThat(labels).containsEntry(ContainerReaper.CLUSTER_LABEL, "kscale-test")
                .containsEntry(ContainerReaper.OWNER_PID_LABEL, Long.toString(ProcessHandle.current().pid()));
        assertThat(ContainerReaper.ownerIsGone(labels)).as("this JVM's own cluster").isFalse();
    }

    @Test
    void shouldSeeAnOwnerThatNoLongerRuns() throws Exception {
        Process child = new ProcessBuilder("true").start();
        child.waitFor();
        Map<String, String> labels = new HashMap<>(ContainerReaper.labels("kscale-test"));
        labels.put(ContainerReaper.OWNER_PID_LABEL, Long.toString(child.pid()));

        assertThat(ContainerReaper.ownerIsGone(labels)).isTrue();
    }

    @Test
    void shouldSeeAReusedProcessIdAsAnotherOwner() {
        Map<String, String> labels = new HashMap<>(ContainerReaper.labels("kscale-test"));
        labels.put(ContainerReaper.OWNER_START_LABEL, "2001-01-01T00:00:00Z");

        assertThat(ContainerReaper.ownerIsGone(labels)).isTrue();
    }

    @Test
    void shouldLeaveContainersWithoutAReadableOwnerAlone() {
        assertThat(ContainerReaper.ownerIsGone(Map.of(ContainerReaper.CLUSTER_LABEL, "old"))).isFalse();
        assertThat(ContainerReaper.ownerIsGone(Map.of(ContainerReaper.OWNER_PID_LABEL, "x"))).isFalse();
    }
}
