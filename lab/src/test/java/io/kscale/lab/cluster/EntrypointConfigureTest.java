package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's {@code configure} script, run by bash here: it must map {@code KAFKA_*} variables
 * to broker properties exactly as the apache/kafka image does, which is what the docker backend
 * ({@link KafkaImageEnvironment}) writes them for.
 */
class EntrypointConfigureTest {

    @TempDir
    Path dir;

    @Test
    void shouldMapVariablesToPropertiesAsTheApacheImageDoes() throws Exception {
        Map<String, String> env = Map.of(
                "KAFKA_LOG_DIRS", "/data",
                "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "BROKER:PLAINTEXT",
                "KAFKA_LISTENER_NAME_BROKER_SCRAM___SHA___512_SASL_JAAS_CONFIG", "x",
                "KAFKA_SOME__UNDERSCORED_KEY", "y");

        String properties = configure(env);

        for (String variable : env.keySet()) {
            String key = KafkaImageEnvironment.propertyKey(variable);
            assertThat(properties).contains(key + "=" + env.get(variable) + "\n");
        }
        assertThat(properties).contains("listener.name.broker.scram-sha-512.sasl.jaas.config=x\n",
                "some_underscored.key=y\n");
    }

    @Test
    void shouldKeepJvmOptionsOutOfTheProperties() throws Exception {
        String properties = configure(Map.of("KAFKA_NODE_ID", "3", "KAFKA_HEAP_OPTS", "-Xmx1g",
                "KAFKA_JVM_PERFORMANCE_OPTS", "-XX:+UseSerialGC", "KAFKA_OPTS", "-Dx=y"));

        assertThat(properties).isEqualTo("node.id=3\nlog.dirs=/var/lib/kafka/data\n");
    }

    private String configure(Map<String, String> env) throws Exception {
        Path script = dir.resolve("configure");
        try (InputStream in = getClass().getResourceAsStream("/io/kscale/lab/image/configure")) {
            Files.write(script, in.readAllBytes());
        }
        ProcessBuilder builder = new ProcessBuilder("bash", script.toString());
        builder.environment().keySet().removeIf(k -> k.startsWith("KAFKA_"));
        builder.environment().putAll(env);
        Process process = builder.redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output;
    }
}
