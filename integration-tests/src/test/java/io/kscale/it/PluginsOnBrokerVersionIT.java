package io.kscale.it;

import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.KafkaCluster;
import org.junit.jupiter.api.BeforeEach;

/**
 * The plug-ins on the broker version this build runs ({@code -Dkscale.broker.version}, default
 * the build's Kafka version): the smoke checks of {@link PluginSmokeChecks} on one broker process.
 * {@code .ci/broker-versions} runs it once per broker version of the tested range.
 */
@RealKafkaCluster(brokers = 1, processSuiteOnly = "the broker version matrix runs brokers as processes; the"
        + " Docker suite's QuickstartWithTestcontainersIT runs the same checks")
class PluginsOnBrokerVersionIT extends PluginSmokeChecks {

    private KafkaCluster cluster;

    @BeforeEach
    void useTheClassCluster(KafkaCluster cluster) {
        this.cluster = cluster;
    }

    @Override
    protected String bootstrapServers() {
        return cluster.bootstrapServers();
    }
}
