package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.lab.cluster.ClusterSecurity;
import io.kscale.lab.cluster.KafkaCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code kscale-lab cluster} prints once the cluster is up. Issue 17 (finding 7): on a
 * secured cluster it printed the admin's JAAS line (with the password) and the truststore
 * password to standard output, where terminals, CI logs and screen shares keep them. It now
 * prints the path of the settings file only, and the file is readable by its owner only.
 */
class ClusterCommandTest {

    private static final String ADMIN_PASSWORD = "admin-password-Xq7";
    private static final String TRUSTSTORE_PASSWORD = "truststore-password-Zr4";

    @Test
    void shouldPrintOnlyThePathOfTheSettingsFileOfASecuredCluster(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("admin.properties");
        StringWriter out = new StringWriter();

        ClusterCommand.announce(new PrintWriter(out, true), new SecuredCluster(), file);

        assertThat(out.toString()).doesNotContain(ADMIN_PASSWORD).doesNotContain(TRUSTSTORE_PASSWORD)
                .doesNotContain("sasl.jaas.config").contains(file.toAbsolutePath().toString())
                .contains("127.0.0.1:9092");
        assertThat(Files.readString(file, StandardCharsets.UTF_8)).contains(ADMIN_PASSWORD).contains(TRUSTSTORE_PASSWORD);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    /** A secured cluster's face, with known secrets. */
    private static final class SecuredCluster implements KafkaCluster {
        @Override
        public String bootstrapServers() {
            return "127.0.0.1:9092";
        }

        @Override
        public Map<String, Object> clientProperties() {
            Map<String, Object> props = new LinkedHashMap<>();
            props.put("bootstrap.servers", bootstrapServers());
            props.put("security.protocol", "SASL_SSL");
            props.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                    + "username=\"admin\" password=\"" + ADMIN_PASSWORD + "\";");
            props.put("ssl.truststore.password", TRUSTSTORE_PASSWORD);
            return props;
        }

        @Override
        public ClusterSecurity security() {
            return ClusterSecurity.SASL_SSL;
        }

        @Override
        public Set<String> secrets() {
            return Set.of(ADMIN_PASSWORD, TRUSTSTORE_PASSWORD);
        }

        @Override
        public int brokerCount() {
            return 1;
        }

        @Override
        public void pause(int brokerId) {
        }

        @Override
        public void resume(int brokerId) {
        }

        @Override
        public boolean isFrozen(int brokerId) {
            return false;
        }

        @Override
        public void kill(int brokerId) {
        }

        @Override
        public void restart(int brokerId) {
        }

        @Override
        public void setLatency(int brokerId, Duration delay) {
        }

        @Override
        public void close() {
        }
    }
}
