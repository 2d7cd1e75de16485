package io.kscale.partitioner;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Settings of {@link UniformStickyBytesPartitioner}, read from the producer's own configuration
 * (a partitioner receives every producer setting in {@code configure}).
 *
 * <p>Modelled on Kafka's {@code JsonConverterConfig}: per key a public {@code X_CONFIG} and
 * {@code X_DEFAULT}, one {@link ConfigDef} with validators and docs ({@link #configDef()}), parsed
 * once into typed fields. Unlike it, this class does not extend {@code AbstractConfig}: that
 * constructor would instantiate the producer's {@code config.providers} a second time, and it
 * would log every producer setting again.
 *
 * <p>Two producer settings are read here but are not settings of this class, so they are not in its
 * {@code ConfigDef}: {@code batch.size} (the default stint size) and {@code metadata.max.idle.ms}
 * (how long a topic stays idle before the partitioner forgets it, as the producer does).
 */
public final class UniformStickyBytesPartitionerConfig {

    /** Bytes produced to a partition before switching to the next one. */
    public static final String STICKY_BATCH_SIZE_CONFIG = "partitioner.sticky.batch.size";
    /** 0: use the producer's {@code batch.size}. */
    public static final int STICKY_BATCH_SIZE_DEFAULT = 0;
    private static final String STICKY_BATCH_SIZE_DOC = "Bytes to produce to a partition before the "
            + "partitioner switches to the next one, for records partitioned without their key. A record "
            + "counts its serialized key and value plus an estimate of its framing in a batch. "
            + "0 means the value of batch.size. A larger value gives larger batches and fewer switches; "
            + "partition totals stay within about two stints of each other whatever the value. "
            + "Has no effect on records with a key unless " + ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG
            + " is true.";

    /** Kafka's own producer setting, which a custom partitioner must honour itself. */
    public static final String IGNORE_KEYS_CONFIG = ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG;
    /** Records with a key are partitioned by their key. */
    public static final boolean IGNORE_KEYS_DEFAULT = false;
    private static final String IGNORE_KEYS_DOC = "When true, records with a key are partitioned like "
            + "records without one (sticky, by bytes). When false, a record with a key goes to "
            + "murmur2(key) % partition count over all partitions, exactly as with Kafka's built-in "
            + "partitioner, so switching to this partitioner moves no key. This is the producer's own "
            + "setting: Kafka bypasses it when partitioner.class is set, so this partitioner reads it.";

    /** Kafka's default of {@code batch.size}; pinned by a test against {@link ProducerConfig}. */
    static final int PRODUCER_BATCH_SIZE_DEFAULT = 16384;

    /** Kafka's default of {@code metadata.max.idle.ms}; pinned by a test against {@link ProducerConfig}. */
    static final long PRODUCER_METADATA_MAX_IDLE_MS_DEFAULT = 300_000;
    /** The least {@code metadata.max.idle.ms} the producer accepts. */
    static final long PRODUCER_METADATA_MAX_IDLE_MS_MIN = 5_000;

    private static final String GROUP = "Uniform sticky partitioner";

    private static final ConfigDef CONFIG = new ConfigDef()
            .define(STICKY_BATCH_SIZE_CONFIG, Type.INT, STICKY_BATCH_SIZE_DEFAULT, Range.atLeast(0),
                    Importance.MEDIUM, STICKY_BATCH_SIZE_DOC, GROUP, 0, Width.SHORT, "Sticky batch size")
            .define(IGNORE_KEYS_CONFIG, Type.BOOLEAN, IGNORE_KEYS_DEFAULT,
                    Importance.MEDIUM, IGNORE_KEYS_DOC, GROUP, 1, Width.SHORT, "Ignore keys");

    private final int stickyBatchSize;
    private final boolean ignoreKeys;
    private final int batchSize;
    private final long metadataMaxIdleMs;

    /**
     * Parses and validates the settings.
     *
     * @param props the producer's settings; unknown keys are ignored
     * @throws ConfigException naming the key, the value and the allowed range if a value is invalid
     */
    public UniformStickyBytesPartitionerConfig(Map<String, ?> props) {
        Map<String, Object> parsed = CONFIG.parse(props);
        this.stickyBatchSize = (Integer) parsed.get(STICKY_BATCH_SIZE_CONFIG);
        this.ignoreKeys = (Boolean) parsed.get(IGNORE_KEYS_CONFIG);
        this.batchSize = parseBatchSize(props.get(ProducerConfig.BATCH_SIZE_CONFIG));
        this.metadataMaxIdleMs = parseMetadataMaxIdleMs(props.get(ProducerConfig.METADATA_MAX_IDLE_CONFIG));
    }

    /**
     * The value of {@value #STICKY_BATCH_SIZE_CONFIG} as configured; 0 defers to {@code batch.size}.
     *
     * @return the configured sticky batch size
     */
    public int stickyBatchSize() {
        return stickyBatchSize;
    }

    /**
     * The value of {@value #IGNORE_KEYS_CONFIG}.
     *
     * @return true if keys are ignored for partitioning
     */
    public boolean ignoreKeys() {
        return ignoreKeys;
    }

    /**
     * The bytes per stint the partitioner uses: {@value #STICKY_BATCH_SIZE_CONFIG} if positive,
     * else the producer's {@code batch.size} (16384 unless set). With {@code batch.size=0} (batching
     * off) this is 1: every record is a stint of its own and partitions still take turns by bytes.
     *
     * @return the effective sticky size in bytes, at least 1
     */
    public int stickyBytes() {
        int bytes = stickyBatchSize > 0 ? stickyBatchSize : batchSize;
        return Math.max(1, bytes);
    }

    /**
     * The producer's {@code metadata.max.idle.ms} (300000 unless set): after this long without a
     * record, the producer drops a topic from its metadata and the partitioner forgets its state.
     *
     * @return the idle time in milliseconds, at least 5000
     */
    long metadataMaxIdleMs() {
        return metadataMaxIdleMs;
    }

    /**
     * The definition of this class's settings, for documentation ({@code toHtml()}, {@code toRst()}).
     *
     * @return a copy of the definition
     */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    /**
     * Reads {@code batch.size} as the producer would (an {@code Integer} or a {@code String}),
     * and also any integral {@code Number}, since a hand-built settings map may hold a
     * {@code Long}. The producer already validated it; this repeats the range check for maps that
     * did not come from a producer.
     */
    private static int parseBatchSize(Object value) {
        String key = ProducerConfig.BATCH_SIZE_CONFIG;
        if (value == null) {
            return PRODUCER_BATCH_SIZE_DEFAULT;
        }
        int parsed;
        if (value instanceof Long || value instanceof Short || value instanceof Byte) {
            long asLong = ((Number) value).longValue();
            if (asLong < Integer.MIN_VALUE || asLong > Integer.MAX_VALUE) {
                throw new ConfigException(key, value, "Not a number of type INT");
            }
            parsed = (int) asLong;
        } else {
            parsed = (Integer) ConfigDef.parseType(key, value, Type.INT);
        }
        if (parsed < 0) {
            throw new ConfigException(key, value, "Value must be at least 0");
        }
        return parsed;
    }

    /** Reads {@code metadata.max.idle.ms} as the producer would, with the producer's own lower bound. */
    private static long parseMetadataMaxIdleMs(Object value) {
        String key = ProducerConfig.METADATA_MAX_IDLE_CONFIG;
        if (value == null) {
            return PRODUCER_METADATA_MAX_IDLE_MS_DEFAULT;
        }
        long parsed = (Long) ConfigDef.parseType(key, value, Type.LONG);
        if (parsed < PRODUCER_METADATA_MAX_IDLE_MS_MIN) {
            throw new ConfigException(key, value, "Value must be at least " + PRODUCER_METADATA_MAX_IDLE_MS_MIN);
        }
        return parsed;
    }

    @Override
    public String toString() {
        return STICKY_BATCH_SIZE_CONFIG + "=" + stickyBatchSize + ", " + IGNORE_KEYS_CONFIG + "=" + ignoreKeys
                + ", " + ProducerConfig.BATCH_SIZE_CONFIG + "=" + batchSize
                + ", " + ProducerConfig.METADATA_MAX_IDLE_CONFIG + "=" + metadataMaxIdleMs;
    }
}
