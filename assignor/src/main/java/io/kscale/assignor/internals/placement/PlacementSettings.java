package io.kscale.assignor.internals.placement;

import java.time.Duration;
import java.util.Objects;

/**
 * How the engine trades replay time, balance and rebalance frequency. Immutable; start from
 * {@link #defaults()} or {@link #builder()}. The defaults are Kafka Streams' own
 * ({@code acceptable.recovery.lag}, {@code max.warmup.replicas},
 * {@code num.standby.replicas}, {@code probing.rebalance.interval.ms}).
 *
 * <p>The follow-up delay rule, which uses the last three settings, is described on
 * {@link Placement#followUp()}.
 */
public final class PlacementSettings {

    /** Kafka Streams' {@code acceptable.recovery.lag} default: 10,000 records. */
    public static final long DEFAULT_ACCEPTABLE_RECOVERY_LAG = 10_000;
    /** Kafka Streams' {@code max.warmup.replicas} default: 2. */
    public static final int DEFAULT_MAX_WARMUPS = 2;
    /** Kafka Streams' {@code probing.rebalance.interval.ms} default: 10 minutes. */
    public static final Duration DEFAULT_PROBING_INTERVAL = Duration.ofMinutes(10);
    /** The shortest follow-up delay by default: 10 seconds, so catch-ups do not cause a rebalance storm. */
    public static final Duration DEFAULT_MIN_FOLLOW_UP_DELAY = Duration.ofSeconds(10);

    private final long acceptableRecoveryLag;
    private final int maxWarmups;
    private final int standbyCount;
    private final Duration probingInterval;
    private final Duration minFollowUpDelay;
    private final long restoreRecordsPerSecond;

    private PlacementSettings(Builder builder) {
        this.acceptableRecoveryLag = builder.acceptableRecoveryLag;
        this.maxWarmups = builder.maxWarmups;
        this.standbyCount = builder.standbyCount;
        this.probingInterval = builder.probingInterval;
        this.minFollowUpDelay = builder.minFollowUpDelay;
        this.restoreRecordsPerSecond = builder.restoreRecordsPerSecond;
        if (minFollowUpDelay.compareTo(probingInterval) > 0) {
            throw new IllegalArgumentException("minFollowUpDelay " + minFollowUpDelay
                    + " is longer than probingInterval " + probingInterval + "; it must not be");
        }
    }

    /** @return the defaults: Kafka Streams' values, no standbys, restore rate unknown */
    public static PlacementSettings defaults() {
        return builder().build();
    }

    /** @return a builder holding the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return records a client may be behind on a task and still count as caught up */
    public long acceptableRecoveryLag() {
        return acceptableRecoveryLag;
    }

    /** @return how many warmup copies may exist at once across all clients */
    public int maxWarmups() {
        return maxWarmups;
    }

    /** @return standby copies wanted per stateful task, besides the active one */
    public int standbyCount() {
        return standbyCount;
    }

    /** @return the longest follow-up delay while warmups are in flight */
    public Duration probingInterval() {
        return probingInterval;
    }

    /** @return the shortest follow-up delay */
    public Duration minFollowUpDelay() {
        return minFollowUpDelay;
    }

    /** @return records per second a client restores, or 0 if unknown; a client's own rate takes precedence */
    public long restoreRecordsPerSecond() {
        return restoreRecordsPerSecond;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PlacementSettings)) {
            return false;
        }
        PlacementSettings that = (PlacementSettings) o;
        return acceptableRecoveryLag == that.acceptableRecoveryLag && maxWarmups == that.maxWarmups
                && standbyCount == that.standbyCount && probingInterval.equals(that.probingInterval)
                && minFollowUpDelay.equals(that.minFollowUpDelay) && restoreRecordsPerSecond == that.restoreRecordsPerSecond;
    }

    @Override
    public int hashCode() {
        return Objects.hash(acceptableRecoveryLag, maxWarmups, standbyCount, probingInterval, minFollowUpDelay,
                restoreRecordsPerSecond);
    }

    @Override
    public String toString() {
        return "PlacementSettings(acceptableRecoveryLag " + acceptableRecoveryLag + ", maxWarmups " + maxWarmups
                + ", standbyCount " + standbyCount + ", probingInterval " + probingInterval + ", minFollowUpDelay "
                + minFollowUpDelay + ", restoreRecordsPerSecond " + restoreRecordsPerSecond + ")";
    }

    /** Collects {@link PlacementSettings}; starts from the defaults; not thread-safe. */
    public static final class Builder {
        private long acceptableRecoveryLag = DEFAULT_ACCEPTABLE_RECOVERY_LAG;
        private int maxWarmups = DEFAULT_MAX_WARMUPS;
        private int standbyCount;
        private Duration probingInterval = DEFAULT_PROBING_INTERVAL;
        private Duration minFollowUpDelay = DEFAULT_MIN_FOLLOW_UP_DELAY;
        private long restoreRecordsPerSecond;

        private Builder() {
        }

        /**
         * Sets the lag up to which a client counts as caught up on a task.
         *
         * @param records 0 or more
         * @return this builder
         */
        public Builder acceptableRecoveryLag(long records) {
            this.acceptableRecoveryLag = atLeastZero("acceptableRecoveryLag", records);
            return this;
        }

        /**
         * Sets how many warmups may be in flight at once. With 0, a stateful task moves only to a
         * client that caught up by other means (a standby).
         *
         * @param warmups 0 or more
         * @return this builder
         */
        public Builder maxWarmups(int warmups) {
            this.maxWarmups = (int) atLeastZero("maxWarmups", warmups);
            return this;
        }

        /**
         * Sets the standby copies per stateful task.
         *
         * @param standbys 0 or more
         * @return this builder
         */
        public Builder standbyCount(int standbys) {
            this.standbyCount = (int) atLeastZero("standbyCount", standbys);
            return this;
        }

        /**
         * Sets the longest follow-up delay while warmups are in flight.
         *
         * @param interval positive
         * @return this builder
         */
        public Builder probingInterval(Duration interval) {
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("probingInterval is " + interval + "; it must be positive");
            }
            this.probingInterval = interval;
            return this;
        }

        /**
         * Sets the shortest follow-up delay; not longer than the probing interval.
         *
         * @param delay zero or positive
         * @return this builder
         */
        public Builder minFollowUpDelay(Duration delay) {
            if (delay.isNegative()) {
                throw new IllegalArgumentException("minFollowUpDelay is " + delay + "; it must not be negative");
            }
            this.minFollowUpDelay = delay;
            return this;
        }

        /**
         * Sets how fast a client restores state, used to predict when a warmup catches up.
         *
         * @param recordsPerSecond 0 (unknown: a client's own rate or measuring delay applies, else
         *        the follow-up comes after the probing interval) or more; a client's own rate
         *        ({@link ClientDescription#restoreRecordsPerSecond()}) takes precedence
         * @return this builder
         */
        public Builder restoreRecordsPerSecond(long recordsPerSecond) {
            this.restoreRecordsPerSecond = atLeastZero("restoreRecordsPerSecond", recordsPerSecond);
            return this;
        }

        /**
         * Builds the settings.
         *
         * @return the settings
         * @throws IllegalArgumentException if minFollowUpDelay is longer than probingInterval
         */
        public PlacementSettings build() {
            return new PlacementSettings(this);
        }

        private static long atLeastZero(String name, long value) {
            if (value < 0) {
                throw new IllegalArgumentException(name + " is " + value + "; it must be 0 or more");
            }
            return value;
        }
    }
}
