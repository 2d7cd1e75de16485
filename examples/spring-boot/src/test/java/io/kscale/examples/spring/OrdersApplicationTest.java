package io.kscale.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The application against a real broker in a container: orders go through kscale's partitioner
 * and come back through kscale's assignor, both switched on by application.properties alone, and
 * the listener polls through kscale's ExpansionBarrier (docs/runbooks.md's Spring runbook).
 */
@SpringBootTest
@Testcontainers
@ExtendWith(OutputCaptureExtension.class)
class OrdersApplicationTest {

    @Container
    static final KafkaContainer KAFKA = StartGatedKafkaContainer.fromSystemProperty()
            .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
            // A broker takes seconds to start, but a busy CI machine can stretch that past the
            // default 60 s wait.
            .withStartupTimeout(Duration.ofMinutes(3));

    @DynamicPropertySource
    static void kafkaProperties(DynamicPropertyRegistry registry) {
        registry.add("spring.kafka.bootstrap-servers", KAFKA::getBootstrapServers);
    }

    @Autowired
    OrderPublisher publisher;

    @Autowired
    OrderCounter counter;

    @Autowired
    KafkaTemplate<String, String> template;

    @Autowired
    KafkaAdmin kafkaAdmin;

    @Autowired
    KafkaListenerEndpointRegistry listeners;

    @Test
    void countsOrdersPerCustomerWithKscaleSwitchedOnByPropertiesAlone(CapturedOutput output) throws Exception {
        for (int i = 0; i < 10; i++) {
            publisher.order("customer-" + (i % 5), "order-" + i).get();
        }
        for (int i = 0; i < 100; i++) {
            publisher.unkeyed("audit-" + i);
        }
        template.flush();

        await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> {
            assertThat(counter.orders("customer-0")).isEqualTo(2);
            assertThat(counter.orders("customer-4")).isEqualTo(2);
            assertThat(counter.unkeyedEvents()).isEqualTo(100);
        });

        // The consumer group runs kscale's assignor (its protocol name, chosen by the group).
        try (Admin admin = Admin.create(kafkaAdmin.getConfigurationProperties())) {
            Map<String, ConsumerGroupDescription> groups = admin.describeConsumerGroups(List.of("orders")).all().get();
            assertThat(groups.get("orders").partitionAssignor()).isEqualTo("kscale-key-preserving");
        }
        // The producer runs kscale's partitioner: it registers its metrics in the producer's registry.
        assertThat(template.metrics().keySet())
                .anySatisfy(name -> assertThat(name.name()).isEqualTo("sticky-partition-switch-total"));

        // The runbook's check: the listener's consumer polls through the barrier, which registers its
        // metrics under the consumer's client id (the container's metrics are keyed by it), and the
        // barrier got the task layout from the assignor.
        Set<String> clientIds = listeners.getListenerContainer("order-counter").metrics().keySet();
        assertThat(clientIds).isNotEmpty();
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        for (String clientId : clientIds) {
            assertThat(jmx.isRegistered(new ObjectName("kscale.assignor:type=expansion-barrier,client-id=" + clientId)))
                    .as("the expansion-barrier MBean of consumer %s", clientId).isTrue();
        }
        assertThat(output.getAll()).doesNotContain("ExpansionBarrier: no task layout");

        // Stopping the listener closes its consumer through the wrapper, and the barrier's metrics go with it.
        listeners.getListenerContainer("order-counter").stop();
        for (String clientId : clientIds) {
            assertThat(jmx.isRegistered(new ObjectName("kscale.assignor:type=expansion-barrier,client-id=" + clientId)))
                    .as("the expansion-barrier MBean of the stopped consumer %s", clientId).isFalse();
        }
    }
}
