package io.kscale.lab.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * Ports for brokers to listen on, held open until {@link #close()}, so they are distinct and no
 * other listener opened meanwhile takes them.
 *
 * <p>Picked below the kernel's ephemeral range: a port from that range (what binding port 0
 * gives) can be taken between {@link #close()} and the broker's own bind by any client's
 * outgoing connection, which the kernel gives a source port from the same range. A broker then
 * failed with "Address already in use" while other clients were busy on the machine. Below the
 * range only another listener can collide, and the start of the search is random so that
 * clusters started side by side do not race for the same ports.
 */
final class HostPorts implements AutoCloseable {

    /** Lowest port tried: above the well-known and most registered service ports. */
    static final int FIRST_PORT = 10_000;
    /** Linux's ephemeral range starts here by default, IANA's at 49152. */
    private static final int DEFAULT_EPHEMERAL_START = 32_768;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    private final List<ServerSocket> sockets;

    private HostPorts(List<ServerSocket> sockets) {
        this.sockets = sockets;
    }

    /**
     * @param address where to listen: loopback for processes, any address for Docker's published ports
     * @param count how many ports
     * @return the ports, bound until closed
     * @throws IOException if a socket cannot be opened
     */
    static HostPorts reserve(InetAddress address, int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int end = ephemeralStart();
            int span = end - FIRST_PORT;
            int port = FIRST_PORT + ThreadLocalRandom.current().nextInt(Math.max(1, span));
            for (int tried = 0; tried < span && sockets.size() < count; tried++) {
                bindIfFree(address, port).ifPresent(sockets::add);
                port = port + 1 < end ? port + 1 : FIRST_PORT;
            }
            // No free port below the range (or no such range): let the kernel pick.
            while (sockets.size() < count) {
                ServerSocket socket = new ServerSocket();
                sockets.add(socket);
                socket.bind(new InetSocketAddress(address, 0));
            }
            return new HostPorts(sockets);
        } catch (IOException e) {
            new HostPorts(sockets).close();
            throw e;
        }
    }

    private static Optional<ServerSocket> bindIfFree(InetAddress address, int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        try {
            socket.bind(new InetSocketAddress(address, port));
            return Optional.of(socket);
        } catch (IOException taken) {
            socket.close();
            return Optional.empty();
        }
    }

    /** @return the first port of the kernel's ephemeral range, or a safe default where it cannot be read */
    static int ephemeralStart() {
        try {
            String range = Files.readString(EPHEMERAL_RANGE, StandardCharsets.US_ASCII).trim();
            int start = Integer.parseInt(range.split("\\s+")[0]);
            return start > FIRST_PORT ? start : DEFAULT_EPHEMERAL_START;
        } catch (IOException | RuntimeException e) {
            return DEFAULT_EPHEMERAL_START;
        }
    }

    List<Integer> ports() {
        return sockets.stream().map(ServerSocket::getLocalPort).collect(Collectors.toList());
    }

    @Override
    public void close() {
        for (ServerSocket socket : sockets) {
            try {
                socket.close();
            } catch (IOException e) {
                // nothing to do
            }
        }
    }
}
