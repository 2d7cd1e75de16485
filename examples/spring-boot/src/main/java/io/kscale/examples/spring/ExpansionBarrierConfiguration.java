package io.kscale.examples.spring;

import org.springframework.boot.kafka.autoconfigure.DefaultKafkaConsumerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;

/**
 * Every consumer of Spring Boot's consumer factory, and so every {@code @KafkaListener}'s, polls
 * through an {@link io.kscale.assignor.ExpansionBarrier}: the listener container owns the poll loop,
 * so the barrier goes into the consumer the container gets.
 */
@Configuration(proxyBeanMethods = false)
class ExpansionBarrierConfiguration {

    @Bean
    DefaultKafkaConsumerFactoryCustomizer expansionBarrier() {
        return ExpansionBarrierConfiguration::addBarrier;
    }

    private static <K, V> void addBarrier(DefaultKafkaConsumerFactory<K, V> factory) {
        // The factory's settings (spring.kafka.consumer.*), read when each consumer is created.
        factory.addPostProcessor(consumer -> BarrierConsumer.wrap(consumer, factory.getConfigurationProperties()));
    }
}
