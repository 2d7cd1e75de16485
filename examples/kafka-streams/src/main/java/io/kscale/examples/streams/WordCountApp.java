package io.kscale.examples.streams;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * A stateful word count whose scale-out does not stop counting: {@code task.assignor.class} makes
 * kscale's {@code WarmupTaskAssignor} keep each task on its caught-up owner while a new instance
 * warms up a copy of its state, and move it once the copy has caught up.
 *
 * <p>Run it: create the topics {@value #INPUT} and {@value #OUTPUT} (same partition count), then
 * {@code mvn -B compile exec:java -Dexec.args=localhost:9092}; start more instances to scale out.
 */
public final class WordCountApp {

    static final String INPUT = "sentences";
    static final String OUTPUT = "word-counts";
    static final String STORE = "counts";

    private WordCountApp() {
    }

    /** The topology: sentences in, a running count per word out. */
    static Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
                .filter((key, word) -> !word.isEmpty())
                .groupBy((key, word) -> word)
                .count(Materialized.as(STORE))
                .toStream()
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    /** The application's settings: kscale is the one line with task.assignor.class. */
    static Properties settings(String bootstrapServers) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "kscale-example-word-count");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        // kscale: warm up state before moving a task, no restore downtime on scale-out.
        props.put(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, "io.kscale.streams.WarmupTaskAssignor");
        // Standby replicas let a crashed instance's tasks resume on a warm copy (optional).
        props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1);
        return props;
    }

    public static void main(String[] args) throws InterruptedException {
        String bootstrapServers = args.length > 0 ? args[0] : "localhost:9092";
        CountDownLatch stopped = new CountDownLatch(1);
        try (KafkaStreams streams = new KafkaStreams(topology(), settings(bootstrapServers))) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                streams.close(Duration.ofSeconds(30));
                stopped.countDown();
            }));
            streams.start();
            stopped.await();
        }
    }
}
