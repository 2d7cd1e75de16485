package io.kscale.lab.cluster;

import io.kscale.broker.BrokerMain;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The classpath of a broker JVM: the jars of {@code kafka_2.13} and its runtime dependencies,
 * as Maven resolved them when it built the {@code broker-runtime} module (resource
 * {@value #RESOURCE}), plus {@link BrokerMain}, which is copied out of this JVM's own classpath
 * into a folder of the cluster, so the broker never sees the lab's other classes.
 */
public final class BrokerClasspath {

    static final String RESOURCE = "/io/kscale/broker/broker.classpath";
    private static final Pattern BROKER_JAR = Pattern.compile("kafka_2\\.13-(.+)\\.jar");
    private static final String LAUNCHER_CLASS = BrokerMain.class.getName().replace('.', '/') + ".class";

    private BrokerClasspath() {
    }

    /**
     * Writes the launcher under {@code clusterDir} and returns the full classpath string.
     *
     * @throws IllegalStateException when the resource is missing or names a jar that is gone
     *                               (the local Maven repository was cleaned: rebuild)
     */
    static String prepare(Path clusterDir, List<Path> pluginJars) {
        List<String> entries = new ArrayList<>();
        entries.add(extractLauncher(clusterDir.resolve("launcher")).toString());
        List<String> brokerJars = readResolvedJars();
        for (String jar : brokerJars) {
            if (!Files.exists(Path.of(jar))) {
                throw new IllegalStateException("Broker jar " + jar + " is missing from the local Maven"
                        + " repository; rebuild with 'mvn -B -DskipTests install' to fetch it again");
            }
        }
        entries.addAll(brokerJars);
        for (Path jar : pluginJars) {
            if (!Files.exists(jar)) {
                throw new IllegalArgumentException("Plugin jar " + jar + " does not exist");
            }
            entries.add(jar.toAbsolutePath().toString());
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    /**
     * The broker's jars, {@code kafka_2.13} and its runtime dependencies, without the launcher:
     * what the local Docker image ({@code io.kscale.lab.image}) puts in {@code /opt/kafka/libs}.
     */
    public static List<Path> brokerJars() {
        return readResolvedJars().stream().map(Path::of).collect(Collectors.toList());
    }

    /**
     * @return the Kafka version of the brokers this build runs ({@code -Dkscale.broker.version}),
     *     from the name of their {@code kafka_2.13-<version>.jar}, e.g. {@code 4.0.2}
     * @throws IllegalStateException if no broker jar is named so
     */
    public static String kafkaVersion() {
        return kafkaVersion(brokerJars());
    }

    /** As {@link #kafkaVersion()}, of these jars. */
    static String kafkaVersion(List<Path> jars) {
        for (Path jar : jars) {
            Matcher name = BROKER_JAR.matcher(jar.getFileName().toString());
            if (name.matches()) {
                return name.group(1);
            }
        }
        throw new IllegalStateException("No kafka_2.13 jar among the broker jars " + jars);
    }

    private static List<String> readResolvedJars() {
        try (InputStream in = BrokerClasspath.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("Resource " + RESOURCE + " is missing: build the"
                        + " broker-runtime module with Maven first");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            return Arrays.stream(text.split(java.io.File.pathSeparator))
                    .filter(s -> !s.isBlank())
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path extractLauncher(Path launcherDir) {
        Path target = launcherDir.resolve(LAUNCHER_CLASS);
        try (InputStream in = BrokerClasspath.class.getResourceAsStream("/" + LAUNCHER_CLASS)) {
            if (in == null) {
                throw new IllegalStateException(LAUNCHER_CLASS + " is not on the classpath");
            }
            Files.createDirectories(target.getParent());
            Files.write(target, in.readAllBytes());
            return launcherDir.toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
