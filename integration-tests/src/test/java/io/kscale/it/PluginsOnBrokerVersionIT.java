package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.BrokerClasspath;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.ServerAssignorPlugin;
import io.kscale.lab.expansion.ExpansionPeer;
import io.kscale.lab.expansion.ExpansionRun;
import io.kscale.lab.expansion.ExpansionScenario;
import io.kscale.lab.expansion.ExpansionSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plug-ins on the broker version this build runs ({@code -Dkscale.broker.version}, default
 * the build's Kafka version): the smoke checks of {@link PluginSmokeChecks} on one broker process,
 * and the broker-side assignor on that broker where its Kafka has the API for it (4.0 and newer).
 * {@code .ci/broker-versions} runs it once per broker version of the tested range.
 */
@RealKafkaCluster(brokers = 1, serverAssignors = true, brokerProperties = {
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.heartbeat.interval.ms=500"},
        processSuiteOnly = "the broker version matrix runs brokers as processes; the Docker suite's"
                + " QuickstartWithTestcontainersIT and ServerAssignorWithTestcontainersIT run the same checks")
class PluginsOnBrokerVersionIT extends PluginSmokeChecks {

    private static final Logger log = LoggerFactory.getLogger(PluginsOnBrokerVersionIT.class);

    /**
     * The lab's expansion scenario for kscale's broker-side assignor alone, kept small: 3 members,
     * 100 keys, 4 -> 8 partitions, 500 records per step at 1,000 records/s. Three members, not
     * two: with two, Kafka's {@code uniform} happens to keep every key on its member at 4 -> 8 too
     * (seen: 0 of 100 split), so the check could not tell the assignors apart.
     */
    private static final ExpansionSettings SERVER_SIDE = new ExpansionSettings(List.of(ExpansionPeer.SERVER_KSCALE),
            List.of(4, 8), 3, 100, 1_000, 500);

    private KafkaCluster cluster;

    @BeforeEach
    void useTheClassCluster(KafkaCluster cluster) {
        this.cluster = cluster;
    }

    @Override
    protected String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /**
     * A group on {@code group.protocol=consumer} with {@code group.remote.assignor=kscale-key-preserving}
     * reads a keyed load while its topic grows 4 -> 8: no key reaches a second member, every key's
     * count is exact, and the broker's log shows that kscale's assignor recorded the topic's task
     * count (the broker lists it first, so the group's described assignor alone would prove less).
     */
    @Test
    void consumerProtocolGroupKeepsEveryKeyOnItsTaskWithTheBrokerSideAssignor() throws Exception {
        assumeBrokerSideAssignorRuns();

        ExpansionRun run = new ExpansionScenario(SERVER_SIDE).runOn(cluster.clientProperties()).get(0);
        log.info("Expansion 4 -> 8 with the broker-side assignor:\n{}", run);

        assertThat(run.missing()).as("records lost").isZero();
        assertThat(run.received()).as("records received").isEqualTo(run.sent());
        assertThat(run.ownershipProblems()).as("partitions owned twice").isEmpty();
        assertThat(run.keys().keys()).as("keys written").isEqualTo(SERVER_SIDE.keys());
        assertThat(run.keys().splitKeys()).as("keys counted by more than one member").isZero();
        assertThat(run.keys().wrongCounts()).as("keys whose final count is wrong").isZero();
        assertThat(brokerLogs()).as("the broker's log").contains("Recorded T=4 for topic id " + scenarioTopicId());
    }

    /**
     * Skips where the broker-side assignor cannot run: brokers before Kafka 4.0 (no such API), or
     * a client before 4.0 (client-compat runs this class on older clients too).
     */
    private static void assumeBrokerSideAssignorRuns() {
        assumeTrue(ServerAssignorPlugin.isAvailable(), ServerAssignorPlugin.SERVER_ASSIGNOR_CLASS
                + " is not in this build's assignor module");
        assumeTrue(ServerAssignorPlugin.brokersServeIt(), () -> "Kafka " + BrokerClasspath.kafkaVersion()
                + " brokers: KIP-848 is generally available from Kafka 4.0; 3.9 has the broker-side assignor API as a"
                + " preview, and its " + ServerAssignorPlugin.ASSIGNORS_CONFIG + " takes class names only, not the"
                + " built-in names the lab lists beside kscale's");
        try {
            ConsumerGroupDescription.class.getMethod("groupEpoch");
        } catch (NoSuchMethodException e) {
            abort("kafka-clients " + clientVersion() + " predates 4.0: group.protocol=consumer (KIP-848) is GA from"
                    + " kafka-clients 4.0, and the scenario's settle check reads the group epochs that the admin"
                    + " client describes from 4.0 (ConsumerGroupDescription.groupEpoch)");
        }
    }

    /** The id of the scenario's topic, the only one it created in this class's cluster. */
    private Uuid scenarioTopicId() throws Exception {
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            List<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                    .filter(name -> name.startsWith("kscale-expansion-") && name.endsWith(SERVER_SIDE.peers().get(0).cliName()))
                    .toList();
            assertThat(topics).as("the scenario's topics").hasSize(1);
            return admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).get(topics.get(0)).topicId();
        }
    }

    private String brokerLogs() throws Exception {
        StringBuilder text = new StringBuilder();
        for (Path file : cluster.logFiles()) {
            text.append(new String(Files.readAllBytes(file), StandardCharsets.UTF_8)); // lenient with stray bytes
        }
        return text.toString();
    }
}
