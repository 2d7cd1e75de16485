package io.kscale.it.support;

import static org.junit.jupiter.api.Assumptions.abort;

import io.kscale.lab.expansion.MemberCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The librdkafka consumer of the integration tests: {@code src/test/node/librdkafka-member/member.js}
 * on {@code @confluentinc/kafka-javascript} (librdkafka inside), built by
 * {@code .ci/librdkafka-client} into a folder outside the checkout. The folder is
 * {@value #DIRECTORY_PROPERTY} or {@value #DIRECTORY_ENV} if set, else
 * {@code ~/.cache/kscale/librdkafka-client-<version>}, the version being the one package.json pins.
 * Where it is not built, {@link #assumeBuilt()} skips the caller and says how to build it.
 */
public final class LibrdkafkaClient {

    public static final String DIRECTORY_PROPERTY = "kscale.librdkafka.client";
    public static final String DIRECTORY_ENV = "KSCALE_LIBRDKAFKA_CLIENT";
    /** Set to 1 to fail, not skip, where the client is not built ({@code .ci/run} builds it and sets it). */
    public static final String REQUIRE_ENV = "KSCALE_REQUIRE_LIBRDKAFKA";

    /** The member's sources, from the integration-tests module (Failsafe's working directory). */
    static final Path SOURCES = Path.of("src", "test", "node", "librdkafka-member");
    private static final String MODULE = "node_modules/@confluentinc/kafka-javascript";
    private static final String NATIVE_MODULE = MODULE + "/build/Release/confluent-kafka-javascript.node";
    private static final Pattern PINNED = Pattern.compile("\"@confluentinc/kafka-javascript\"\\s*:\\s*\"([^\"]+)\"");

    private LibrdkafkaClient() {
    }

    /** @return the version of {@code @confluentinc/kafka-javascript} that package.json pins */
    public static String pinnedVersion() {
        try {
            String packageJson = Files.readString(SOURCES.resolve("package.json"), StandardCharsets.UTF_8);
            Matcher pinned = PINNED.matcher(packageJson);
            if (!pinned.find()) {
                throw new IllegalStateException(SOURCES.resolve("package.json") + " pins no @confluentinc/kafka-javascript");
            }
            return pinned.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return where the built client is, or should be */
    public static Path directory() {
        String configured = System.getProperty(DIRECTORY_PROPERTY, System.getenv(DIRECTORY_ENV));
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        return Path.of(System.getProperty("user.home"), ".cache", "kscale", "librdkafka-client-" + pinnedVersion());
    }

    /**
     * Skips the caller, with how to build the client, unless it is built; fails it instead where
     * {@value #REQUIRE_ENV} is 1, so that CI cannot pass by skipping.
     */
    public static void assumeBuilt() {
        Path module = directory().resolve(NATIVE_MODULE);
        if (Files.isRegularFile(module)) {
            return;
        }
        String reason = "the librdkafka client is not built (no " + module
                + "): run .ci/librdkafka-client (2.5 to 5 minutes on 2 cores: node-gyp compiles librdkafka from the npm"
                + " package's sources; needs node, npm, g++, make, python3), or point -D" + DIRECTORY_PROPERTY
                + " or " + DIRECTORY_ENV + " at a built one";
        if ("1".equals(System.getenv(REQUIRE_ENV))) {
            throw new IllegalStateException(reason + " (" + REQUIRE_ENV + "=1 makes this a failure)");
        }
        abort(reason);
    }

    /** @return the command that runs one member, for {@code ExpansionSettings.withMemberCommand} */
    public static MemberCommand memberCommand() {
        Path nodeModules = directory().resolve("node_modules").toAbsolutePath();
        return new MemberCommand("librdkafka (@confluentinc/kafka-javascript " + pinnedVersion() + ")",
                List.of("node", "member.js"), Map.of("NODE_PATH", nodeModules.toString()),
                SOURCES.toAbsolutePath());
    }
}
