package io.kscale.it.support;

import io.kscale.lab.cluster.KafkaCluster;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/** Creates topics explicitly (brokers run with auto.create.topics.enable=false). */
public final class Topics {

    private Topics() {
    }

    public static void create(KafkaCluster cluster, NewTopic topic) {
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot create topic " + topic.name(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static NewTopic topic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        return new NewTopic(name, partitions, (short) replicationFactor).configs(configs);
    }
}
