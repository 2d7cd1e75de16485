package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterSecurityTest {

    @Test
    void shouldDefaultToPlaintext() {
        assertThat(ClusterSpec.builder().build().security()).isEqualTo(ClusterSecurity.PLAINTEXT);
        assertThat(ClusterSpec.builder().security(ClusterSecurity.SASL_SSL).build().security())
                .isEqualTo(ClusterSecurity.SASL_SSL);
    }

    @Test
    void shouldParseCommandLineValues() {
        assertThat(ClusterSecurity.parse("sasl_ssl")).isEqualTo(ClusterSecurity.SASL_SSL);
        assertThat(ClusterSecurity.parse(" SASL-SSL ")).isEqualTo(ClusterSecurity.SASL_SSL);
        assertThat(ClusterSecurity.parse("plaintext")).isEqualTo(ClusterSecurity.PLAINTEXT);
        assertThatThrownBy(() -> ClusterSecurity.parse("ssl")).hasMessageContaining("'ssl'")
                .hasMessageContaining("plaintext or sasl_ssl");
    }

    @Test
    void shouldRefuseASecuredClusterOnDockerBeforeTouchingDocker() {
        ClusterSpec spec = ClusterSpec.builder().security(ClusterSecurity.SASL_SSL).build();

        assertThatThrownBy(() -> KafkaClusters.start(spec, "docker"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("docker backend cannot start a SASL_SSL cluster")
                .hasMessageContaining("process backend");
        assertThatThrownBy(() -> DockerKafkaCluster.start(spec, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> KafkaClusters.start(spec, "podman")).hasMessageContaining("'podman'");
    }

    @Test
    void shouldMakeDistinctRandomSecretsAndRememberThem() {
        ClusterCredentials credentials = new ClusterCredentials(Path.of("unused"));
        String a = credentials.newSecret();
        String b = credentials.newSecret();

        assertThat(a).isNotEqualTo(b).hasSize(32).matches("[A-Za-z0-9_-]+");
        assertThat(credentials.secrets()).contains(a, b).hasSize(5); // keystore, truststore, admin, a, b
    }

    @Test
    void shouldPutEverySecretInTheBrokerAndClientSettingsItCreated() {
        ClusterCredentials credentials = new ClusterCredentials(Path.of("unused"));
        Map<String, Object> admin = credentials.adminProperties("127.0.0.1:9092");

        assertThat(admin).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsKeys("sasl.jaas.config", "ssl.truststore.location", "ssl.truststore.password");
        assertThat(admin.get("sasl.jaas.config").toString()).contains("username=\"admin\"");
        assertThat(credentials.brokerSettings()).containsEntry("allow.everyone.if.no.acl.found", "false")
                .containsEntry("super.users", "User:admin;User:CN=kscale-broker");
    }

    /**
     * Issue 17 (finding 7): the admin's SCRAM password went to {@code StorageTool} as an argument,
     * which every user of the machine reads in {@code /proc/<pid>/cmdline}. It goes in an
     * argument file (StorageTool's parser reads {@code @file}, one argument a line) made 0600.
     */
    @Test
    void shouldPassTheAdminsScramCredentialToStorageFormatThroughAnOwnerOnlyFile(@TempDir Path dir) throws Exception {
        ClusterCredentials credentials = new ClusterCredentials(Path.of("unused"));
        Path file = dir.resolve("storage-format.args");

        java.util.List<String> args = credentials.formatArguments(file);

        assertThat(args).containsExactly("@" + file.toAbsolutePath());
        for (String secret : credentials.secrets()) {
            assertThat(String.join(" ", args)).doesNotContain(secret);
        }
        assertThat(Files.readAllLines(file)).hasSize(2).first().isEqualTo("--add-scram");
        assertThat(Files.readAllLines(file).get(1)).startsWith("SCRAM-SHA-512=[name=admin,password=");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void shouldCreatePrivateFoldersAndReplaceAFileOpenToOthersByAPrivateOne(@TempDir Path dir) throws Exception {
        Path folder = PrivateFiles.createDirectory(dir.resolve("security"));
        Path file = folder.resolve("server.properties");
        Files.writeString(file, "old");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        PrivateFiles.write(file, java.util.List.of("ssl.keystore.password=x"));

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(Files.readString(file)).isEqualTo("ssl.keystore.password=x\n");
    }

    @Test
    void shouldWriteClientSettingsThatPropertiesReadBackUnchanged(@TempDir Path dir) throws Exception {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", "127.0.0.1:1,127.0.0.1:2");
        props.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"app\" password=\"a-b_C\";");
        props.put("ssl.truststore.location", dir.resolve("trust store.p12").toString());
        Path file = dir.resolve("client.properties");

        ProcessKafkaCluster.writeClientProperties(file, props);

        Properties read = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            read.load(in);
        }
        assertThat(read).containsExactlyInAnyOrderEntriesOf(props);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }
}
