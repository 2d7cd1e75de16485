package io.kscale.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The real {@code kscale-lab cluster} command in a child JVM (this JVM's classpath), for tests
 * that end that JVM in some way and check what its cluster left behind.
 */
public final class LabProcess {

    private static final Duration STARTUP = Duration.ofSeconds(180);

    private final Process process;
    private final String bootstrapServers;
    private final CompletableFuture<String> output;

    private LabProcess(Process process, String bootstrapServers, CompletableFuture<String> output) {
        this.process = process;
        this.bootstrapServers = bootstrapServers;
        this.output = output;
    }

    /**
     * Starts {@code kscale-lab cluster --brokers 1} on a backend and returns once it printed its
     * bootstrap address.
     *
     * @param jvmOptions extra {@code -D} options for the child, e.g. the Docker image
     */
    public static LabProcess startCluster(String backend, List<String> jvmOptions) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path workDir = Path.of(System.getProperty("kscale.cluster.workdir", "target/kscale-clusters"));
        List<String> command = new ArrayList<>(List.of(java.toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.kscale.lab.KscaleLab", "cluster",
                "--brokers", "1", "--backend", backend, "--work-dir", workDir.toString()));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        try {
            String line = CompletableFuture.supplyAsync(() -> readUntilBootstrap(stdout, seen))
                    .orTimeout(STARTUP.toSeconds(), TimeUnit.SECONDS).join();
            assertThat(line).startsWith("bootstrap.servers=127.0.0.1:");
            CompletableFuture<String> rest = CompletableFuture.supplyAsync(() -> readAll(stdout, seen));
            return new LabProcess(process, line.substring("bootstrap.servers=".length()), rest);
        } catch (RuntimeException | AssertionError e) {
            destroy(process);
            throw e;
        }
    }

    public Process process() {
        return process;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** Everything the lab printed, once its output ends. */
    public CompletableFuture<String> output() {
        return output;
    }

    /** kill -9 of the lab and its child processes, for clean-up after a test. */
    public void destroy() {
        destroy(process);
    }

    private static void destroy(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    private static String readUntilBootstrap(BufferedReader stdout, StringBuilder seen) {
        try {
            String line;
            while ((line = stdout.readLine()) != null) {
                seen.append(line).append('\n');
                if (line.startsWith("bootstrap.servers=")) {
                    return line;
                }
            }
            throw new AssertionError("lab ended before printing its bootstrap address:\n" + seen);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String readAll(BufferedReader stdout, StringBuilder seen) {
        try {
            String line;
            while ((line = stdout.readLine()) != null) {
                seen.append(line).append('\n');
            }
        } catch (IOException e) {
            // the lab was killed
        }
        return seen.toString();
    }
}
