package io.kscale.lab.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Asks the Docker engine named by {@code DOCKER_HOST} (or {@code /var/run/docker.sock}) for
 * {@code GET /_ping} and reports whether it answered {@code OK} within a short timeout.
 *
 * <p>A Docker client binary alone is not enough: this build machine has one but no engine.
 * Testcontainers' own detection tries several strategies with long timeouts; this check answers
 * in milliseconds when nothing listens.
 */
final class DockerProbe {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Path DEFAULT_SOCKET = Path.of("/var/run/docker.sock");

    private DockerProbe() {
    }

    static boolean dockerAnswers() {
        String dockerHost = System.getenv("DOCKER_HOST");
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "kscale-docker-probe");
            thread.setDaemon(true);
            return thread;
        });
        try {
            Future<Boolean> answer = executor.submit(() -> ping(dockerHost));
            return answer.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            return false;
        } finally {
            executor.shutdownNow();
        }
    }

    private static boolean ping(String dockerHost) throws IOException {
        try (SocketChannel channel = open(dockerHost)) {
            if (channel == null) {
                return false;
            }
            channel.write(ByteBuffer.wrap(
                    "GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer response = ByteBuffer.allocate(1024);
            while (channel.read(response) >= 0 && response.hasRemaining()) {
                // read until the engine closes the connection (HTTP/1.0)
            }
            String text = new String(response.array(), 0, response.position(), StandardCharsets.US_ASCII);
            return text.startsWith("HTTP/1.") && text.contains(" 200 ");
        }
    }

    private static SocketChannel open(String dockerHost) throws IOException {
        if (dockerHost == null || dockerHost.isBlank()) {
            return Files.exists(DEFAULT_SOCKET) ? SocketChannel.open(UnixDomainSocketAddress.of(DEFAULT_SOCKET)) : null;
        }
        URI uri = URI.create(dockerHost);
        if ("unix".equals(uri.getScheme())) {
            Path socket = Path.of(uri.getPath());
            return Files.exists(socket) ? SocketChannel.open(UnixDomainSocketAddress.of(socket)) : null;
        }
        if ("tcp".equals(uri.getScheme())) {
            return SocketChannel.open(new InetSocketAddress(uri.getHost(), uri.getPort()));
        }
        return null;
    }
}
