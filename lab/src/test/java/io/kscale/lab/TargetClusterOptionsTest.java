package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.lab.cluster.ProcessKafkaCluster;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** --command-config takes the file {@code kscale-lab cluster} writes as is. */
class TargetClusterOptionsTest {

    @Test
    void shouldRunOnTheClusterOfACommandConfigWithBootstrapServers(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Map<String, Object> written = new LinkedHashMap<>();
        written.put("bootstrap.servers", "127.0.0.1:41234");
        written.put("security.protocol", "SASL_SSL");
        written.put("sasl.mechanism", "SCRAM-SHA-512");
        written.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"admin\" password=\"pw\";");
        ProcessKafkaCluster.writeClientProperties(file, written);
        TargetClusterOptions target = parse("--command-config", file.toString());

        assertThat(target.userCluster()).isTrue();
        assertThat(target.bootstrapServer()).isEqualTo("127.0.0.1:41234");
        assertThat(target.userClusterProperties()).containsExactlyInAnyOrderEntriesOf(written);
    }

    @Test
    void shouldPreferBootstrapServerOverTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        ProcessKafkaCluster.writeClientProperties(file, Map.of("bootstrap.servers", "127.0.0.1:1", "acks", "all"));
        TargetClusterOptions target = parse("--command-config", file.toString(), "--bootstrap-server", "127.0.0.1:2");

        assertThat(target.userClusterProperties())
                .containsEntry("bootstrap.servers", "127.0.0.1:2").containsEntry("acks", "all");
    }

    @Test
    void shouldStartAClusterWhenNeitherNamesOne(@TempDir Path dir) {
        Path file = dir.resolve("client.properties");
        ProcessKafkaCluster.writeClientProperties(file, Map.of("acks", "all"));
        assertThat(parse("--command-config", file.toString()).userCluster()).isFalse();
    }

    private static TargetClusterOptions parse(String... args) {
        TargetClusterOptions target = new TargetClusterOptions();
        new CommandLine(target).parseArgs(args);
        return target;
    }
}
