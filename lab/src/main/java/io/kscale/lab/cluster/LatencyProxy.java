package io.kscale.lab.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback TCP proxy that forwards client traffic to a broker and holds back every chunk of
 * the broker's responses for a settable delay before passing it on.
 *
 * <p>Delaying only the response direction adds the delay once per request round trip, as
 * KIP-794's experiment did ("20 ms added to one broker's produce responses"). Bytes keep their
 * order: a chunk leaves no earlier than the chunk before it, also when the delay is lowered.
 * A changed delay applies to the bytes read from then on.
 *
 * <p>Threads: one acceptor, and per connection one thread per direction plus one that releases
 * delayed response chunks. When either side closes, both sockets are closed.
 */
final class LatencyProxy implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LatencyProxy.class);
    private static final int CHUNK_BYTES = 64 * 1024;
    private static final byte[] END_OF_STREAM = new byte[0];

    private final String name;
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final Set<Socket> openSockets = ConcurrentHashMap.newKeySet();
    private volatile long delayNanos;
    private volatile boolean closed;

    /** Binds a free loopback port now, so the port can be advertised before the broker starts. */
    LatencyProxy(String name, InetSocketAddress target) throws IOException {
        this.name = name;
        this.target = target;
        this.listener = new ServerSocket();
        this.listener.setReuseAddress(true);
        this.listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::acceptLoop, "kscale-proxy-" + name);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    Duration delay() {
        return Duration.ofNanos(delayNanos);
    }

    void setDelay(Duration delay) {
        if (delay.isNegative() || delay.compareTo(ClusterSpec.MAX_LATENCY) > 0) {
            throw new IllegalArgumentException("latency must be between 0 and "
                    + ClusterSpec.MAX_LATENCY.toMillis() + " ms, got " + delay.toMillis() + " ms");
        }
        this.delayNanos = delay.toNanos();
        log.info("{}: responses delayed by {} ms", name, delay.toMillis());
    }

    /** Closes every connection through the proxy; clients reconnect (used when a broker dies). */
    void dropConnections() {
        openSockets.forEach(LatencyProxy::closeQuietly);
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        dropConnections();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                startConnection(client);
            } catch (IOException e) {
                if (!closed) {
                    log.warn("{}: accept failed: {}", name, e.toString());
                }
            }
        }
    }

    private void startConnection(Socket client) {
        Socket broker = new Socket();
        try {
            client.setTcpNoDelay(true);
            broker.setTcpNoDelay(true);
            broker.connect(target, 5_000);
            if (isSelfConnected(broker)) {
                throw new IOException("connected to itself: nothing listens on " + target);
            }
        } catch (IOException e) {
            // The broker is down (killed or not started yet): the client sees a closed connection.
            closeQuietly(client);
            closeQuietly(broker);
            return;
        }
        openSockets.add(client);
        openSockets.add(broker);
        LinkedBlockingQueue<DelayedChunk> responses = new LinkedBlockingQueue<>();
        startDaemon("up", () -> pump(client, broker));
        startDaemon("down", () -> readResponses(broker, responses, client));
        startDaemon("release", () -> releaseResponses(responses, client, broker));
    }

    /**
     * On Linux a connect to a free ephemeral loopback port can pick that same port as its source
     * and connect to itself (TCP simultaneous open). The proxy would then echo requests back to
     * the client forever instead of failing like a dead broker.
     */
    private static boolean isSelfConnected(Socket socket) {
        return socket.getLocalPort() == socket.getPort() && socket.getLocalAddress().equals(socket.getInetAddress());
    }

    private void startDaemon(String role, Runnable body) {
        Thread thread = new Thread(body, "kscale-proxy-" + name + "-" + role);
        thread.setDaemon(true);
        thread.start();
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[CHUNK_BYTES];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // one side closed: close both below
        } finally {
            closeBoth(from, to);
        }
    }

    private void readResponses(Socket broker, LinkedBlockingQueue<DelayedChunk> responses, Socket client) {
        byte[] buffer = new byte[CHUNK_BYTES];
        try (InputStream in = broker.getInputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                responses.add(new DelayedChunk(System.nanoTime() + delayNanos, Arrays.copyOf(buffer, n)));
            }
        } catch (IOException e) {
            // broker side closed
        } finally {
            responses.add(new DelayedChunk(System.nanoTime(), END_OF_STREAM));
        }
    }

    private void releaseResponses(LinkedBlockingQueue<DelayedChunk> responses, Socket client, Socket broker) {
        try (OutputStream out = client.getOutputStream()) {
            while (true) {
                DelayedChunk chunk = responses.take();
                if (chunk.bytes == END_OF_STREAM) {
                    return;
                }
                long wait = chunk.releaseAtNanos - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                out.write(chunk.bytes);
                out.flush();
            }
        } catch (IOException e) {
            // client side closed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeBoth(client, broker);
        }
    }

    private void closeBoth(Socket a, Socket b) {
        closeQuietly(a);
        closeQuietly(b);
        openSockets.remove(a);
        openSockets.remove(b);
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // closing is best effort
        }
    }

    private static final class DelayedChunk {
        final long releaseAtNanos;
        final byte[] bytes;

        DelayedChunk(long releaseAtNanos, byte[] bytes) {
            this.releaseAtNanos = releaseAtNanos;
            this.bytes = bytes;
        }
    }
}
