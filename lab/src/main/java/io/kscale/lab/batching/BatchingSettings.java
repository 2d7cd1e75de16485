package io.kscale.lab.batching;

import static io.kscale.lab.SettingChecks.nonEmpty;
import static io.kscale.lab.SettingChecks.notNegative;
import static io.kscale.lab.SettingChecks.positive;

import io.kscale.lab.partitioner.PartitionerPeer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The batching scenario's settings. The defaults are the matrix of issue 19: rates 1,000, 5,000
 * and 20,000 records/s and full speed; {@code linger.ms} 0 and 5 (the 4.x default); a bursty and
 * an even sender; kscale, the built-in partitioner and {@code RoundRobinPartitioner}; 512-byte
 * unkeyed records; 2 rounds of 20 s per cell.
 */
public final class BatchingSettings {

    public static final int DEFAULT_RECORD_SIZE = 512;
    public static final int PARTITIONS_PER_BROKER = 10;
    public static final long DEFAULT_SEED = 19;
    /** Producer start and final flush around each run's produce time: about 0.2 s seen here, rounded up. */
    static final Duration OVERHEAD_PER_RUN = Duration.ofSeconds(1);
    /** Starting the 3 brokers and creating the topics: 75 s seen here at a load average of 30. */
    static final Duration SETUP = Duration.ofSeconds(90);

    private final List<PartitionerPeer> peers;
    private final List<SendRate> rates;
    private final List<Integer> lingers;
    private final List<SendPacing> pacings;
    private final int rounds;
    private final Duration duration;
    private final int recordSize;
    private final int stickyBatchSize;
    private final long seed;

    private BatchingSettings(Builder b) {
        this.peers = List.copyOf(b.peers);
        this.rates = List.copyOf(b.rates);
        this.lingers = List.copyOf(b.lingers);
        this.pacings = List.copyOf(b.pacings);
        this.rounds = b.rounds;
        this.duration = b.duration;
        this.recordSize = b.recordSize;
        this.stickyBatchSize = b.stickyBatchSize;
        this.seed = b.seed;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The cells to run, by rate, then pacing, then linger. The max rate is unpaced, so it gets one
     * cell per linger whatever the pacings.
     */
    public List<BatchingCell> cells() {
        List<BatchingCell> cells = new ArrayList<>();
        for (SendRate rate : rates) {
            for (SendPacing pacing : rate.isMax() ? List.of(SendPacing.NONE) : pacings) {
                for (int linger : lingers) {
                    cells.add(new BatchingCell(rate, pacing, linger));
                }
            }
        }
        return cells;
    }

    /** Every cell, round and peer produces for {@link #duration()}, plus some overhead each, after the setup. */
    public Duration estimatedRunTime() {
        long runs = (long) cells().size() * rounds * peers.size();
        return SETUP.plus(duration.plus(OVERHEAD_PER_RUN).multipliedBy(runs));
    }

    public List<PartitionerPeer> peers() {
        return peers;
    }

    public int rounds() {
        return rounds;
    }

    public Duration duration() {
        return duration;
    }

    public int recordSize() {
        return recordSize;
    }

    /** @return kscale's {@code partitioner.sticky.batch.size}, or 0 to leave it at its default (the producer's {@code batch.size}) */
    public int stickyBatchSize() {
        return stickyBatchSize;
    }

    public long seed() {
        return seed;
    }

    public static final class Builder {
        private List<PartitionerPeer> peers =
                List.of(PartitionerPeer.KSCALE, PartitionerPeer.BUILT_IN, PartitionerPeer.ROUND_ROBIN);
        private List<SendRate> rates = List.of(SendRate.perSecond(1_000), SendRate.perSecond(5_000),
                SendRate.perSecond(20_000), SendRate.MAX);
        private List<Integer> lingers = List.of(0, 5);
        private List<SendPacing> pacings = List.of(SendPacing.BURSTY, SendPacing.EVEN);
        private int rounds = 2;
        private Duration duration = Duration.ofSeconds(20);
        private int recordSize = DEFAULT_RECORD_SIZE;
        private int stickyBatchSize;
        private long seed = DEFAULT_SEED;

        private Builder() {
        }

        public Builder peers(List<PartitionerPeer> peers) {
            nonEmpty("partitioners", peers);
            for (PartitionerPeer peer : peers) {
                if (peer.ownJvm()) {
                    throw new IllegalArgumentException(peer.cliName() + " runs on another kafka-clients in its own JVM;"
                            + " the batching scenario runs kscale, built-in and round-robin");
                }
            }
            this.peers = peers;
            return this;
        }

        public Builder rates(List<SendRate> rates) {
            this.rates = nonEmpty("rates", rates);
            return this;
        }

        public Builder lingers(List<Integer> lingers) {
            for (int linger : nonEmpty("lingers", lingers)) {
                notNegative("linger.ms", linger);
            }
            this.lingers = lingers;
            return this;
        }

        public Builder pacings(List<SendPacing> pacings) {
            if (nonEmpty("pacings", pacings).contains(SendPacing.NONE)) {
                throw new IllegalArgumentException("pacing is bursty or even; the max rate is the unpaced one");
            }
            this.pacings = pacings;
            return this;
        }

        public Builder rounds(int rounds) {
            this.rounds = positive("rounds", rounds);
            return this;
        }

        public Builder duration(Duration duration) {
            this.duration = positive("duration", duration);
            return this;
        }

        public Builder recordSize(int recordSize) {
            this.recordSize = positive("record size", recordSize);
            return this;
        }

        /** @param bytes kscale's bytes per stint; 0 leaves the setting at its default */
        public Builder stickyBatchSize(int bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("sticky batch size must be 0 (the default) or positive, got " + bytes);
            }
            this.stickyBatchSize = bytes;
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public BatchingSettings build() {
            return new BatchingSettings(this);
        }
    }
}
