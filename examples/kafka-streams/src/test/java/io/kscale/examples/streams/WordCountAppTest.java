package io.kscale.examples.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;
import org.junit.jupiter.api.Test;

/** The topology with Kafka's TopologyTestDriver, and the assignor setting with Kafka's own config parsing. */
class WordCountAppTest {

    @Test
    void countsWords() {
        Properties settings = WordCountApp.settings("dummy:9092");
        try (TopologyTestDriver driver = new TopologyTestDriver(WordCountApp.topology(), settings)) {
            TestInputTopic<String, String> sentences =
                    driver.createInputTopic(WordCountApp.INPUT, new StringSerializer(), new StringSerializer());
            TestOutputTopic<String, Long> counts =
                    driver.createOutputTopic(WordCountApp.OUTPUT, new StringDeserializer(), new LongDeserializer());

            sentences.pipeInput("Grow a Kafka deployment");
            sentences.pipeInput("grow it again");

            Map<String, Long> latest = counts.readKeyValuesToMap();
            assertThat(latest).containsEntry("grow", 2L).containsEntry("kafka", 1L).containsEntry("again", 1L);
        }
    }

    /** The class named by task.assignor.class is on the classpath and is a KIP-924 TaskAssignor. */
    @Test
    void settingsNameKscalesWarmupTaskAssignor() throws ClassNotFoundException {
        StreamsConfig config = new StreamsConfig(WordCountApp.settings("dummy:9092"));
        String className = config.getString(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG); // a class name, as Streams reads it
        TaskAssignor assignor = Utils.newInstance(Class.forName(className), TaskAssignor.class);
        assertThat(assignor.getClass().getName()).isEqualTo("io.kscale.streams.WarmupTaskAssignor");
    }
}
