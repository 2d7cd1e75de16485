package io.kscale.lab.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Host ports for the brokers' client listeners, held open (bound on all interfaces, as Docker
 * publishes them) until {@link #close()}, so the ports are distinct and other sockets opened
 * meanwhile cannot take them.
 */
final class HostPorts implements AutoCloseable {
    private final List<ServerSocket> sockets;

    private HostPorts(List<ServerSocket> sockets) {
        this.sockets = sockets;
    }

    static HostPorts reserve(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket();
                sockets.add(socket);
                socket.bind(new InetSocketAddress(0));
            }
            return new HostPorts(sockets);
        } catch (IOException e) {
            new HostPorts(sockets).close();
            throw e;
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
