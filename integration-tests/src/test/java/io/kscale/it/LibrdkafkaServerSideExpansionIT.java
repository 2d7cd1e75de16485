package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.it.support.LibrdkafkaClient;
import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.expansion.ExpansionPeer;
import io.kscale.lab.expansion.ExpansionRun;
import io.kscale.lab.expansion.ExpansionScenario;
import io.kscale.lab.expansion.ExpansionSettings;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker-side assignor serves librdkafka's KIP-848 consumer too, not only Java's: the keyed
 * load of {@link ServerSideExpansionIT} while the topic grows 4 -> 8 -> 16, with every member of
 * the group a librdkafka consumer in a child process ({@code @confluentinc/kafka-javascript},
 * {@code group.protocol=consumer}, {@code group.remote.assignor} naming the peer; see
 * {@link LibrdkafkaClient}). kscale's {@code kscale-key-preserving} must split no key and count
 * every key exactly; Kafka's {@code uniform}, on the same cluster in the same run, must split
 * keys, or the check tests nothing. The checks are ServerSideExpansionIT's own.
 *
 * <p>Skipped, with how to build it, where the librdkafka client is not built
 * ({@code .ci/librdkafka-client}); skipped too where this build's assignor module lacks the
 * broker-side assignor.
 */
@RealKafkaCluster(brokers = 3, serverAssignors = true,
        processSuiteOnly = "a check of the client, not of the backend: the process suite's brokers are enough",
        brokerProperties = {"group.consumer.min.heartbeat.interval.ms=500", "group.consumer.heartbeat.interval.ms=500"})
class LibrdkafkaServerSideExpansionIT {

    private static final Logger log = LoggerFactory.getLogger(LibrdkafkaServerSideExpansionIT.class);

    @ParameterizedTest
    @EnumSource(names = {"SERVER_KSCALE", "SERVER_UNIFORM"})
    void shouldKeepEveryKeyOfALibrdkafkaGroupOnItsTaskWhileTheTopicGrowsFourToEightToSixteen(ExpansionPeer peer,
                                                                                          KafkaCluster cluster) {
        LibrdkafkaClient.assumeBuilt();
        ServerSideExpansionIT.assumeAssignorAvailable(peer);
        ExpansionSettings settings = ServerSideExpansionIT.SETTINGS.withPeers(List.of(peer))
                .withMemberCommand(LibrdkafkaClient.memberCommand());

        ExpansionRun run = new ExpansionScenario(settings).runOn(cluster.clientProperties()).get(0);
        log.info("Expansion 4 -> 8 -> 16, librdkafka members:\n{}", run);

        assertThat(run.missing()).as("records lost").isZero();
        assertThat(run.received()).as("records received").isEqualTo(run.sent());
        assertThat(run.ownershipProblems()).as("partitions owned twice").isEmpty();
        ServerSideExpansionIT.assertKeys(peer, run.keys(), "the growth 4 -> 8 -> 16 with librdkafka members");
    }
}
