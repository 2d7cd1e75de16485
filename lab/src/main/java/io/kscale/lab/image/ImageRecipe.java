package io.kscale.lab.image;

import io.kscale.lab.cluster.BrokerClasspath;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What kscale's offline Kafka image is made of, and the names that follow from it.
 *
 * <p>Two images. The base, {@value #BASE_REPOSITORY}{@code :<suite>-<hash>}, is a Debian
 * {@code minbase} root file system with {@value #JRE_PACKAGE}, made by {@code debootstrap} and
 * {@code docker import}. The Kafka image, {@value #REPOSITORY}{@code :<kafka version>-<hash>},
 * adds the broker jars that {@code broker-runtime} resolved and the files of
 * {@value #RESOURCE_DIR} (the Dockerfile and an entrypoint that keeps apache/kafka's contract).
 *
 * <p>Each tag ends with the first 12 hex digits of a SHA-256 over the image's inputs: for the
 * base, the suite and package list; for the Kafka image, the base tag, every file's content and
 * every jar's name and content. Equal inputs give an equal tag, so a built image is reused, and
 * any changed input (a Kafka upgrade, an edited entrypoint) gives a new tag and a rebuild. The
 * Debian mirror is not an input: any mirror serves the same suite.
 */
public final class ImageRecipe {

    public static final String REPOSITORY = "kscale/kafka";
    public static final String BASE_REPOSITORY = "kscale/debian-jre";
    static final String JRE_PACKAGE = "openjdk-17-jre-headless";
    static final String DEFAULT_SUITE = "bookworm";
    static final String RESOURCE_DIR = "/io/kscale/lab/image/";
    /** Files of {@value #RESOURCE_DIR} and where they go in the build context. */
    static final Map<String, String> FILES = files();
    private static final Pattern KAFKA_JAR = Pattern.compile("kafka_2\\.13-(.+)\\.jar");

    private static volatile ImageRecipe current;

    private final String suite;
    private final List<Path> jars;
    private final String kafkaVersion;
    private final String baseTag;
    private final String imageTag;

    ImageRecipe(String suite, List<Path> jars) {
        this.suite = Objects.requireNonNull(suite, "suite");
        this.jars = List.copyOf(jars);
        this.kafkaVersion = kafkaVersion(jars);
        this.baseTag = BASE_REPOSITORY + ":" + suite + "-" + hash(digest -> update(digest, "suite=" + suite
                + ";variant=minbase;include=" + JRE_PACKAGE));
        this.imageTag = REPOSITORY + ":" + kafkaVersion + "-" + hash(digest -> {
            update(digest, baseTag);
            for (String file : FILES.keySet()) {
                update(digest, file);
                digest.update(resource(file));
            }
            for (Path jar : this.jars) {
                update(digest, jar.getFileName().toString());
                digest.update(read(jar));
            }
        });
    }

    /**
     * The recipe of this build: Debian {@value #DEFAULT_SUITE} and the broker jars of
     * {@code broker-runtime}. Hashing the jars takes a fraction of a second, so it is done once.
     */
    public static ImageRecipe current() {
        ImageRecipe recipe = current;
        if (recipe == null) {
            recipe = new ImageRecipe(DEFAULT_SUITE, BrokerClasspath.brokerJars());
            current = recipe;
        }
        return recipe;
    }

    public String imageTag() {
        return imageTag;
    }

    String baseTag() {
        return baseTag;
    }

    String suite() {
        return suite;
    }

    List<Path> jars() {
        return jars;
    }

    String kafkaVersion() {
        return kafkaVersion;
    }

    /** A file of {@value #RESOURCE_DIR}. */
    static byte[] resource(String name) {
        try (InputStream in = ImageRecipe.class.getResourceAsStream(RESOURCE_DIR + name)) {
            if (in == null) {
                throw new IllegalStateException("Resource " + RESOURCE_DIR + name + " is missing from the lab");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, String> files() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put("Dockerfile", "Dockerfile");
        files.put("run", "docker/run");
        files.put("configure", "docker/configure");
        files.put("log4j2.properties", "config/log4j2.properties");
        files.put("tools-log4j2.properties", "config/tools-log4j2.properties");
        files.put("default-server.properties", "config/default-server.properties");
        return Collections.unmodifiableMap(files);
    }

    private static String kafkaVersion(List<Path> jars) {
        List<String> versions = new ArrayList<>();
        for (Path jar : jars) {
            Matcher matcher = KAFKA_JAR.matcher(jar.getFileName().toString());
            if (matcher.matches()) {
                versions.add(matcher.group(1));
            }
        }
        if (versions.size() != 1) {
            throw new IllegalStateException("Expected one kafka_2.13 jar among the broker jars, found " + versions);
        }
        return versions.get(0);
    }

    private static byte[] read(Path jar) {
        try {
            return Files.readAllBytes(jar);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read broker jar " + jar
                    + "; rebuild with 'mvn -B -DskipTests install' to fetch it again", e);
        }
    }

    private static void update(MessageDigest digest, String text) {
        digest.update(text.getBytes(StandardCharsets.UTF_8));
        digest.update((byte) 0); // separates inputs: "ab"+"c" differs from "a"+"bc"
    }

    private interface DigestInput {
        void addTo(MessageDigest digest);
    }

    private static String hash(DigestInput input) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            input.addTo(digest);
            return HexFormat.of().formatHex(digest.digest()).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
