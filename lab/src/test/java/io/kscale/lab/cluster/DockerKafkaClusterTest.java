package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.model.PortBinding;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.utility.DockerImageName;

/** The Docker backend's pure parts; starting containers needs a Docker engine, which the build machine lacks. */
class DockerKafkaClusterTest {

    @Test
    void shouldNameEnvironmentVariablesAsTheKafkaImageReadsThem() {
        assertThat(KafkaImageEnvironment.envVarName("group.initial.rebalance.delay.ms"))
                .isEqualTo("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS");
        assertThat(KafkaImageEnvironment.envVarName("log.segment.bytes")).isEqualTo("KAFKA_LOG_SEGMENT_BYTES");
        assertThat(KafkaImageEnvironment.envVarName("listener.name.internal_x.sasl.enabled.mechanisms"))
                .isEqualTo("KAFKA_LISTENER_NAME_INTERNAL__X_SASL_ENABLED_MECHANISMS");
        assertThat(KafkaImageEnvironment.envVarName("some-plugin.key")).isEqualTo("KAFKA_SOME___PLUGIN_KEY");
    }

    @Test
    void shouldRoundTripKeysThroughTheImagesDecoding() {
        for (String key : List.of("auto.create.topics.enable", "offsets.topic.replication.factor",
                "share.coordinator.state.topic.min.isr", "a_b.c-d", "num.io.threads", "log.cleaner.dedupe.buffer.size")) {
            assertThat(KafkaImageEnvironment.propertyKey(KafkaImageEnvironment.envVarName(key))).as(key).isEqualTo(key);
        }
    }

    @Test
    void shouldRejectKeysTheImageCannotExpress() {
        for (String key : List.of("Foo.Bar", "a b", "", "a_.b", "a._b", "group.kafka.thing", ".leading")) {
            assertThatThrownBy(() -> KafkaImageEnvironment.envVarName(key))
                    .as("key '%s'", key)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("kscale.cluster=process");
        }
    }

    @Test
    void shouldListAStaticQuorumOverTheNetworkAliases() {
        assertThat(KafkaImageEnvironment.quorumVoters(1)).isEqualTo("0@kafka-0:9094");
        assertThat(KafkaImageEnvironment.quorumVoters(3)).isEqualTo("0@kafka-0:9094,1@kafka-1:9094,2@kafka-2:9094");
        assertThat(KafkaImageEnvironment.networkAlias(4)).isEqualTo("kafka-4");
    }

    @Test
    void shouldGiveEachNodeItsIdentityAndListenersOverTheSettings() {
        ClusterSpec spec = ClusterSpec.builder().brokers(3).brokerProperty("listeners", "PLAINTEXT://:1")
                .brokerProperty("node.id", "7").build();

        Map<String, String> env = KafkaImageEnvironment.containerEnv(spec, 1, "clusterid", ProcessKafkaCluster.brokerSettings(spec));

        assertThat(env)
                .containsEntry("CLUSTER_ID", "clusterid")
                .containsEntry("KAFKA_NODE_ID", "1")
                .containsEntry("KAFKA_PROCESS_ROLES", "broker,controller")
                .containsEntry("KAFKA_CONTROLLER_QUORUM_VOTERS", "0@kafka-0:9094,1@kafka-1:9094,2@kafka-2:9094")
                .containsEntry("KAFKA_LISTENERS", "PLAINTEXT://0.0.0.0:9092,BROKER://0.0.0.0:9093,CONTROLLER://0.0.0.0:9094")
                .containsEntry("KAFKA_INTER_BROKER_LISTENER_NAME", "BROKER")
                .containsEntry("KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER")
                .doesNotContainKey("KAFKA_ADVERTISED_LISTENERS");
        assertThat(env.get("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP").split(","))
                .containsExactlyInAnyOrder("BROKER:PLAINTEXT", "PLAINTEXT:PLAINTEXT", "CONTROLLER:PLAINTEXT");
    }

    @Test
    void shouldPassTheProcessBackendsDefaultsAndTheUsersOverrides() {
        ClusterSpec spec = ClusterSpec.builder().brokers(1).brokerHeap("512m")
                .brokerProperty("group.initial.rebalance.delay.ms", "100")
                .brokerProperty("log.segment.bytes", "1048576").build();

        Map<String, String> env = KafkaImageEnvironment.containerEnv(spec, 0, "id", ProcessKafkaCluster.brokerSettings(spec));

        assertThat(env)
                .containsEntry("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
                .containsEntry("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1")
                .containsEntry("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1")
                .containsEntry("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "100")
                .containsEntry("KAFKA_LOG_SEGMENT_BYTES", "1048576")
                .containsEntry("KAFKA_HEAP_OPTS", "-Xms64m -Xmx512m");
        assertThat(env.get("KAFKA_JVM_PERFORMANCE_OPTS")).contains("-XX:+UseSerialGC");
        // Every KAFKA_* variable that becomes a property decodes to a real key.
        env.keySet().stream()
                .filter(k -> k.startsWith("KAFKA_") && !k.equals("KAFKA_HEAP_OPTS") && !k.equals("KAFKA_JVM_PERFORMANCE_OPTS"))
                .forEach(k -> assertThat(KafkaImageEnvironment.propertyKey(k)).as(k).matches("[a-z0-9._-]+"));
    }

    @Test
    void shouldBindAFixedHostPortToTheClientListener() {
        String loopback = DockerKafkaCluster.portBinding("127.0.0.1", 41234);
        String anyAddress = DockerKafkaCluster.portBinding(null, 41234);

        assertThat(anyAddress).isEqualTo("41234:9092");
        PortBinding parsed = PortBinding.parse(loopback);
        assertThat(parsed.getBinding().getHostIp()).isEqualTo("127.0.0.1");
        assertThat(parsed.getBinding().getHostPortSpec()).isEqualTo("41234");
        assertThat(parsed.getExposedPort().getPort()).isEqualTo(KafkaImageEnvironment.CLIENT_PORT);
    }

    @Test
    void shouldUseTheDefaultImageUnlessThePropertyNamesAnother() {
        assertThat(DockerKafkaCluster.imageName(null).asCanonicalNameString()).isEqualTo("apache/kafka:4.4.0");
        assertThat(DockerKafkaCluster.imageName("  ").asCanonicalNameString()).isEqualTo(DockerKafkaCluster.DEFAULT_IMAGE);

        DockerImageName mirror = DockerKafkaCluster.imageName(" mirror.example.org/kafka/kafka:4.4.0 ");

        assertThat(mirror.asCanonicalNameString()).isEqualTo("mirror.example.org/kafka/kafka:4.4.0");
        assertThat(mirror.isCompatibleWith(DockerImageName.parse("apache/kafka"))).isTrue();
    }

    @Test
    void shouldCopyPluginJarsIntoTheBrokersLibFolder() {
        assertThat(DockerKafkaCluster.pluginPath(Path.of("target", "plugins", "kscale-assignor.jar")))
                .isEqualTo("/opt/kafka/libs/kscale-assignor.jar");
    }

    @Test
    void shouldRejectBadInputBeforeLookingForDocker(@TempDir Path dir) {
        ClusterSpec badKey = ClusterSpec.builder().brokers(1).workDir(dir).brokerProperty("Some.Key", "x").build();
        ClusterSpec missingJar = ClusterSpec.builder().brokers(1).workDir(dir)
                .pluginJar(dir.resolve("missing.jar")).build();

        assertThatThrownBy(() -> DockerKafkaCluster.start(badKey, DockerKafkaCluster.DEFAULT_IMAGE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Some.Key");
        assertThatThrownBy(() -> DockerKafkaCluster.start(missingJar, DockerKafkaCluster.DEFAULT_IMAGE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("missing.jar");
        assertThat(dir).isEmptyDirectory();
    }
}
