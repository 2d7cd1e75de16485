package io.kscale.partitioner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keeps Kafka's types out of the algorithm (the design rule: pure algorithms, thin adapters), so it
 * stays testable in microseconds and independent of client internals. A source check, like
 * Kafka's checkstyle import control, without another build plug-in.
 */
class PureAlgorithmTest {

    private static final Path SOURCES = Path.of("src/main/java/io/kscale/partitioner");

    @ParameterizedTest
    @ValueSource(strings = {"TopicStickiness", "StickyRound", "Stint", "PartitionView"})
    void shouldNotImportKafkaInTheAlgorithm(String className) throws IOException {
        String source = Files.readString(SOURCES.resolve(className + ".java"));
        assertThat(source).doesNotContain("org.apache.kafka").doesNotContain("org.slf4j");
    }
}
