package io.kscale.lab.scaleout;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What the scale-out scenario does: the application's size (partitions, keys, preloaded records
 * and their size), the producer's steady pace while instances join, the Streams settings that
 * shape warmups, and how long to wait for balance.
 *
 * <p>Defaults (sized so that all three peers finish in about four minutes on a shared 2-core
 * machine): 6 partitions, 1 instance then 3, 20,000 keys, 100,000 preloaded records of 200 bytes
 * (the store keeps each key's count and latest value: about 4 MB live and 23 MB of changelog),
 * 500 records/s while instances join, {@code acceptable.recovery.lag} 1,000,
 * {@code max.warmup.replicas} 2, {@code probing.rebalance.interval.ms} 60,000 (its minimum),
 * balance within 150 s and held for 5 s, peers run side by side, no
 * {@code kscale.warmup.restore.records.per.second} (WarmupTaskAssignor learns the rates).
 */
public final class ScaleOutSettings {

    private final List<ScaleOutPeer> peers;
    private final int partitions;
    private final int instances;
    private final int keys;
    private final long preloadRecords;
    private final int valueBytes;
    private final int recordsPerSecond;
    private final long acceptableRecoveryLag;
    private final int maxWarmupReplicas;
    private final Duration probingInterval;
    private final Duration balanceTimeout;
    private final Duration stableFor;
    private final boolean parallel;
    private final Path workDir;
    private final boolean killWarmingInstance;
    private final long restoreRecordsPerSecond;
    private final Duration sessionTimeout;

    private ScaleOutSettings(Builder b) {
        this.peers = List.copyOf(b.peers);
        this.partitions = b.partitions;
        this.instances = b.instances;
        this.keys = b.keys;
        this.preloadRecords = b.preloadRecords;
        this.valueBytes = b.valueBytes;
        this.recordsPerSecond = b.recordsPerSecond;
        this.acceptableRecoveryLag = b.acceptableRecoveryLag;
        this.maxWarmupReplicas = b.maxWarmupReplicas;
        this.probingInterval = b.probingInterval;
        this.balanceTimeout = b.balanceTimeout;
        this.stableFor = b.stableFor;
        this.parallel = b.parallel;
        this.workDir = b.workDir;
        this.killWarmingInstance = b.killWarmingInstance;
        this.restoreRecordsPerSecond = b.restoreRecordsPerSecond;
        this.sessionTimeout = b.sessionTimeout;
    }

    public static ScaleOutSettings defaults() {
        return builder().build();
    }

    /** @return a builder holding the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding these settings */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.peers = peers;
        b.partitions = partitions;
        b.instances = instances;
        b.keys = keys;
        b.preloadRecords = preloadRecords;
        b.valueBytes = valueBytes;
        b.recordsPerSecond = recordsPerSecond;
        b.acceptableRecoveryLag = acceptableRecoveryLag;
        b.maxWarmupReplicas = maxWarmupReplicas;
        b.probingInterval = probingInterval;
        b.balanceTimeout = balanceTimeout;
        b.stableFor = stableFor;
        b.parallel = parallel;
        b.workDir = workDir;
        b.killWarmingInstance = killWarmingInstance;
        b.restoreRecordsPerSecond = restoreRecordsPerSecond;
        b.sessionTimeout = sessionTimeout;
        return b;
    }

    public List<ScaleOutPeer> peers() {
        return peers;
    }

    /** @return partitions of the input topic, so tasks of the application (and changelog partitions) */
    public int partitions() {
        return partitions;
    }

    /** @return instances after the scale-out; one runs alone before it */
    public int instances() {
        return instances;
    }

    public int keys() {
        return keys;
    }

    /** @return records written before the first instance starts */
    public long preloadRecords() {
        return preloadRecords;
    }

    /** @return size of every record's value, and of the latest value the store keeps per key */
    public int valueBytes() {
        return valueBytes;
    }

    /** @return the producer's pace from just before the scale-out until balance (or the timeout) */
    public int recordsPerSecond() {
        return recordsPerSecond;
    }

    public long acceptableRecoveryLag() {
        return acceptableRecoveryLag;
    }

    public int maxWarmupReplicas() {
        return maxWarmupReplicas;
    }

    public Duration probingInterval() {
        return probingInterval;
    }

    /** @return how long after the scale-out to wait for a balanced, stable assignment */
    public Duration balanceTimeout() {
        return balanceTimeout;
    }

    /** @return how long an assignment must stay balanced to count as stable */
    public Duration stableFor() {
        return stableFor;
    }

    /** @return whether the peers run side by side (at the same time) rather than one after the other */
    public boolean parallel() {
        return parallel;
    }

    /** @return where the instances keep their state directories */
    public Path workDir() {
        return workDir;
    }

    /** Settings with checks: every size positive, at least two instances, a known probing interval. */
    /**
     * @return whether, once the instances have joined, one joining instance that warms up a copy
     *     (standbys, no active task) is stopped without leaving the group, as a crash looks to the
     *     group: its heartbeats stop and it is removed after {@link #sessionTimeout()}
     */
    public boolean killWarmingInstance() {
        return killWarmingInstance;
    }

    /**
     * @return {@code kscale.warmup.restore.records.per.second} given to every instance (only
     *     WarmupTaskAssignor reads it); 0 (the default) leaves it unset, so the group leader learns
     *     each instance's rate
     */
    public long restoreRecordsPerSecond() {
        return restoreRecordsPerSecond;
    }

    /** @return the consumers' {@code session.timeout.ms}: how long the group waits for a silent instance */
    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    public static final class Builder {
        private List<ScaleOutPeer> peers = List.of(ScaleOutPeer.values());
        private int partitions = 6;
        private int instances = 3;
        private int keys = 20_000;
        private long preloadRecords = 100_000;
        private int valueBytes = 200;
        private int recordsPerSecond = 500;
        private long acceptableRecoveryLag = 1_000;
        private int maxWarmupReplicas = 2;
        private Duration probingInterval = Duration.ofSeconds(60);
        private Duration balanceTimeout = Duration.ofSeconds(150);
        private Duration stableFor = Duration.ofSeconds(5);
        private boolean parallel = true;
        private Path workDir = Path.of("target", "kscale-scale-out");
        private boolean killWarmingInstance;
        /**
         * Unset, as WarmupTaskAssignor ships: the group leader learns each instance's restore rate
         * (a measuring follow-up first, then follow-ups after the predicted catch-up, at least 10 s).
         */
        private long restoreRecordsPerSecond;
        /** Kafka's default. */
        private Duration sessionTimeout = Duration.ofSeconds(45);

        private Builder() {
        }

        public Builder peers(List<ScaleOutPeer> peers) {
            this.peers = List.copyOf(peers);
            return this;
        }

        public Builder partitions(int partitions) {
            this.partitions = partitions;
            return this;
        }

        public Builder instances(int instances) {
            this.instances = instances;
            return this;
        }

        public Builder keys(int keys) {
            this.keys = keys;
            return this;
        }

        public Builder preloadRecords(long preloadRecords) {
            this.preloadRecords = preloadRecords;
            return this;
        }

        public Builder valueBytes(int valueBytes) {
            this.valueBytes = valueBytes;
            return this;
        }

        public Builder recordsPerSecond(int recordsPerSecond) {
            this.recordsPerSecond = recordsPerSecond;
            return this;
        }

        public Builder acceptableRecoveryLag(long acceptableRecoveryLag) {
            this.acceptableRecoveryLag = acceptableRecoveryLag;
            return this;
        }

        public Builder maxWarmupReplicas(int maxWarmupReplicas) {
            this.maxWarmupReplicas = maxWarmupReplicas;
            return this;
        }

        public Builder probingInterval(Duration probingInterval) {
            this.probingInterval = probingInterval;
            return this;
        }

        public Builder balanceTimeout(Duration balanceTimeout) {
            this.balanceTimeout = balanceTimeout;
            return this;
        }

        public Builder stableFor(Duration stableFor) {
            this.stableFor = stableFor;
            return this;
        }

        public Builder parallel(boolean parallel) {
            this.parallel = parallel;
            return this;
        }

        public Builder workDir(Path workDir) {
            this.workDir = Objects.requireNonNull(workDir, "workDir");
            return this;
        }

        public Builder killWarmingInstance(boolean killWarmingInstance) {
            this.killWarmingInstance = killWarmingInstance;
            return this;
        }

        public Builder restoreRecordsPerSecond(long restoreRecordsPerSecond) {
            this.restoreRecordsPerSecond = restoreRecordsPerSecond;
            return this;
        }

        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = Objects.requireNonNull(sessionTimeout, "sessionTimeout");
            return this;
        }

        /**
         * @return the settings
         * @throws IllegalArgumentException naming the first setting out of range
         */
        public ScaleOutSettings build() {
            require(!peers.isEmpty(), "peers must not be empty");
            require(partitions >= 1, "partitions must be at least 1, got " + partitions);
            require(instances >= 2, "instances must be at least 2 (one runs alone first), got " + instances);
            require(keys >= 1, "keys must be at least 1, got " + keys);
            require(preloadRecords >= keys, "preload records must be at least the keys (" + keys + "), got "
                    + preloadRecords);
            require(valueBytes >= 8, "value bytes must be at least 8 (the record's number), got " + valueBytes);
            require(recordsPerSecond >= 1, "records per second must be at least 1, got " + recordsPerSecond);
            require(acceptableRecoveryLag >= 0, "acceptable recovery lag must not be negative, got "
                    + acceptableRecoveryLag);
            require(maxWarmupReplicas >= 1, "max warmup replicas must be at least 1, got " + maxWarmupReplicas);
            require(probingInterval.toMillis() >= 60_000, "probing interval must be at least 60 s (Streams' minimum), got "
                    + probingInterval.toSeconds() + " s");
            require(!balanceTimeout.isNegative() && !balanceTimeout.isZero(), "balance timeout must be positive");
            require(!stableFor.isNegative(), "stable-for must not be negative");
            require(restoreRecordsPerSecond >= 0, "restore records per second must not be negative, got "
                    + restoreRecordsPerSecond);
            // the brokers' group.min.session.timeout.ms default
            require(sessionTimeout.toMillis() >= 6_000, "session timeout must be at least 6 s (the brokers' minimum), got "
                    + sessionTimeout.toMillis() + " ms");
            require(!killWarmingInstance || instances >= 3, "killing a warming instance needs at least 3 instances "
                    + "(one runs alone first, one is killed, one survives), got " + instances);
            return new ScaleOutSettings(this);
        }

        private static void require(boolean rule, String message) {
            if (!rule) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
