package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.ServerAssignorPlugin;
import io.kscale.lab.expansion.ExpansionPeer;
import io.kscale.lab.expansion.ExpansionRun;
import io.kscale.lab.expansion.ExpansionScenario;
import io.kscale.lab.expansion.ExpansionSettings;
import io.kscale.lab.expansion.InterruptedExpansionRun;
import io.kscale.lab.expansion.InterruptedExpansionScenario;
import io.kscale.lab.expansion.Interruption;
import io.kscale.lab.expansion.KeyOutcome;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Key-preserving expansion under the consumer protocol (KIP-848) on real brokers: 3 brokers that
 * load kscale's assignor jar and list {@code io.kscale.assignor.KeyPreservingServerAssignor,uniform,range}
 * in {@code group.consumer.assignors}; Java consumers on {@code group.protocol=consumer} pick one
 * with {@code group.remote.assignor}. Every case runs twice in the same class, on the same
 * cluster: with kscale's {@code kscale-key-preserving}, which must split no key and count every key
 * exactly, and with Kafka's {@code uniform}, the control, which must split keys in the same story
 * (or the story tests nothing).
 *
 * <p>The cases: a keyed load while the topic grows 4 -> 8 -> 16 (then a member joins and one
 * leaves, and a new group reads the whole topic: {@link ExpansionScenario}); and the growth
 * 4 -> 8 followed by the whole group leaving and coming back, every broker restarting, or the
 * topic being deleted and re-created, or the group moving from kscale's classic assignor to the
 * consumer protocol, then a growth that only a kept task count survives
 * ({@link InterruptedExpansionScenario}, whose comment says why {@code uniform} must split there).
 *
 * <p>The process suite only: what these cases check is the assignor and the clients, which run the
 * same in broker processes and in containers, and at about 10 minutes the class is the suite's
 * longest. The Docker suite runs the assignor's jar in containers through
 * {@code ServerAssignorWithTestcontainersIT}.
 */
@RealKafkaCluster(brokers = 3, serverAssignors = true, processSuiteOnly = "the assignor and its clients run the same in "
        + "broker processes; the Docker suite's ServerAssignorWithTestcontainersIT runs its jar in containers", brokerProperties = {
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.heartbeat.interval.ms=500"})
class ServerSideExpansionIT {

    private static final Logger log = LoggerFactory.getLogger(ServerSideExpansionIT.class);

    /**
     * Keys {@code uniform} must split at least in each growth: 13 by construction at 4 -> 8
     * (KeyPreservingExpansionIT's class comment), 11 at 8 -> 12 and 15 at 5 -> 10
     * (InterruptedExpansionScenario's).
     */
    private static final int CONTROL_MIN_SPLIT = 10;

    /** A smaller load than the lab's default: 1,000 records per step at 1,000 records/s. */
    static final ExpansionSettings SETTINGS = ExpansionSettings.defaults(GroupProtocol.CONSUMER)
            .withRecords(1_000, 1_000);

    @Test
    void shouldOfferTheBrokerSideAssignorsOnEveryBroker(KafkaCluster cluster) throws Exception {
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            for (int broker : cluster.brokerIds()) {
                ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(broker));
                Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
                assertThat(config.get(ServerAssignorPlugin.ASSIGNORS_CONFIG).value())
                        .as("broker %d's %s", broker, ServerAssignorPlugin.ASSIGNORS_CONFIG)
                        .isEqualTo(ServerAssignorPlugin.assignorsSetting());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"SERVER_KSCALE", "SERVER_UNIFORM"})
    void shouldKeepEveryKeyOnItsTaskWhileTheTopicGrowsFourToEightToSixteen(ExpansionPeer peer, KafkaCluster cluster) {
        assumeAssignorAvailable(peer);

        ExpansionRun run = new ExpansionScenario(SETTINGS.withPeers(List.of(peer))).runOn(cluster.clientProperties()).get(0);
        log.info("Expansion 4 -> 8 -> 16 under the consumer protocol:\n{}", run);

        assertThat(run.keys().keys()).isEqualTo(SETTINGS.keys());
        assertThat(run.missing()).as("records lost").isZero();
        assertThat(run.received()).as("records received").isEqualTo(run.sent());
        assertThat(run.ownershipProblems()).as("partitions owned twice").isEmpty();
        assertKeys(peer, run.keys(), "the growth 4 -> 8 -> 16");
        if (peer == ExpansionPeer.SERVER_KSCALE) {
            assertThat(run.transientSplits()).as("moments when a task's partitions were on two members").isEmpty();
            assertThat(run.tailingOrder().keysOutOfOrder()).as("keys out of order, tailing through the barrier").isZero();
            assertThat(run.catchUpOrder().keysOutOfOrder()).as("keys out of order, catching up through the barrier")
                    .isZero();
        }
    }

    /**
     * A member joins as the topic grows to 16, so that the growth and the join can land in one
     * target assignment: were a task that grows also moved, its new partitions would go to the
     * new owner at once while the old owner still revokes the parent, and for that window two
     * members would read the task's keys. (Keys counted by two members, and their order, are not
     * asserted here: the task that moves to the joining member is counted there by design, and
     * read there again from its last commit.)
     */
    @Test
    void shouldNeverHaveATaskOnTwoMembersWhenAMemberJoinsAsTheTopicGrows(KafkaCluster cluster) {
        assumeAssignorAvailable(ExpansionPeer.SERVER_KSCALE);

        ExpansionRun run = new ExpansionScenario(SETTINGS.withPeers(List.of(ExpansionPeer.SERVER_KSCALE))
                .withJoinAtGrowth()).runOn(cluster.clientProperties()).get(0);
        log.info("Expansion 4 -> 8 -> 16 under the consumer protocol, a member joining with the growth to 16:\n{}", run);

        assertThat(run.missing()).as("records lost").isZero();
        assertThat(run.ownershipProblems()).as("partitions owned twice").isEmpty();
        assertThat(run.transientSplits()).as("moments when a task's partitions were on two members").isEmpty();
        // Not asserted: order while tailing. The lab counts any record handed out after a later
        // one of its key as out of order, re-reads after a task moved to the joining member
        // included; a Docker run counted 4 keys here, and which of the two it was is not yet known.
    }

    @ParameterizedTest
    @EnumSource(names = {"SERVER_KSCALE", "SERVER_UNIFORM"})
    void shouldKeepTheTaskCountWhenTheWholeGroupLeavesAndComesBack(ExpansionPeer peer, KafkaCluster cluster) {
        assertSurvives(peer, Interruption.GROUP_RESTART, cluster);
    }

    @ParameterizedTest
    @EnumSource(names = {"SERVER_KSCALE", "SERVER_UNIFORM"})
    void shouldKeepTheTaskCountWhenEveryBrokerRestarts(ExpansionPeer peer, KafkaCluster cluster) {
        assertSurvives(peer, Interruption.BROKER_RESTART, cluster);
    }

    @ParameterizedTest
    @EnumSource(names = {"SERVER_KSCALE", "SERVER_UNIFORM"})
    void shouldGiveARecreatedTopicATaskCountOfItsOwn(ExpansionPeer peer, KafkaCluster cluster) {
        assertSurvives(peer, Interruption.TOPIC_RECREATED, cluster);
    }

    @ParameterizedTest
    @EnumSource(names = {"SERVER_KSCALE", "SERVER_UNIFORM"})
    void shouldKeepTheTaskCountWhenTheGroupMovesFromTheClassicProtocol(ExpansionPeer peer, KafkaCluster cluster) {
        assertSurvives(peer, Interruption.MIGRATION, cluster);
    }

    private static void assertSurvives(ExpansionPeer peer, Interruption interruption, KafkaCluster cluster) {
        assumeAssignorAvailable(peer);

        InterruptedExpansionRun run = new InterruptedExpansionScenario(SETTINGS).run(cluster, peer, interruption);
        log.info("Expansion with a {} under the consumer protocol:\n{}", interruption.label(), run);

        assertThat(run.missing()).as("records lost").isZero();
        assertThat(run.ownershipProblems()).as("partitions owned twice").isEmpty();
        assertKeys(run.peerBefore(), run.before(), "the growth 4 -> 8 before the " + interruption.label());
        assertKeys(peer, run.after(), "the growth after the " + interruption.label());
    }

    /**
     * kscale (either side): no key split, every count exact; the control: keys split and counts
     * wrong. Also LibrdkafkaServerSideExpansionIT's check.
     */
    static void assertKeys(ExpansionPeer peer, KeyOutcome keys, String when) {
        assertThat(keys.keys()).as("keys written during %s", when).isEqualTo(SETTINGS.keys());
        if (peer == ExpansionPeer.SERVER_KSCALE || peer == ExpansionPeer.KSCALE) {
            assertThat(keys.splitKeys()).as("keys counted by more than one member during %s", when).isZero();
            assertThat(keys.wrongCounts()).as("keys whose final count is wrong after %s", when).isZero();
        } else {
            assertThat(keys.splitKeys()).as("control: %s splits keys during %s", peer.label(), when)
                    .isGreaterThanOrEqualTo(CONTROL_MIN_SPLIT);
            assertThat(keys.wrongCounts()).as("control: %s gets counts wrong after %s", peer.label(), when)
                    .isGreaterThanOrEqualTo(CONTROL_MIN_SPLIT);
        }
    }

    static void assumeAssignorAvailable(ExpansionPeer peer) {
        assumeTrue(peer != ExpansionPeer.SERVER_KSCALE || ServerAssignorPlugin.isAvailable(),
                () -> ServerAssignorPlugin.SERVER_ASSIGNOR_CLASS + " is not in this build's assignor module yet"
                        + " (issue 18), so the brokers offer " + ServerAssignorPlugin.assignorsSetting()
                        + " only; the uniform control runs");
    }
}
