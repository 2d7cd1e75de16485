package io.kscale.streams;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * kscale's own settings of {@link WarmupTaskAssignor}, besides the Streams settings it reads from
 * {@code AssignmentConfigs}. Kafka Streams instantiates the assignor named by
 * {@code task.assignor.class} and calls {@code configure} with the main consumer's settings, which
 * carry every unprefixed key of the Streams configuration, unknown keys included: so these keys are
 * set in the Streams properties like any other.
 *
 * <p>Same shape as the consumer assignor's settings: per key a public {@code X_CONFIG} and
 * {@code X_DEFAULT}, one {@link ConfigDef} with validators and docs, parsed once into typed fields.
 */
public final class WarmupTaskAssignorConfig {

    /** How fast an instance restores a warmup copy, to predict when it catches up. */
    public static final String RESTORE_RECORDS_PER_SECOND_CONFIG = "kscale.warmup.restore.records.per.second";
    /** Unknown: the group leader learns each instance's rate from the lags it sees. */
    public static final long RESTORE_RECORDS_PER_SECOND_DEFAULT = 0L;
    private static final String RESTORE_RECORDS_PER_SECOND_DOC = "Changelog records per second an instance "
            + "restores, all its restoring copies together, used to predict when a warmup copy catches up: a copy "
            + "lagging L records on an instance that restores n copies at once (its warmups, and its active and "
            + "standby tasks beyond acceptable.recovery.lag) needs n * (L - acceptable.recovery.lag) / rate seconds. "
            + "The follow-up rebalance that promotes caught-up warmups comes after the shortest predicted time over "
            + "the copies in flight, at least 10 seconds and at most probing.rebalance.interval.ms. 0 (the default) "
            + "means learn it: the group leader measures each instance's rate from the lags it reports at two "
            + "rebalances (on the leader's clock), scheduling a short measuring follow-up first (a tenth of "
            + "probing.rebalance.interval.ms, at most 30 seconds) when it has no history, as after a new leader "
            + "takes over. A value above 0 overrides the learning for every instance: set it a little below the "
            + "slowest rate you observe (a prediction that comes early costs one more rebalance, one that comes "
            + "late keeps the old owner busy longer). Read by the group leader: set it alike on every instance.";

    private static final String GROUP = "Warmup task assignor";

    private static final ConfigDef CONFIG = new ConfigDef()
            .define(RESTORE_RECORDS_PER_SECOND_CONFIG, Type.LONG, RESTORE_RECORDS_PER_SECOND_DEFAULT, Range.atLeast(0L),
                    Importance.LOW, RESTORE_RECORDS_PER_SECOND_DOC, GROUP, 0, Width.SHORT, "Restore rate");

    private final long restoreRecordsPerSecond;
    private final String applicationId;
    private final String clientId;

    /**
     * Parses and validates the settings.
     *
     * @param props the settings Streams passes to the assignor; unknown keys are ignored
     * @throws ConfigException naming the key, the value and what is allowed if a value is invalid
     */
    public WarmupTaskAssignorConfig(Map<String, ?> props) {
        Map<String, Object> parsed = CONFIG.parse(props);
        this.restoreRecordsPerSecond = (Long) parsed.get(RESTORE_RECORDS_PER_SECOND_CONFIG);
        // Streams' main consumer settings carry application.id, and group.id with the same value.
        Object application = props.get(StreamsConfig.APPLICATION_ID_CONFIG);
        if (application == null) {
            application = props.get(ConsumerConfig.GROUP_ID_CONFIG);
        }
        this.applicationId = application == null ? "" : application.toString();
        // The main consumer's client.id (<client.id>-StreamThread-<n>-consumer): its close ends the metrics.
        Object client = props.get(ConsumerConfig.CLIENT_ID_CONFIG);
        this.clientId = client == null ? "" : client.toString();
    }

    /** @return the defaults, as if no kscale key were set */
    static WarmupTaskAssignorConfig defaults() {
        return new WarmupTaskAssignorConfig(Map.of());
    }

    /** @return the value of {@value #RESTORE_RECORDS_PER_SECOND_CONFIG}; 0 if unknown */
    public long restoreRecordsPerSecond() {
        return restoreRecordsPerSecond;
    }

    /** @return the application id Streams passed ({@code application.id}), "" if none: whose history the leader keeps */
    public String applicationId() {
        return applicationId;
    }

    /**
     * Package-private: the public API of this class is frozen.
     *
     * @return the {@code client.id} of the stream thread's main consumer Streams passed, "" if none:
     *         whose metrics the leader records ({@link LeaderMetrics})
     */
    String clientId() {
        return clientId;
    }

    /** @return the definitions of the settings, for documentation */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }
}
