package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.scaleout.ActiveRestore;
import io.kscale.lab.scaleout.ScaleOutPeer;
import io.kscale.lab.scaleout.ScaleOutRun;
import io.kscale.lab.scaleout.ScaleOutScenario;
import io.kscale.lab.scaleout.ScaleOutSettings;
import io.kscale.lab.scaleout.WarmupKill;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An instance dies while it warms up: 3 brokers; the counting application of
 * {@link WarmupScaleOutIT} runs on one instance, two instances join, and as soon as one of them
 * warms up copies (standbys, no active task yet) it is killed. In one JVM the closest to a crash is
 * closing it without leaving the group ({@code CloseOptions} REMAIN_IN_GROUP): its heartbeats stop
 * and the coordinator removes it only after {@code session.timeout.ms} (10 s here), as after a
 * {@code kill -9}; a clean close would leave at once. With WarmupTaskAssignor every task keeps
 * running on the first instance meanwhile (the dead one ran none), the two survivors end balanced
 * with 3 tasks each, no active task restores more than {@code acceptable.recovery.lag} records,
 * every input partition keeps advancing after the kill, and every key's count equals a recount of
 * the input topic.
 *
 * <p>{@code kscale.warmup.restore.records.per.second} is unset, as a new user has it: the leader
 * learns each instance's restore rate, so follow-ups come after a short measuring one and then
 * the predicted catch-up (at least 10 s each), not the 60 s probing interval.
 */
@RealKafkaCluster(brokers = 3)
class WarmupKillIT {

    private static final Logger log = LoggerFactory.getLogger(WarmupKillIT.class);

    @Test
    void shouldKeepEveryTaskRunningAndRebalanceOnTheSurvivorsWhenAWarmingInstanceIsKilled(KafkaCluster cluster) {
        ScaleOutSettings settings = ScaleOutSettings.builder().peers(List.of(ScaleOutPeer.KSCALE)).keys(10_000)
                .preloadRecords(40_000).killWarmingInstance(true)
                .sessionTimeout(Duration.ofSeconds(10)).balanceTimeout(Duration.ofSeconds(120)).build();

        ScaleOutRun run = new ScaleOutScenario(settings).runOn(cluster.clientProperties()).get(0);
        log.info("Kill during warmup, 1 -> 3 -> 2 instances, 6 tasks, while writing {} records/s:\n{}",
                settings.recordsPerSecond(), run);

        assertThat(run.problems()).as("problems").isEmpty();
        assertThat(run.kill()).as("an instance was killed while it warmed up").isPresent();
        WarmupKill kill = run.kill().orElseThrow();
        assertThat(kill.standbysAtKill()).as("warmups on the killed instance").isPositive();
        assertThat(kill.balancedAfterKill()).as("balanced on the survivors within %s", settings.balanceTimeout())
                .isPresent();
        assertThat(run.finalActives()).as("active tasks per instance, the killed one last to join or not")
                .containsExactlyInAnyOrder(3, 3, 0);
        // Not empty: the survivor takes 3 tasks over, and each restores at least the changelog's last
        // offset (a transaction marker under exactly-once); an empty list would pass allSatisfy.
        assertThat(run.restores()).as("active restorations after the scale-out").isNotEmpty().allSatisfy(restore -> {
            assertThat(restore.recordsToRestore()).as("records to restore: %s", restore)
                    .isLessThanOrEqualTo(settings.acceptableRecoveryLag());
            assertThat(restore.end()).as("end of %s", restore).isEqualTo(ActiveRestore.End.RESTORED);
        });
        assertThat(kill.progress().advances()).as("samples in which each input partition advanced after the kill")
                .hasSize(settings.partitions()).allSatisfy((partition, advances) -> assertThat(advances).isPositive());
        assertThat(kill.recount().wrongCounts()).as("keys whose count differs from a recount of the input").isZero();
        assertThat(kill.recount().keysOnTwoInstances()).as("keys in two instances' stores").isZero();
        assertThat(kill.recount().recordsCounted()).as("records counted").isEqualTo(kill.recount().recordsSent());
        assertThat(run.counts().wrongCounts()).as("keys whose count differs from the records acknowledged").isZero();
    }
}
