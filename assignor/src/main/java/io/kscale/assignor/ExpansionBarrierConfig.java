package io.kscale.assignor;

import io.kscale.assignor.internals.store.StoreSettingValidators;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Settings of {@link ExpansionBarrier}, read from the map given to
 * {@link ExpansionBarrier#wrap(org.apache.kafka.clients.consumer.Consumer, Map)}: usually the
 * consumer's own configuration, where the consumer ignores these keys.
 *
 * <p>Same shape as {@link KeyPreservingAssignorConfig}: per key a public {@code X_CONFIG} and
 * {@code X_DEFAULT}, one {@link ConfigDef} with validators and docs, parsed once into typed
 * fields; unknown keys are ignored.
 */
public final class ExpansionBarrierConfig {

    /** How long a task waits for a caught-up sibling partition. */
    public static final String GRACE_MS_CONFIG = "kscale.barrier.grace.ms";
    public static final long GRACE_MS_DEFAULT = 1_000L;
    private static final String GRACE_MS_DOC = "How long a task of the ExpansionBarrier waits for a caught-up "
            + "sibling partition (nothing left to read) before it returns a record later than that sibling's last "
            + "one. Counted from the record's timestamp, or from when the barrier fetched it if that is earlier (a "
            + "record stamped in the future; counted in future-timestamp-releases-total). Cover the producers' "
            + "linger.ms, request latency and retries plus this consumer's fetch.max.wait.ms: a record that becomes "
            + "readable later than this after its timestamp may be overtaken by a later record of its key, and is "
            + "then counted in out-of-order-records-total. To keep order through the crash of a partition leader, "
            + "cover the failover too: the controller fences a dead broker after the brokers' "
            + "broker.session.timeout.ms (9 s by default) and the producers' retried records follow, so about 15 s "
            + "with Kafka's defaults. The cost: a task whose sibling has nothing newer waits this long before it "
            + "returns a record: after an expansion, every record of a task until the producers' next metadata refresh "
            + "(metadata.max.age.ms) sends records to the new partitions. Kafka Streams' max.task.idle.ms plays this part for a "
            + "Streams task. 0 returns a record as soon as every sibling is caught up.";

    /** How long a task waits for a sibling that is behind but returns nothing. */
    public static final String MAX_HOLD_MS_CONFIG = "kscale.barrier.max.hold.ms";
    public static final long MAX_HOLD_MS_DEFAULT = 30_000L;
    private static final String MAX_HOLD_MS_DOC = "Longest time a task of the ExpansionBarrier waits for a sibling "
            + "partition that has records left to read, or whose lag is unknown (its leader offline, a partition "
            + "that does not exist), but returns none: paused by the application, or not fetched. After that the "
            + "sibling no longer holds the task back until it returns a record or is caught up again, so a key's "
            + "records may come out of order; each poll that releases records so is counted, in "
            + "unknown-lag-releases-total or max-hold-releases-total, and logged as a WARN. A sibling that keeps "
            + "returning records is never skipped: the task works through its backlog in timestamp order. Kafka "
            + "Streams waits for such a partition without bound. Must be at least " + GRACE_MS_CONFIG + ".";

    /** Where the broker-side assignor keeps each topic's T, read on the consumer protocol. */
    public static final String TASK_COUNT_TOPIC_CONFIG = "kscale.barrier.task.count.topic";
    /** The brokers' default {@code kscale.server.assignor.store.topic}. */
    public static final String TASK_COUNT_TOPIC_DEFAULT = "kscale-task-counts";
    private static final String TASK_COUNT_TOPIC_DOC = "On group.protocol=consumer only: the topic where the brokers' "
            + "KeyPreservingServerAssignor keeps the task count T of each topic id (the brokers' "
            + "kscale.server.assignor.store.topic). The barrier reads it, with the consumer's own connection and "
            + "security settings, on a thread of its own, to learn which of its partitions share a task; until a "
            + "topic's T is read, that topic's records pass through unordered. The consumer needs READ and DESCRIBE on "
            + "it. Ignored on group.protocol=classic, where the assignment itself carries the layout.";

    private static final String GROUP = "Expansion barrier";

    private static final ConfigDef CONFIG = new ConfigDef()
            .define(GRACE_MS_CONFIG, Type.LONG, GRACE_MS_DEFAULT, Range.atLeast(0L),
                    Importance.MEDIUM, GRACE_MS_DOC, GROUP, 0, Width.SHORT, "Grace")
            .define(MAX_HOLD_MS_CONFIG, Type.LONG, MAX_HOLD_MS_DEFAULT, Range.atLeast(0L),
                    Importance.MEDIUM, MAX_HOLD_MS_DOC, GROUP, 1, Width.SHORT, "Max hold")
            .define(TASK_COUNT_TOPIC_CONFIG, Type.STRING, TASK_COUNT_TOPIC_DEFAULT, StoreSettingValidators.topicName(),
                    Importance.LOW, TASK_COUNT_TOPIC_DOC, GROUP, 2, Width.MEDIUM, "Task count topic");

    private final Duration grace;
    private final Duration maxHold;
    private final String clientId;
    private final boolean consumerProtocol;
    private final String taskCountTopic;
    private final Map<String, Object> originals;

    /**
     * Parses and validates the settings.
     *
     * @param props the settings, usually the consumer's; unknown keys are ignored
     * @throws ConfigException naming the key, the value and what is allowed if a value is invalid,
     *         or if {@value #MAX_HOLD_MS_CONFIG} is below {@value #GRACE_MS_CONFIG}
     */
    public ExpansionBarrierConfig(Map<String, ?> props) {
        Map<String, Object> parsed = CONFIG.parse(props);
        long graceMs = (Long) parsed.get(GRACE_MS_CONFIG);
        long maxHoldMs = (Long) parsed.get(MAX_HOLD_MS_CONFIG);
        if (maxHoldMs < graceMs) {
            // A sibling that is behind would then be skipped sooner than one that is caught up.
            throw new ConfigException(MAX_HOLD_MS_CONFIG, maxHoldMs, "must be at least " + GRACE_MS_CONFIG
                    + " (" + graceMs + ")");
        }
        this.grace = Duration.ofMillis(graceMs);
        this.maxHold = Duration.ofMillis(maxHoldMs);
        Object client = props.get(ConsumerConfig.CLIENT_ID_CONFIG);
        this.clientId = client == null ? "" : client.toString();
        this.consumerProtocol = ConsumerProtocol.isChosenIn(props);
        this.taskCountTopic = (String) parsed.get(TASK_COUNT_TOPIC_CONFIG);
        this.originals = new HashMap<>(props);
    }

    /** @return {@value #TASK_COUNT_TOPIC_CONFIG} */
    String taskCountTopic() {
        return taskCountTopic;
    }

    /** @return the settings as given: the consumer's connection settings, for reading the task count topic */
    Map<String, Object> originals() {
        return originals;
    }

    /** @return {@value #GRACE_MS_CONFIG} */
    public Duration grace() {
        return grace;
    }

    /** @return {@value #MAX_HOLD_MS_CONFIG} */
    public Duration maxHold() {
        return maxHold;
    }

    /** @return the map's {@code client.id}, or "": names the barrier's metrics when the consumer's own are not at hand */
    String clientId() {
        return clientId;
    }

    /** @return whether the map says {@code group.protocol=consumer} (KIP-848): no task layout reaches the barrier then */
    boolean consumerProtocol() {
        return consumerProtocol;
    }

    /**
     * The definition of this class's settings, for documentation ({@code toHtml()}, {@code toRst()}).
     *
     * @return a copy of the definition
     */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    @Override
    public String toString() {
        return GRACE_MS_CONFIG + "=" + grace.toMillis() + ", " + MAX_HOLD_MS_CONFIG + "=" + maxHold.toMillis();
    }
}
