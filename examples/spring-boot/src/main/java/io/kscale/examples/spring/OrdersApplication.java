package io.kscale.examples.spring;

import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.TopicBuilder;

/**
 * An orders service: {@link OrderPublisher} writes orders, {@link OrderCounter} counts them per
 * customer. application.properties switches kscale's partitioner and assignor on; the optional
 * {@link ExpansionBarrierConfiguration} makes the listener poll through kscale's ExpansionBarrier,
 * which keeps each key's records in order while a topic's partitions are multiplied.
 */
@SpringBootApplication
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }

    /**
     * The topic, created at start-up with its partition count (Spring's KafkaAdmin creates every
     * NewTopic bean). Create topics explicitly: a broker with auto.create.topics.enable would
     * create it with one partition.
     */
    @Bean
    NewTopic ordersTopic(@Value("${orders.topic}") String topic, @Value("${orders.partitions}") int partitions) {
        return TopicBuilder.name(topic).partitions(partitions).replicas(1).build();
    }
}
