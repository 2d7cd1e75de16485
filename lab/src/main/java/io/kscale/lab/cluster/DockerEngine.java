package io.kscale.lab.cluster;

import java.io.ByteArrayOutputStream;
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
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A few questions to the Docker engine named by {@code DOCKER_HOST} (or
 * {@code /var/run/docker.sock}), asked over its HTTP API with short timeouts: does it answer, is
 * an image present, does the image's registry answer.
 *
 * <p>Why not Testcontainers' client: its first use runs its startup checks and starts its reaper
 * container (Ryuk), which means pulls. These questions decide whether Docker can be used at all,
 * so they must answer in milliseconds, pull nothing, and never hang on an engine that is gone or
 * a registry that cannot be reached. A Docker client binary alone is not an engine: a machine
 * can have the first without the second.
 */
public class DockerEngine {

    private static final Duration PING_TIMEOUT = Duration.ofSeconds(2);
    /** The engine asks the registry itself; an unreachable registry usually fails at once (DNS). */
    private static final Duration REGISTRY_TIMEOUT = Duration.ofSeconds(10);
    private static final Path DEFAULT_SOCKET = Path.of("/var/run/docker.sock");
    private static final String API = "/v1.41";

    private final String dockerHost;

    DockerEngine(String dockerHost) {
        this.dockerHost = dockerHost;
    }

    /** The engine of this environment: {@code DOCKER_HOST}, else the default socket. */
    public static DockerEngine local() {
        return new DockerEngine(System.getenv("DOCKER_HOST"));
    }

    /** Whether the engine answers {@code GET /_ping} with 200 within two seconds. */
    public boolean answers() {
        return get("/_ping", PING_TIMEOUT).map(r -> r.status == 200).orElse(false);
    }

    /** Whether the image is in the engine's local store (no pull). */
    public boolean hasImage(String image) {
        return get(API + "/images/" + image + "/json", PING_TIMEOUT).map(r -> r.status == 200).orElse(false);
    }

    /**
     * Whether the image's registry answers the engine about it: the engine fetches the image's
     * manifest ({@code GET /distribution/<image>/json}), which a pull would need first.
     */
    public boolean registryHas(String image) {
        return get(API + "/distribution/" + image + "/json", REGISTRY_TIMEOUT).map(r -> r.status == 200).orElse(false);
    }

    /**
     * Whether the engine runs on this machine (a Unix socket), so that published ports are
     * reachable on loopback and container owners are processes of this machine.
     */
    public boolean isLocal() {
        return dockerHost == null || dockerHost.isBlank() || dockerHost.startsWith("unix:");
    }

    private Optional<Response> get(String path, Duration timeout) {
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "kscale-docker-engine");
            thread.setDaemon(true);
            return thread;
        });
        try {
            Future<Response> answer = executor.submit(() -> request(path));
            return Optional.ofNullable(answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (Exception e) {
            return Optional.empty();
        } finally {
            executor.shutdownNow();
        }
    }

    private Response request(String path) throws IOException {
        try (SocketChannel channel = open()) {
            if (channel == null) {
                return null;
            }
            channel.write(ByteBuffer.wrap(("GET " + path + " HTTP/1.0\r\nHost: docker\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII)));
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            ByteBuffer buffer = ByteBuffer.allocate(8192);
            while (channel.read(buffer) >= 0) { // HTTP/1.0: the engine closes when done
                received.write(buffer.array(), 0, buffer.position());
                buffer.clear();
            }
            return Response.parse(received.toString(StandardCharsets.UTF_8));
        }
    }

    private SocketChannel open() throws IOException {
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

    /** An HTTP status and body; null from {@link #parse} for anything that is not HTTP. */
    private static final class Response {
        final int status;
        final String body;

        private Response(int status, String body) {
            this.status = status;
            this.body = body;
        }

        static Response parse(String text) {
            if (!text.startsWith("HTTP/1.")) {
                return null;
            }
            int space = text.indexOf(' ');
            int headersEnd = text.indexOf("\r\n\r\n");
            try {
                int status = Integer.parseInt(text.substring(space + 1, space + 4));
                return new Response(status, headersEnd < 0 ? "" : text.substring(headersEnd + 4));
            } catch (RuntimeException e) {
                return null;
            }
        }
    }
}
