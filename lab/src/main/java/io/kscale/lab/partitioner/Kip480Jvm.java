package io.kscale.lab.partitioner;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs {@link ThrottledProducerRun} in a child JVM on kafka-clients 3.9.1, the last release with
 * the KIP-480 sticky partitioner. The 3.9.1 jars are copied by the lab's build into the folder
 * named in resource {@value #RESOURCE}; they come first on the child's classpath, followed by the
 * lab's own code for the runner class.
 */
final class Kip480Jvm {

    static final String RESOURCE = "/io/kscale/lab/partitioner/kip480.properties";

    private Kip480Jvm() {
    }

    static ThrottledProducerRun.Result run(Map<String, Object> producerProps, String topic, int partitions,
            int recordSize, long bytesPerSecond, Duration duration, long seed, Path workDir) {
        try {
            Files.createDirectories(workDir);
            Path config = Files.createTempFile(workDir, "kip480-producer", ".properties");
            Properties properties = new Properties();
            producerProps.forEach((k, v) -> properties.setProperty(k, String.valueOf(v instanceof Class
                    ? ((Class<?>) v).getName() : v)));
            try (Writer out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
                properties.store(out, "KIP-480 peer producer");
            }
            Path log = workDir.resolve("kip480-" + topic + ".log");
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", classpath(),
                    ThrottledProducerRun.class.getName(),
                    config.toString(), topic, Integer.toString(partitions), Integer.toString(recordSize),
                    Long.toString(bytesPerSecond), Long.toString(duration.toMillis()), Long.toString(seed)));
            Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
            List<String> output;
            try (InputStream in = process.getInputStream()) {
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().collect(Collectors.toList());
            }
            if (!process.waitFor(duration.toSeconds() + 120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException("The KIP-480 producer JVM failed; see " + log);
            }
            return ThrottledProducerRun.Result.fromLines(output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while the KIP-480 producer ran", e);
        }
    }

    private static String classpath() throws IOException {
        Properties location = new Properties();
        try (InputStream in = Kip480Jvm.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing: build the lab module with Maven");
            }
            location.load(in);
        }
        Path dir = Path.of(location.getProperty("dir"));
        List<String> entries = new ArrayList<>();
        try (Stream<Path> jars = Files.list(dir)) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(p -> entries.add(p.toString()));
        } catch (IOException e) {
            throw new IllegalStateException("kafka-clients 3.9.1 jars are missing from " + dir
                    + "; rebuild the lab with 'mvn -B -DskipTests package'", e);
        }
        try {
            entries.add(Path.of(ThrottledProducerRun.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .toString());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return String.join(java.io.File.pathSeparator, entries);
    }
}
