package io.kscale.lab.placement;

import java.time.Duration;

/**
 * The settings both assignors get, with Kafka Streams' names.
 *
 * @param acceptableRecoveryLag {@code acceptable.recovery.lag}: records a copy may be behind and count as caught up
 * @param maxWarmups {@code max.warmup.replicas}: warmup copies at once
 * @param standbys {@code num.standby.replicas}
 * @param probingInterval {@code probing.rebalance.interval.ms}: when Streams rebalances again while warmups are in flight
 */
public record SimSettings(long acceptableRecoveryLag, int maxWarmups, int standbys, Duration probingInterval) {

    public SimSettings {
        if (acceptableRecoveryLag < 0 || maxWarmups < 0 || standbys < 0) {
            throw new IllegalArgumentException("negative setting: " + acceptableRecoveryLag + ", " + maxWarmups + ", " + standbys);
        }
        if (probingInterval.toSeconds() < 1) {
            throw new IllegalArgumentException("probing interval " + probingInterval + " is shorter than a second");
        }
    }

    /** @return these settings with another standby count */
    public SimSettings withStandbys(int count) {
        return new SimSettings(acceptableRecoveryLag, maxWarmups, count, probingInterval);
    }
}
