package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.KafkaCluster;
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
 */
@RealKafkaCluster(brokers = 3, processSuiteOnly = "kill -9 and restart of a broker process on its own data is the "
        + "fault this test is about; the Docker backend's kill and start of a container is covered by ClusterFaultsIT")
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

        assertThat(run.problems()).as("problems").isEmpty();
        assertThat(run.keys()).as("keys written").isEqualTo(settings.keys());
        assertThat(run.splitKeys()).as("keys whose state two members counted side by side").isZero();
        assertThat(run.wrongCounts()).as("keys whose committed count differs from the records acknowledged").isZero();
        assertThat(run.missing()).as("records acknowledged and never delivered").isZero();
        assertThat(run.outOfOrder()).as("records handed out after a later record of their key, grace covering the failover")
                .isZero();
        assertThat(run.outOfOrder()).as("records handed out of order, against what the barriers counted")
                .isLessThanOrEqualTo(run.barrierOutOfOrder());

        assertThat(run.faults()).as("faults applied").hasSize(4);
        assertThat(run.frozenRefusedCommits()).as("commits of the frozen member refused after it resumed").isPositive();
        assertThat(run.frozenLostPartitions()).as("partitions the frozen member lost").isPositive();
        assertThat(run.newLeaderAfterKill()).as("another member led the group after the leader was killed").isTrue();
        assertThat(run.redelivered()).as("records delivered again after the freeze and the crash").isPositive();
    }
}
