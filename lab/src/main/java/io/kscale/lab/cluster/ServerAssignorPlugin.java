package io.kscale.lab.cluster;

import io.kscale.assignor.KeyPreservingAssignor;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * kscale's broker-side assignor on a cluster the lab starts: the jar that carries it, and the
 * broker setting that offers it beside Kafka's own assignors. Both backends take them from the
 * {@link ClusterSpec} alike: the process backend puts the jar on each broker's classpath, the
 * Docker backend copies it into {@code /opt/kafka/libs} of each container before it starts (the
 * {@code apache/kafka} image's contract, so the lab's image stays a plain Kafka image), and the
 * setting becomes {@code group.consumer.assignors} or {@code KAFKA_GROUP_CONSUMER_ASSIGNORS}.
 *
 * <p>Example: {@code addTo(ClusterSpec.builder(), workDir).build()} gives brokers that load
 * {@code kscale-assignor-<version>.jar} and list
 * {@code io.kscale.assignor.KeyPreservingServerAssignor,uniform,range}; a consumer picks the first
 * with {@code group.protocol=consumer} and {@code group.remote.assignor=kscale-key-preserving}.
 * Kafka's coordinator accepts class names and its built-in names in one list (it instantiates
 * what is not a built-in name), and the first one is the default for members that name none.
 *
 * <p>The jar is the assignor module's own when this JVM runs from it (a Maven reactor build:
 * {@code assignor/target/kscale-assignor-*.jar}); otherwise (classes in a folder, or the lab's
 * single runnable jar) it is written from this JVM's classpath: every entry under
 * {@code io/kscale/assignor/}, which is the whole assignor module and nothing else.
 */
public final class ServerAssignorPlugin {

    /** The broker-side assignor's class, by name: this module compiles without it. */
    public static final String SERVER_ASSIGNOR_CLASS = "io.kscale.assignor.KeyPreservingServerAssignor";
    /** Its {@code name()}, the value of the consumers' {@code group.remote.assignor}. */
    public static final String SERVER_ASSIGNOR_NAME = "kscale-key-preserving";
    /** The broker setting that lists the assignors a consumer group may pick. */
    public static final String ASSIGNORS_CONFIG = "group.consumer.assignors";
    /** Kafka's built-in broker-side assignors, in its default order. */
    public static final String KAFKA_ASSIGNORS = "uniform,range";

    /**
     * Broker settings for quick scenarios and tests on the consumer protocol: heartbeats every
     * 500 ms instead of 5 s (the minimum the broker allows by default). A member learns of each new
     * target assignment at a heartbeat, and of a revocation's completion at the next one.
     */
    public static final Map<String, String> FAST_HEARTBEATS = Map.of(
            "group.consumer.min.heartbeat.interval.ms", "500",
            "group.consumer.heartbeat.interval.ms", "500");

    static final String MODULE_PACKAGE = "io/kscale/assignor/";
    static final String WRITTEN_JAR = "kscale-assignor-plugin.jar";

    private ServerAssignorPlugin() {
    }

    /**
     * @return whether the broker-side assignor is in the assignor module this JVM runs. Looks for
     *     its class file without loading it: the class implements Kafka's broker-side API, which
     *     brokers have and clients (this JVM) do not.
     */
    public static boolean isAvailable() {
        String classFile = SERVER_ASSIGNOR_CLASS.replace('.', '/') + ".class";
        return ServerAssignorPlugin.class.getClassLoader().getResource(classFile) != null;
    }

    /**
     * @return whether the brokers the lab runs ({@code -Dkscale.broker.version}) can serve the
     *     assignor: Kafka 4.0 and newer, where KIP-848 is generally available. Kafka 3.9 has the
     *     same interface as a preview, but its {@value #ASSIGNORS_CONFIG} takes class names only,
     *     so it refuses to start with {@link #assignorsSetting()}'s built-in names.
     */
    public static boolean brokersServeIt() {
        return servesIt(BrokerClasspath.kafkaVersion());
    }

    /** @return whether brokers of this Kafka version (such as {@code 4.0.2}) can serve the assignor */
    static boolean servesIt(String kafkaVersion) {
        int dot = kafkaVersion.indexOf('.');
        return Integer.parseInt(dot < 0 ? kafkaVersion : kafkaVersion.substring(0, dot)) >= 4;
    }

    /**
     * @return {@value #ASSIGNORS_CONFIG}: kscale's assignor first where the module has it, then
     *     {@value #KAFKA_ASSIGNORS}
     */
    public static String assignorsSetting() {
        return isAvailable() ? SERVER_ASSIGNOR_CLASS + "," + KAFKA_ASSIGNORS : KAFKA_ASSIGNORS;
    }

    /** What a broker logs once the broker-side assignor's task count store has read its topic. */
    public static final String STORE_LOADED_LINE = "Task count store loaded from topic";

    /** Whether a cluster of this spec runs kscale's broker-side assignor. */
    static boolean listedIn(ClusterSpec spec) {
        String assignors = spec.brokerProperties().get(ASSIGNORS_CONFIG);
        return assignors != null && Arrays.stream(assignors.split(",")).map(String::trim)
                .anyMatch(SERVER_ASSIGNOR_CLASS::equals);
    }

    /**
     * Waits until every broker says its task count store has loaded. Until then the assignor
     * holds every topic, and a group that forms meanwhile gets no partitions until its next
     * membership change (docs/server-assignor.md, "Held topics"): a scenario or a test that
     * started its consumers sooner would take that for a failure of its own.
     *
     * @throws IllegalStateException naming the brokers that did not within the timeout
     */
    static void awaitTaskCountStores(KafkaCluster cluster, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Integer> waiting = new ArrayList<>(cluster.brokerIds());
        while (true) {
            waiting.removeIf(broker -> cluster.brokerLogText(broker).contains(STORE_LOADED_LINE));
            if (waiting.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("The task count store of kscale's broker-side assignor did not load"
                        + " within " + timeout.toSeconds() + " s on broker(s) " + waiting + ": their logs do not say '"
                        + STORE_LOADED_LINE + "'");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for the task count stores", e);
            }
        }
    }

    /**
     * Adds the plug-in jar and {@link #assignorsSetting()} to a cluster spec.
     *
     * @param jarDir where to write the jar if it has to be written
     */
    public static ClusterSpec.Builder addTo(ClusterSpec.Builder spec, Path jarDir) {
        return spec.pluginJar(jar(jarDir)).brokerProperty(ASSIGNORS_CONFIG, assignorsSetting());
    }

    /**
     * The assignor module's jar: its own file when this JVM loads the module from one, else one
     * written into {@code dir} (replaced atomically, so concurrent callers do not see half a jar).
     */
    public static Path jar(Path dir) {
        return jarFrom(codeSource(), dir);
    }

    /** As {@link #jar}, for the module's classes at {@code source}: a jar or a folder. */
    static Path jarFrom(Path source, Path dir) {
        if (isModuleJar(source)) {
            return source;
        }
        try {
            Files.createDirectories(dir);
            Path written = dir.resolve(WRITTEN_JAR);
            Path partial = Files.createTempFile(dir, WRITTEN_JAR, ".part");
            readableByAll(partial);
            try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(partial))) {
                if (Files.isDirectory(source)) {
                    copyFolder(source, out);
                } else {
                    copyJarEntries(source, out);
                }
            }
            return Files.move(partial, written, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the kscale assignor jar into " + dir, e);
        }
    }

    /**
     * A temporary file is readable by its owner only; the jar must be readable by the broker's
     * user too, which in the {@code apache/kafka} image is not the user that copies it in.
     */
    private static void readableByAll(Path file) throws IOException {
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        }
    }

    /** A module jar as Maven names it, not its tests or sources. */
    static boolean isModuleJar(Path source) {
        String name = source.getFileName().toString();
        return Files.isRegularFile(source) && name.startsWith("kscale-assignor-") && name.endsWith(".jar")
                && !name.endsWith("-tests.jar") && !name.endsWith("-sources.jar");
    }

    private static Path codeSource() {
        try {
            return Path.of(KeyPreservingAssignor.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            throw new IllegalStateException("Cannot tell where the kscale assignor's classes come from", e);
        }
    }

    private static void copyFolder(Path classes, JarOutputStream out) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes.resolve(MODULE_PACKAGE))) {
            files = walk.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
        }
        for (Path file : files) {
            String name = classes.relativize(file).toString().replace(java.io.File.separatorChar, '/');
            out.putNextEntry(new JarEntry(name));
            Files.copy(file, out);
            out.closeEntry();
        }
    }

    private static void copyJarEntries(Path jar, JarOutputStream out) throws IOException {
        try (JarFile in = new JarFile(jar.toFile())) {
            List<JarEntry> entries = new ArrayList<>();
            for (Enumeration<JarEntry> e = in.entries(); e.hasMoreElements(); ) {
                JarEntry entry = e.nextElement();
                if (!entry.isDirectory() && entry.getName().startsWith(MODULE_PACKAGE)) {
                    entries.add(entry);
                }
            }
            for (JarEntry entry : entries) {
                out.putNextEntry(new JarEntry(entry.getName()));
                try (InputStream body = in.getInputStream(entry)) {
                    body.transferTo(out);
                }
                out.closeEntry();
            }
        }
    }
}
