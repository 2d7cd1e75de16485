package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.BrokerClasspath;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.ServerAssignorPlugin;
import io.kscale.lab.expansion.ExpansionPeer;
import io.kscale.lab.expansion.ExpansionSettings;
import io.kscale.lab.expansion.FaultedExpansionRun;
import io.kscale.lab.expansion.FaultedExpansionScenario;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Expansions while brokers die: 3 brokers, a producer writing 200 keys at 500 records/s, a group of
 * 3 stateful members (KeyPreservingAssignor, polled through ExpansionBarrier) while the topic grows
 * 4 -> 8 -> 16 partitions; each member commits every task's per-key counts with the task's
 * offsets. During 4 -> 8 the broker leading partition 0 is killed with {@code kill -9} and later
 * restarted on its data; during 8 -> 16 one member freezes with counted records not committed
 * (past {@code session.timeout.ms} and {@code max.poll.interval.ms}) and the group's leader is
 * killed (no commit, no LeaveGroup), then the frozen member resumes and a new member joins. See
 * {@link FaultedExpansionScenario}.
 *
 * <p>Asserted: no key split (no task's state counted by two members side by side, no task's
 * partitions owned by two members once settled), every key's committed count equal to the records
 * acknowledged to the producer, no record lost, and no record handed out after a later record of
 * its key (the members' barrier grace covers the failover), and never more such records than the
 * barriers counted. Records delivered again after the freeze and the
 * crash are allowed and must be counted once. The faults must have happened as planned, or the
 * claims would be vacuous: the frozen member's commit refused and its partitions lost, another
 * member leading after the kill, records delivered again.
 *
 * <p>The same story on the consumer protocol (KIP-848), with kscale's broker-side assignor
 * ({@code group.remote.assignor=kscale-key-preserving}) and the members polling through the
 * barrier, which reads T from the brokers' task count topic: there is no group leader, so the
 * member last given new partitions is the one killed, and whether a new leader took over is not
 * asserted. There the killed member's close still sends its leave heartbeat (a dynamic member
 * cannot remain in the group), so its partitions move at once; the frozen member leaves at
 * {@code max.poll.interval.ms}, and when it resumes its commit is refused (unknown member id) and
 * it loses the partitions it held. Kafka 4.4.0's consumer may also run {@code onPartitionsAssigned}
 * on the resumed member for partitions the coordinator gave it while it was frozen: its
 * {@code assignment()} holds them during the callback, then {@code onPartitionsLost} names only the
 * partitions it had before and the consumer drops them all, never revoking the announced ones. The
 * members take announced partitions only once the poll returns and only if the consumer still
 * assigns them, so those are ignored rather than reported as a split; the run reports how many
 * (asserted: the report states the count; on the classic protocol it must be 0). Also asserted
 * there: no partition released by the barriers unmerged for want of T. The one cluster serves both tests: its brokers load kscale's assignor
 * jar and list it in {@code group.consumer.assignors}, and take the consumer protocol's session
 * timeout (6 s, as the classic members set theirs) and 500 ms heartbeats; classic groups use none
 * of these.
 */
@RealKafkaCluster(brokers = 3, serverAssignors = true, brokerProperties = {
        "group.consumer.session.timeout.ms=6000", "group.consumer.min.session.timeout.ms=6000",
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.heartbeat.interval.ms=500"},
        processSuiteOnly = "kill -9 and restart of a broker process on its own data is the fault this test is about;"
                + " the Docker backend's kill and start of a container is covered by ClusterFaultsIT")
class FaultedExpansionIT {

    private static final Logger log = LoggerFactory.getLogger(FaultedExpansionIT.class);
    /**
     * The members' barrier grace: longer than the kill -9 failover, in which the controller fences
     * the dead broker after {@code broker.session.timeout.ms} (9 s) and the producer's retried
     * batches reach the new leader with their old timestamps.
     */
    private static final Duration GRACE_COVERING_FAILOVER = Duration.ofSeconds(15);

    @Test
    void shouldKeepEveryKeyInOneStateWithExactCountsWhenBrokersAndMembersDieDuringExpansions(KafkaCluster cluster) {
        ExpansionSettings settings = new ExpansionSettings(List.of(ExpansionPeer.KSCALE), List.of(4, 8, 16), 3, 200,
                500, 2_000).withBarrierGrace(GRACE_COVERING_FAILOVER);

        FaultedExpansionRun run = new FaultedExpansionScenario(settings).runOn(cluster);
        log.info("Expansion 4 -> 8 -> 16 with a broker killed, a member frozen and the group leader killed:\n{}", run);

        assertKeptEveryPromise(run, settings);

        assertThat(run.faults()).as("faults applied").hasSize(4);
        assertThat(run.frozenRefusedCommits()).as("commits of the frozen member refused after it resumed").isPositive();
        assertThat(run.frozenLostPartitions()).as("partitions the frozen member lost").isPositive();
        assertThat(run.newLeaderAfterKill()).as("another member led the group after the leader was killed")
                .contains(true);
        assertThat(run.redelivered()).as("records delivered again after the freeze and the crash").isPositive();
        assertThat(run.staleAssignedPartitions())
                .as("partitions onPartitionsAssigned announced that the classic consumer's assignment() did not have")
                .isZero();
    }

    @Test
    void shouldKeepEveryKeyInOneStateWithExactCountsWhenBrokersAndMembersDieDuringExpansionsOnTheConsumerProtocol(
            KafkaCluster cluster) {
        ServerSideExpansionIT.assumeAssignorAvailable(ExpansionPeer.SERVER_KSCALE);
        assumeTrue(ServerAssignorPlugin.brokersServeIt(), "the consumer protocol's broker-side assignors need Kafka 4.0+"
                + " brokers, not " + BrokerClasspath.kafkaVersion());
        ExpansionSettings settings = new ExpansionSettings(List.of(ExpansionPeer.SERVER_KSCALE), List.of(4, 8, 16), 3,
                200, 500, 2_000).withBarrierGrace(GRACE_COVERING_FAILOVER);

        FaultedExpansionRun run = new FaultedExpansionScenario(settings).runOn(cluster);
        log.info("Expansion 4 -> 8 -> 16 on the consumer protocol with a broker killed, a member frozen and another"
                + " killed:\n{}", run);

        assertKeptEveryPromise(run, settings);
        assertThat(run.barrierWithoutTaskCount()).as("partitions the barriers released unmerged, T not read in time")
                .isZero();

        assertThat(run.faults()).as("faults applied").hasSize(4);
        assertThat(run.faults().get(2)).as("the member killed").contains("the consumer protocol has no group leader");
        assertThat(run.newLeaderAfterKill()).as("no group leader on the consumer protocol").isEmpty();
        // On this protocol too: the frozen member's commit is refused (unknown member id: it left at
        // max.poll.interval.ms) and onPartitionsLost takes the partitions it held.
        assertThat(run.frozenRefusedCommits()).as("commits of the frozen member refused after it resumed").isPositive();
        assertThat(run.frozenLostPartitions()).as("partitions the frozen member lost").isPositive();
        assertThat(run.redelivered()).as("records delivered again after the freeze and the crash").isPositive();
        // Kafka 4.4.0's consumer may announce to the resumed member partitions it never assigns
        // (onPartitionsAssigned for them, then neither revoke nor lost); the members ignore them and
        // the run reports how many.
        assertThat(run.toString()).as("the run's report")
                .contains("partitions the consumer announced but did not assign " + run.staleAssignedPartitions());
    }

    /** The promises, alike on both protocols: no key split, exact counts, nothing lost, nothing out of order. */
    private static void assertKeptEveryPromise(FaultedExpansionRun run, ExpansionSettings settings) {
        assertThat(run.problems()).as("problems").isEmpty();
        assertThat(run.keys()).as("keys written").isEqualTo(settings.keys());
        assertThat(run.splitKeys()).as("keys whose state two members counted side by side").isZero();
        assertThat(run.wrongCounts()).as("keys whose committed count differs from the records acknowledged").isZero();
        assertThat(run.missing()).as("records acknowledged and never delivered").isZero();
        assertThat(run.outOfOrder()).as("records handed out after a later record of their key, grace covering the failover")
                .isZero();
        assertThat(run.outOfOrder()).as("records handed out of order, against what the barriers counted")
                .isLessThanOrEqualTo(run.barrierOutOfOrder());
    }
}
