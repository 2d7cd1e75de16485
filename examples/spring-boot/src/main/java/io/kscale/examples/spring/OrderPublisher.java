package io.kscale.examples.spring;

import java.util.concurrent.CompletableFuture;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.SendResult;
import org.springframework.stereotype.Service;

/** Sends orders keyed by customer (Kafka's hash places them) and audit events without a key (kscale's partitioner places them). */
@Service
public class OrderPublisher {

    private final KafkaTemplate<String, String> template;
    private final String topic;

    public OrderPublisher(KafkaTemplate<String, String> template, @Value("${orders.topic}") String topic) {
        this.template = template;
        this.topic = topic;
    }

    public CompletableFuture<SendResult<String, String>> order(String customer, String order) {
        return template.send(topic, customer, order);
    }

    public CompletableFuture<SendResult<String, String>> unkeyed(String event) {
        return template.send(topic, event);
    }
}
