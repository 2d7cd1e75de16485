package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostPortsTest {

    @Test
    void shouldHoldDistinctPortsBelowTheEphemeralRangeUntilClosed() throws IOException {
        List<Integer> picked;
        try (HostPorts ports = HostPorts.reserve(InetAddress.getLoopbackAddress(), ClusterSpec.MAX_BROKERS)) {
            picked = ports.ports();

            assertThat(picked).hasSize(ClusterSpec.MAX_BROKERS).doesNotHaveDuplicates()
                    .allSatisfy(port -> assertThat(port).isBetween(HostPorts.FIRST_PORT, HostPorts.ephemeralStart() - 1));
            for (int port : picked) {
                assertThat(bindable(port)).as("port %d is held", port).isFalse();
            }
        }
        for (int port : picked) {
            assertThat(bindable(port)).as("port %d is released", port).isTrue();
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
