package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy against a loopback echo server. */
class LatencyProxyTest {

    private ServerSocket echoServer;
    private LatencyProxy proxy;

    @BeforeEach
    void startEchoServerBehindProxy() throws IOException {
        echoServer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread echo = new Thread(this::echoLoop, "echo");
        echo.setDaemon(true);
        echo.start();
        proxy = new LatencyProxy("test", new InetSocketAddress(InetAddress.getLoopbackAddress(), echoServer.getLocalPort()));
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echoServer.close();
    }

    @Test
    void shouldDelayEveryResponseByAtLeastTheSetDelay() throws IOException {
        proxy.setDelay(Duration.ofMillis(60));
        try (Socket client = connect()) {
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                roundTrip(client, (byte) i);
                assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(60).toNanos());
            }
        }
    }

    @Test
    void shouldKeepTheOrderOfBytesWhenTheDelayIsLowered() throws IOException {
        proxy.setDelay(Duration.ofMillis(100));
        try (Socket client = connect()) {
            OutputStream out = client.getOutputStream();
            InputStream in = client.getInputStream();
            out.write(1);
            out.flush();
            proxy.setDelay(Duration.ZERO);
            out.write(2);
            out.flush();
            assertThat(in.read()).isEqualTo(1);
            assertThat(in.read()).isEqualTo(2);
        }
    }

    @Test
    void shouldCloseTheClientWhenTheTargetIsDown() throws IOException {
        // A bound socket that never listens holds the port, so a connect to it is refused at once
        // and no other socket can take the port (a closed server's port could be reused).
        try (Socket portHolder = new Socket()) {
            portHolder.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            try (LatencyProxy downProxy = new LatencyProxy("down", (InetSocketAddress) portHolder.getLocalSocketAddress());
                    Socket client = new Socket(InetAddress.getLoopbackAddress(), downProxy.port())) {
                // Longer than the proxy's 5 s connect timeout: a hang fails with a clear read timeout.
                client.setSoTimeout(20_000);
                assertThat(client.getInputStream().read()).isEqualTo(-1);
            }
        }
    }

    @Test
    void shouldRejectADelayOutsideZeroToFiveHundredMillis() {
        assertThatThrownBy(() -> proxy.setDelay(Duration.ofMillis(501))).hasMessageContaining("between 0 and 500 ms");
        assertThatThrownBy(() -> proxy.setDelay(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    private Socket connect() throws IOException {
        return new Socket(InetAddress.getLoopbackAddress(), proxy.port());
    }

    private static void roundTrip(Socket client, byte value) throws IOException {
        client.getOutputStream().write(value);
        client.getOutputStream().flush();
        assertThat(client.getInputStream().read()).isEqualTo(value & 0xff);
    }

    private void echoLoop() {
        while (!echoServer.isClosed()) {
            try {
                Socket socket = echoServer.accept();
                Thread thread = new Thread(() -> echo(socket), "echo-connection");
                thread.setDaemon(true);
                thread.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void echo(Socket socket) {
        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
            int b;
            while ((b = in.read()) >= 0) {
                out.write(b);
                out.flush();
            }
        } catch (IOException e) {
            // client went away
        }
    }
}
