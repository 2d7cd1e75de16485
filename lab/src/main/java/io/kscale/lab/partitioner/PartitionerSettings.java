package io.kscale.lab.partitioner;

import static io.kscale.lab.SettingChecks.nonEmpty;
import static io.kscale.lab.SettingChecks.notNegative;
import static io.kscale.lab.SettingChecks.positive;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The partitioner scenario's settings. The defaults reproduce KIP-794's experiment: 3 brokers,
 * one slowed by 20 ms, 512-byte records, {@code linger.ms=0}, a producer throttled to 1 MB/s.
 */
public final class PartitionerSettings {

    public static final int DEFAULT_RECORD_SIZE = 512;
    public static final long DEFAULT_BYTES_PER_SECOND = 1_000_000;
    public static final Duration DEFAULT_ADDED_LATENCY = Duration.ofMillis(20);
    public static final long DEFAULT_SEED = 794;

    private final List<PartitionerPeer> peers;
    private final int partitions;
    private final int recordSize;
    private final long bytesPerSecond;
    private final Duration duration;
    private final int lingerMs;
    private final int stickyBatchSize;
    private final int slowBroker;
    private final Duration addedLatency;
    private final int rounds;
    private final long seed;
    private final Map<String, Object> extraProducerProperties;
    private final Path workDir;

    private PartitionerSettings(Builder b) {
        this.peers = List.copyOf(b.peers);
        this.partitions = b.partitions;
        this.recordSize = b.recordSize;
        this.bytesPerSecond = b.bytesPerSecond;
        this.duration = b.duration;
        this.lingerMs = b.lingerMs;
        this.stickyBatchSize = b.stickyBatchSize;
        this.slowBroker = b.slowBroker;
        this.addedLatency = b.addedLatency;
        this.rounds = b.rounds;
        this.seed = b.seed;
        this.extraProducerProperties = Map.copyOf(b.extraProducerProperties);
        this.workDir = b.workDir;
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<PartitionerPeer> peers() {
        return peers;
    }

    public int partitions() {
        return partitions;
    }

    public int recordSize() {
        return recordSize;
    }

    public long bytesPerSecond() {
        return bytesPerSecond;
    }

    public Duration duration() {
        return duration;
    }

    public int lingerMs() {
        return lingerMs;
    }

    /** kscale's partitioner.sticky.batch.size; 0 leaves it at its default (batch.size). */
    public int stickyBatchSize() {
        return stickyBatchSize;
    }

    public int slowBroker() {
        return slowBroker;
    }

    public Duration addedLatency() {
        return addedLatency;
    }

    public int rounds() {
        return rounds;
    }

    public long seed() {
        return seed;
    }

    /** Producer settings on top of the scenario's (e.g. from --command-config). */
    public Map<String, Object> extraProducerProperties() {
        return extraProducerProperties;
    }

    public Path workDir() {
        return workDir;
    }

    public static final class Builder {
        private List<PartitionerPeer> peers = List.of(PartitionerPeer.values());
        private int partitions = 3;
        private int recordSize = DEFAULT_RECORD_SIZE;
        private long bytesPerSecond = DEFAULT_BYTES_PER_SECOND;
        private Duration duration = Duration.ofSeconds(30);
        private int lingerMs = 0;
        private int stickyBatchSize = 0;
        private int slowBroker = 0;
        private Duration addedLatency = DEFAULT_ADDED_LATENCY;
        private int rounds = 1;
        private long seed = DEFAULT_SEED;
        private Map<String, Object> extraProducerProperties = Map.of();
        private Path workDir = Path.of("target", "kscale-lab");

        private Builder() {
        }

        public Builder peers(List<PartitionerPeer> peers) {
            this.peers = nonEmpty("partitioners", peers);
            return this;
        }

        public Builder partitions(int partitions) {
            this.partitions = positive("partitions", partitions);
            return this;
        }

        public Builder recordSize(int recordSize) {
            this.recordSize = positive("record size", recordSize);
            return this;
        }

        public Builder bytesPerSecond(long bytesPerSecond) {
            this.bytesPerSecond = positive("rate", bytesPerSecond);
            return this;
        }

        public Builder duration(Duration duration) {
            this.duration = positive("duration", duration);
            return this;
        }

        public Builder lingerMs(int lingerMs) {
            this.lingerMs = notNegative("linger.ms", lingerMs);
            return this;
        }

        public Builder stickyBatchSize(int stickyBatchSize) {
            this.stickyBatchSize = notNegative("partitioner.sticky.batch.size", stickyBatchSize);
            return this;
        }

        public Builder slowBroker(int slowBroker) {
            this.slowBroker = notNegative("slow broker id", slowBroker);
            return this;
        }

        public Builder addedLatency(Duration addedLatency) {
            this.addedLatency = addedLatency;
            return this;
        }

        public Builder rounds(int rounds) {
            this.rounds = positive("rounds", rounds);
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder extraProducerProperties(Map<String, Object> properties) {
            this.extraProducerProperties = properties;
            return this;
        }

        public Builder workDir(Path workDir) {
            this.workDir = workDir;
            return this;
        }

        public PartitionerSettings build() {
            return new PartitionerSettings(this);
        }
    }
}
