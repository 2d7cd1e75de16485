package io.kscale.admin.cli;

import io.kscale.admin.TopicExpansions;
import io.kscale.assignor.KeyPreservingAssignorConfig;
import io.kscale.assignor.KeyPreservingServerAssignorConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** The options every command shares, as Kafka's own tools name them, plus where kscale's stores are. */
final class ClusterOptions {

    @Spec(Spec.Target.MIXEE)
    private CommandSpec spec;

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT",
            description = "The cluster to connect to. Default: bootstrap.servers of --command-config.")
    String bootstrapServer;

    @Option(names = "--command-config", paramLabel = "FILE",
            description = "Client settings as a properties file (security.protocol, sasl.*, ssl.*, ...), as for "
                    + "Kafka's kafka-topics.sh.")
    Path commandConfig;

    @Option(names = "--layout-topic", paramLabel = "TOPIC", split = ",",
            defaultValue = KeyPreservingAssignorConfig.LAYOUT_STORE_TOPIC_DEFAULT,
            description = "The classic groups' layout store topics (" + KeyPreservingAssignorConfig.LAYOUT_STORE_TOPIC_CONFIG
                    + "), comma-separated: the default and every group's own (default: ${DEFAULT-VALUE}).")
    List<String> layoutTopics;

    @Option(names = "--task-count-topic", paramLabel = "TOPIC",
            defaultValue = KeyPreservingServerAssignorConfig.STORE_TOPIC_DEFAULT,
            description = "The brokers' task count topic (" + KeyPreservingServerAssignorConfig.STORE_TOPIC_CONFIG
                    + ") (default: ${DEFAULT-VALUE}).")
    String taskCountTopic;

    @Option(names = "--output", paramLabel = "text|json", defaultValue = "text",
            description = "text for people, json for programs (default: ${DEFAULT-VALUE}).")
    Output output;

    enum Output { TEXT, JSON }

    TopicExpansions connect() throws IOException {
        Map<String, Object> settings = new HashMap<>();
        if (commandConfig != null) {
            Properties properties = new Properties();
            try (InputStream in = Files.newInputStream(commandConfig)) {
                properties.load(in);
            }
            properties.stringPropertyNames().forEach(key -> settings.put(key, properties.getProperty(key)));
        }
        if (bootstrapServer != null) {
            settings.put("bootstrap.servers", bootstrapServer);
        }
        if (settings.get("bootstrap.servers") == null) {
            throw new ParameterException(spec.commandLine(),
                    "Missing --bootstrap-server (or bootstrap.servers in --command-config)");
        }
        return TopicExpansions.connect(settings, layoutTopics, taskCountTopic);
    }

    boolean json() {
        return output == Output.JSON;
    }
}
