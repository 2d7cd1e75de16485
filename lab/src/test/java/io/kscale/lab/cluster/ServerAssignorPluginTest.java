package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerAssignorPluginTest {

    @TempDir
    Path dir;

    @Test
    void shouldTellTheBrokersKafkaVersionFromTheirKafkaJar() {
        List<Path> jars = List.of(Path.of("/m2/org/apache/kafka/kafka-clients/4.0.2/kafka-clients-4.0.2.jar"),
                Path.of("/m2/org/apache/kafka/kafka_2.13/4.0.2/kafka_2.13-4.0.2.jar"),
                Path.of("/m2/org/scala-lang/scala-library/2.13.15/scala-library-2.13.15.jar"));

        assertThat(BrokerClasspath.kafkaVersion(jars)).isEqualTo("4.0.2");
    }

    @Test
    void shouldOfferTheAssignorOnBrokersFromKafkaFourOn() {
        assertThat(ServerAssignorPlugin.servesIt("3.9.1")).as("3.9.1: KIP-848 preview").isFalse();
        assertThat(ServerAssignorPlugin.servesIt("4.0.2")).isTrue();
        assertThat(ServerAssignorPlugin.servesIt("4.4.0")).isTrue();
        assertThat(ServerAssignorPlugin.servesIt("10.0.0")).isTrue();
    }

    @Test
    void shouldUseTheModulesOwnJarAsItIs() throws IOException {
        Path moduleJar = jarWith(dir.resolve("kscale-assignor-0.1.0-SNAPSHOT.jar"), "io/kscale/assignor/A.class");

        assertThat(ServerAssignorPlugin.jarFrom(moduleJar, dir.resolve("out"))).isEqualTo(moduleJar);
    }

    @Test
    void shouldWriteOnlyTheAssignorModulesClassesOutOfTheLabsRunnableJar() throws IOException {
        Path labJar = jarWith(dir.resolve("kscale-lab.jar"), "io/kscale/assignor/A.class",
                "io/kscale/assignor/internals/server/B.class", "io/kscale/lab/KscaleLab.class",
                "org/apache/kafka/clients/consumer/KafkaConsumer.class");

        Path written = ServerAssignorPlugin.jarFrom(labJar, dir.resolve("out"));

        assertThat(written.getFileName()).hasToString(ServerAssignorPlugin.WRITTEN_JAR);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(written)))
                .as("readable by the broker's user in a container").isEqualTo("rw-r--r--");
        assertThat(entries(written)).containsExactly("io/kscale/assignor/A.class",
                "io/kscale/assignor/internals/server/B.class");
    }

    @Test
    void shouldWriteAJarOfAFolderOfClasses() throws IOException {
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes.resolve("io/kscale/assignor/internals"));
        Files.write(classes.resolve("io/kscale/assignor/A.class"), new byte[] {1});
        Files.write(classes.resolve("io/kscale/assignor/internals/B.class"), new byte[] {2});

        Path written = ServerAssignorPlugin.jarFrom(classes, dir.resolve("out"));

        assertThat(entries(written)).containsExactly("io/kscale/assignor/A.class", "io/kscale/assignor/internals/B.class");
    }

    @Test
    void shouldNotTakeTheModulesTestJarForItsJar() throws IOException {
        Path testJar = jarWith(dir.resolve("kscale-assignor-0.1.0-SNAPSHOT-tests.jar"), "io/kscale/assignor/ATest.class");

        assertThat(ServerAssignorPlugin.isModuleJar(testJar)).isFalse();
        assertThat(ServerAssignorPlugin.jarFrom(testJar, dir.resolve("out"))).isNotEqualTo(testJar);
    }

    @Test
    void shouldListKscalesAssignorFirstOnlyWhereTheModuleHasIt() {
        String setting = ServerAssignorPlugin.assignorsSetting();

        if (ServerAssignorPlugin.isAvailable()) {
            assertThat(setting).isEqualTo(ServerAssignorPlugin.SERVER_ASSIGNOR_CLASS + ",uniform,range");
        } else {
            assertThat(setting).isEqualTo("uniform,range");
        }
    }

    @Test
    void shouldGiveASpecTheJarAndTheSetting() {
        ClusterSpec spec = ServerAssignorPlugin.addTo(ClusterSpec.builder(), dir).build();

        assertThat(spec.pluginJars()).hasSize(1).allSatisfy(jar -> assertThat(jar).isRegularFile());
        assertThat(spec.brokerProperties()).containsEntry(ServerAssignorPlugin.ASSIGNORS_CONFIG,
                ServerAssignorPlugin.assignorsSetting());
    }

    private static Path jarWith(Path jar, String... names) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (String name : names) {
                out.putNextEntry(new JarEntry(name));
                out.write(name.length());
                out.closeEntry();
            }
        }
        return jar;
    }

    private static List<String> entries(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            return Collections.list(file.entries()).stream().map(JarEntry::getName).collect(Collectors.toList());
        }
    }

    @Test
    void shouldWaitForTheStoreOnlyWhereTheBrokersListKscalesAssignor() {
        assertThat(ServerAssignorPlugin.listedIn(ClusterSpec.builder().build())).isFalse();
        assertThat(ServerAssignorPlugin.listedIn(ClusterSpec.builder()
                .brokerProperty(ServerAssignorPlugin.ASSIGNORS_CONFIG, ServerAssignorPlugin.KAFKA_ASSIGNORS).build())).isFalse();
        assertThat(ServerAssignorPlugin.listedIn(ClusterSpec.builder().brokerProperty(ServerAssignorPlugin.ASSIGNORS_CONFIG,
                "uniform, " + ServerAssignorPlugin.SERVER_ASSIGNOR_CLASS).build())).isTrue();
    }

    @Test
    void shouldReturnOnceEveryBrokerSaysItsStoreLoaded() {
        LoggingBrokers cluster = new LoggingBrokers(2);
        cluster.logs.put(0, "INFO " + ServerAssignorPlugin.STORE_LOADED_LINE + " kscale-task-counts via kafka-0:9093");
        cluster.loadsOnRead(1, 3, "INFO " + ServerAssignorPlugin.STORE_LOADED_LINE + " kscale-task-counts via kafka-1:9093");

        ServerAssignorPlugin.awaitTaskCountStores(cluster, Duration.ofSeconds(30));
        assertThat(cluster.reads(1)).as("reads of broker 1's log: until its third says it loaded").isEqualTo(3);
        assertThat(cluster.reads(0)).as("reads of broker 0's log: loaded at the first").isEqualTo(1);
    }

    @Test
    void shouldNameTheBrokersWhoseStoreDidNotLoad() {
        LoggingBrokers cluster = new LoggingBrokers(3);
        cluster.logs.put(1, ServerAssignorPlugin.STORE_LOADED_LINE);

        assertThatThrownBy(() -> ServerAssignorPlugin.awaitTaskCountStores(cluster, Duration.ofMillis(300)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("broker(s) [0, 2]")
                .hasMessageContaining(ServerAssignorPlugin.STORE_LOADED_LINE);
    }

    /** Brokers that only have logs; a broker's log may gain a line at its n-th read. */
    private static final class LoggingBrokers implements KafkaCluster {
        final Map<Integer, String> logs = new HashMap<>();
        private final Map<Integer, Integer> reads = new HashMap<>();
        private final Map<Integer, Integer> lineAtRead = new HashMap<>();
        private final Map<Integer, String> lateLines = new HashMap<>();
        private final int brokers;

        LoggingBrokers(int brokers) {
            this.brokers = brokers;
        }

        void loadsOnRead(int brokerId, int read, String line) {
            lineAtRead.put(brokerId, read);
            lateLines.put(brokerId, line);
        }

        int reads(int brokerId) {
            return reads.getOrDefault(brokerId, 0);
        }

        @Override
        public String brokerLogText(int brokerId) {
            int read = reads.merge(brokerId, 1, Integer::sum);
            if (read == lineAtRead.getOrDefault(brokerId, -1)) {
                logs.merge(brokerId, lateLines.get(brokerId), (log, line) -> log + "\n" + line);
            }
            return logs.getOrDefault(brokerId, "");
        }

        @Override
        public int brokerCount() {
            return brokers;
        }

        @Override
        public String bootstrapServers() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void pause(int brokerId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void resume(int brokerId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isFrozen(int brokerId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void kill(int brokerId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void restart(int brokerId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void setLatency(int brokerId, Duration delay) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }
}
