package io.kscale.assignor.internals.store;

import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Creates the clients of kscale's store topics, Kafka's ({@link #KAFKA}) or mocks in tests, and
 * says what every store client needs beyond its connection settings. One seam for both stores:
 * the consumer assignor's layout store ({@link KafkaLayoutStore}) and the broker-side task count
 * store, which differ in where their connection settings come from (the consumer's, the
 * broker's) but not in how they read and write.
 */
public interface StoreClients {

    /** Kafka's clients. */
    StoreClients KAFKA = new StoreClients() {
        @Override
        public Consumer<byte[], byte[]> consumer(Map<String, Object> settings) {
            return new KafkaConsumer<>(settings);
        }

        @Override
        public Producer<byte[], byte[]> producer(Map<String, Object> settings) {
            return new KafkaProducer<>(settings);
        }

        @Override
        public Admin admin(Map<String, Object> settings) {
            return Admin.create(settings);
        }
    };

    Consumer<byte[], byte[]> consumer(Map<String, Object> settings);

    Producer<byte[], byte[]> producer(Map<String, Object> settings);

    Admin admin(Map<String, Object> settings);

    /**
     * Adds what a store's consumer needs: byte array deserializers, no commits (it has no group),
     * no topic created by reading it, and a missing position read from the beginning.
     *
     * @param settings its connection settings; changed and returned
     * @return {@code settings}
     */
    static Map<String, Object> withConsumerDefaults(Map<String, Object> settings) {
        settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        settings.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return settings;
    }

    /**
     * Adds what a store's producer needs: byte array serializers, {@code acks=all} and
     * idempotence (a stored record is durable and written once), no linger (a store writes
     * rarely, and waits for the answer).
     *
     * @param settings its connection settings; changed and returned
     * @return {@code settings}
     */
    static Map<String, Object> withProducerDefaults(Map<String, Object> settings) {
        settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return settings;
    }
}
