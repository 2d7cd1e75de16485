package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.it.stateful.ScaleOutPeer;
import io.kscale.it.stateful.ScaleOutResult;
import io.kscale.it.stateful.StatefulScaleOut;
import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.KafkaCluster;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KIP-441's smooth scale-out in a plain consumer group, on a real broker: an app counting 3,000
 * keys over 6 tasks, each task's counts in memory and in a compacted changelog partition, runs on
 * one member until it has processed a preload of 50,000 records; then, while a producer writes 400
 * records/s, two members join. With KeyPreservingAssignor and the app's TaskStateListener, the
 * prior owner keeps each task until its new owner has warmed up a copy: no task becomes active on
 * a member that still has more than {@code acceptable.recovery.lag} (1,000) records to restore;
 * the group ends with 2 tasks per member and every count right. The app asks for the follow-up
 * as soon as a warmup has caught up, so the scale-out does not wait for the probing interval (60 s).
 * CooperativeStickyAssignor runs the same app in the same test on the same broker as the control:
 * it moves tasks at once, so a new owner must restore a moved task's whole changelog (about 8,600
 * records here, measured 8,607-8,653) while active, more than {@code acceptable.recovery.lag}. If it
 * did not, the scenario would no longer show the problem (too little state, no task moved) and the
 * claim about kscale would test nothing. Times are printed, not asserted.
 */
@RealKafkaCluster(brokers = 1)
class StatefulConsumerScaleOutIT {

    private static final Logger log = LoggerFactory.getLogger(StatefulConsumerScaleOutIT.class);

    @Test
    void shouldKeepEveryTaskOnItsOwnerUntilTheNewMemberHasCaughtUpWhenScalingOneToThree(KafkaCluster cluster)
            throws InterruptedException {
        StatefulScaleOut.Settings settings = new StatefulScaleOut.Settings();
        StatefulScaleOut scenario = new StatefulScaleOut(cluster, settings);
        ScaleOutResult kscale = scenario.run(ScaleOutPeer.KSCALE);
        ScaleOutResult peer = scenario.run(ScaleOutPeer.COOPERATIVE_STICKY);
        log.info("Scale-out 1 -> 3 members, 6 tasks, 50,000 records preloaded, 400 records/s:\n{}\n{}\n{}\n{}\n{}",
                ScaleOutResult.header(), kscale.row(), peer.row(), kscale, peer);

        assertThat(kscale.failures()).as("member failures").isEmpty();
        assertThat(kscale.processedWhileRestoring()).as("records handed to a member for a task it had not restored").isZero();
        assertThat(kscale.restoresAfterScaleOut()).as("records to restore per task made active after the scale-out")
                .isNotEmpty()
                .allSatisfy(records -> assertThat(records).isLessThanOrEqualTo(settings.acceptableRecoveryLag));
        assertThat(kscale.balancedAfterMs()).as("balanced within %s", settings.balanceTimeout).isPresent();
        List<Integer> tasks = kscale.finalTasksPerMember();
        assertThat(tasks).hasSize(3);
        assertThat(Collections.max(tasks) - Collections.min(tasks)).as("tasks per member %s", tasks).isLessThanOrEqualTo(1);
        assertThat(kscale.keys()).isEqualTo(settings.keys);
        assertThat(kscale.wrongCounts()).as("keys whose count is wrong").isZero();
        assertThat(kscale.keysOnTwoMembers()).as("keys in two members' active stores").isZero();
        assertThat(peer.failures()).as("peer member failures").isEmpty();
        assertThat(peer.wrongCounts()).as("peer: keys whose count is wrong").isZero();
        assertThat(peer.largestActiveRestoreRecords())
                .as("control: records the peer's new owners restored for a task already active")
                .isGreaterThan(settings.acceptableRecoveryLag);
    }
}
