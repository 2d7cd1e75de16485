package io.kscale.examples.spring;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Per-key state held by the consumer: the number of orders per customer. kscale's assignor keeps a
 * customer on the same consumer when the topic's partitions are multiplied, so this count stays
 * valid across an expansion.
 */
@Component
public class OrderCounter {

    private final Map<String, Integer> ordersByCustomer = new ConcurrentHashMap<>();
    private final Map<String, Integer> unkeyed = new ConcurrentHashMap<>();

    // idIsGroup = false: the group id is spring.kafka.consumer.group-id, not the listener id.
    @KafkaListener(id = "order-counter", idIsGroup = false, topics = "${orders.topic}")
    void onOrder(ConsumerRecord<String, String> record) {
        if (record.key() == null) {
            unkeyed.merge("count", 1, Integer::sum);
        } else {
            ordersByCustomer.merge(record.key(), 1, Integer::sum);
        }
    }

    public int orders(String customer) {
        return ordersByCustomer.getOrDefault(customer, 0);
    }

    public int unkeyedEvents() {
        return unkeyed.getOrDefault("count", 0);
    }
}
