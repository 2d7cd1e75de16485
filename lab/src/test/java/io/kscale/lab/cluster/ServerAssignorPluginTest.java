package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.List;
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
}
