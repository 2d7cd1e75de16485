package io.kscale.assignor;

import io.kscale.assignor.internals.layout.CoPartitioning;
import io.kscale.assignor.internals.layout.ExpansionPolicy;
import io.kscale.assignor.internals.leader.LeaderSettings;
import io.kscale.assignor.internals.leader.UnreadableStorePolicy;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.placement.PlacementSettings;
import io.kscale.assignor.internals.store.StoreSettingValidators;
import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Settings of {@link KeyPreservingAssignor}, read from the consumer's own configuration (an
 * assignor that is {@code Configurable} receives every consumer setting).
 *
 * <p>Same shape as the partitioner's settings class: per key a public {@code X_CONFIG} and
 * {@code X_DEFAULT}, one {@link ConfigDef} with validators and docs, parsed once into typed
 * fields. Not an {@code AbstractConfig}, so the consumer's settings are not logged twice.
 */
public final class KeyPreservingAssignorConfig {

    /** Task counts the operator fixes per topic, as {@code topic:count} pairs. */
    public static final String TASK_COUNTS_CONFIG = "kscale.assignor.task.counts";
    /** No declared counts: every topic's T is its partition count when the group first assigns it. */
    public static final String TASK_COUNTS_DEFAULT = "";
    private static final String TASK_COUNTS_DOC = "Comma-separated topic:count pairs that fix a topic's task "
            + "count T, e.g. 'orders:4,payments:4'. Without an entry, T is the topic's partition count when the "
            + "group first assigns it. Declare T when a group migrates to this assignor after its topics were "
            + "already expanded: T must be the partition count the keys were first written with. Task t holds every "
            + "partition p with p % T == t, and all partitions of a task go to one consumer. Topics with the same "
            + "T are co-partitioned (task t of each goes to the same consumer) unless " + "kscale.assignor.co.partitioning"
            + " is 'none'. Declare T also to co-partition a topic created after another was expanded: if orders has "
            + "T=4 and 8 partitions, a new payments topic with 8 partitions gets T=8 and is not co-partitioned with "
            + "orders; 'payments:4' makes it so, best before payments holds state (its tasks merge, so its keys move "
            + "task once). The group leader logs such a topic once at WARN with this fix and counts it in the metric "
            + "co-partitioning-mismatches.";

    /** What to do when a topic grows to a count that is not a multiple of T. */
    public static final String EXPANSION_POLICY_CONFIG = "kscale.assignor.expansion.policy";
    public static final String EXPANSION_POLICY_DEFAULT = "keep";
    private static final String EXPANSION_POLICY_DOC = "What the group does when a topic grows to a partition "
            + "count that is not a multiple of its task count T. Some keys then move to another task whatever the "
            + "choice; the assignor logs an ERROR and counts it in the metric affinity-breaks-total. 'keep': T stays, "
            + "and keys are back in their task once the count is a multiple of T again. 'rebase': T becomes the new "
            + "count, as if the topic had been created with it. Topics listed in " + TASK_COUNTS_CONFIG
            + " always keep their declared T.";

    /** Which topics share tasks. */
    public static final String CO_PARTITIONING_CONFIG = "kscale.assignor.co.partitioning";
    public static final String CO_PARTITIONING_DEFAULT = "by-task-count";
    private static final String CO_PARTITIONING_DOC = "Which topics' tasks go to one consumer together. "
            + "'by-task-count': among the topics subscribed by the same consumers, those with the same task count T "
            + "are co-partitioned, so task t of each goes to one consumer and a key's records in both (a join) meet "
            + "there. 'none': every topic's tasks are placed on their own, for groups of many unrelated topics: 100 "
            + "topics of 10 partitions then give 1,000 tasks to balance instead of 10, but a key's records in two "
            + "topics may reach different consumers. Either way the partitions of one task of one topic stay "
            + "together, so keys keep their consumer across expansions. Read by the group leader: set it alike on "
            + "every member; changing it moves tasks once.";

    /** Whether the leader keeps the layout in a compacted topic. */
    public static final String LAYOUT_STORE_ENABLED_CONFIG = "kscale.assignor.layout.store.enabled";
    public static final boolean LAYOUT_STORE_ENABLED_DEFAULT = true;
    private static final String LAYOUT_STORE_ENABLED_DOC = "When true, the group leader writes the task layout to "
            + "the topic " + "kscale.assignor.layout.store.topic" + " (created on first use, compacted, keyed by group id) "
            + "whenever it changes, with this consumer's own connection and security settings, reading it before "
            + "each write, and reads it when no member knows the layout of a subscribed topic. When false, the layout lives only in the members' "
            + "subscriptions: if every member stops and a topic is expanded before one starts again, T becomes the "
            + "new partition count and keys of the new partitions move to other tasks.";

    /** The compacted topic that holds the layouts of every group using the store. */
    public static final String LAYOUT_STORE_TOPIC_CONFIG = "kscale.assignor.layout.store.topic";
    public static final String LAYOUT_STORE_TOPIC_DEFAULT = "kscale-assignor-layouts";
    private static final String LAYOUT_STORE_TOPIC_DOC = "Name of the compacted topic with one record per group "
            + "(key: group id; value: the layout, a few bytes per topic). By default shared by all groups of a "
            + "cluster, so any principal with WRITE on it can change any group's layout: to keep groups apart, give "
            + "each its own topic (e.g. kscale-assignor-layouts.<group.id>) and grant READ, WRITE and CREATE on it to "
            + "that group's principal only. Has no effect when " + LAYOUT_STORE_ENABLED_CONFIG + " is false.";

    /** Replication factor of the layout topic when the assignor creates it. */
    public static final String LAYOUT_STORE_REPLICATION_FACTOR_CONFIG = "kscale.assignor.layout.store.replication.factor";
    public static final short LAYOUT_STORE_REPLICATION_FACTOR_DEFAULT = -1;
    private static final String LAYOUT_STORE_REPLICATION_FACTOR_DOC = "Replication factor of the layout topic "
            + "when the assignor creates it; -1 uses the broker's default.replication.factor.";

    /** Budget of the leader's layout store I/O: one load, or one save, closes included. */
    public static final String LAYOUT_STORE_TIMEOUT_MS_CONFIG = "kscale.assignor.layout.store.timeout.ms";
    /** 5 s: a healthy load or save takes well under a second, and a failing one never holds a rebalance longer. */
    public static final int LAYOUT_STORE_TIMEOUT_MS_DEFAULT = 5_000;
    /** The budget may be at most this fraction of the rebalance's own timeouts. */
    static final int LAYOUT_STORE_TIMEOUT_FRACTION = 3;
    private static final String LAYOUT_STORE_TIMEOUT_MS_DOC = "Longest time the group leader spends on the layout "
            + "store in one rebalance: reading the stored layout (only when no member knows the layout of a "
            + "subscribed topic) and closing what the read opened, together. Saves run on a thread of their own "
            + "after the rebalance, each within this budget too, and a failed save is retried at the next rebalance. "
            + "The read runs inside the rebalance, while the other members wait for the leader in SyncGroup, so the "
            + "budget must be at most a third of request.timeout.ms (their wait) and of max.poll.interval.ms (the "
            + "rebalance timeout): with the consumer's defaults, at most 10000. A larger value is rejected with a "
            + "ConfigException; the default is lowered to fit when those timeouts are shorter. On timeout the leader "
            + "counts layout-store-failures-total and follows kscale.assignor.layout.store.unreadable.policy.";

    /** What the group does with topics no member knows while the layout store cannot be read. */
    public static final String LAYOUT_STORE_UNREADABLE_POLICY_CONFIG = "kscale.assignor.layout.store.unreadable.policy";
    /**
     * Hold: a topic whose T cannot be known is not consumed until it can, so no key ever builds
     * state on a guessed T. Lag is recoverable, state split across consumers is not; and the store
     * lives on the cluster the group reads, so it is rarely unreadable for longer than the topics.
     */
    public static final String LAYOUT_STORE_UNREADABLE_POLICY_DEFAULT = "hold";
    private static final String LAYOUT_STORE_UNREADABLE_POLICY_DOC = "What the group leader does with a subscribed "
            + "topic whose task layout no member knows (after the whole group restarted, or for a new topic) while "
            + "the layout store cannot be read (a timeout within " + LAYOUT_STORE_TIMEOUT_MS_CONFIG + ", a missing "
            + "ACL, unreachable brokers, a stored value that is not a layout). 'hold': the topic is not assigned "
            + "until the store can be read, so no key runs on a guessed task count; its records wait. 'provisional': "
            + "the topic is assigned with T from its partition count, marked provisional in the members' userData "
            + "and never stored; once the store is read the stored T wins, and if it differs the topic's keys move "
            + "a second time (an affinity break, logged at ERROR with both counts). Either way the leader logs an "
            + "ERROR at each such rebalance, shows the topics in the metrics held-topics and provisional-topics, "
            + "asks for follow-up rebalances (10 s, doubling up to 5 min) to read the store again, and never stores "
            + "a layout it could not check against the store. Topics declared in " + TASK_COUNTS_CONFIG + " are "
            + "always assigned. Has no effect when " + LAYOUT_STORE_ENABLED_CONFIG + " is false. Read by the group "
            + "leader: set it alike on every member.";

    /** How long the layout keeps a topic that is gone. */
    public static final String LAYOUT_FORGET_AFTER_MS_CONFIG = "kscale.assignor.layout.forget.after.ms";
    /**
     * 24 hours. Long enough for what a group lives through while a topic's only subscribers are
     * away and the rest of it rebalances: a rolling restart or redeploy (minutes), a crash loop,
     * a subscription change rolled back the next morning; a topic that comes back within it keeps
     * its T, so its keys keep their consumer. Short enough that rotating topics cost little: the
     * layout holds the live topics plus those gone within the last day (1 for daily topics, 24 for
     * hourly ones, about 20 bytes each in every member's userData).
     */
    public static final long LAYOUT_FORGET_AFTER_MS_DEFAULT = 24 * 60 * 60 * 1000L;
    private static final String LAYOUT_FORGET_AFTER_MS_DOC = "How long the group keeps the task layout (T) of a "
            + "topic that no member subscribes to and that the group leader's metadata no longer has (a deleted "
            + "topic, or one dropped from every subscription: with explicit subscriptions the leader's metadata "
            + "covers only subscribed topics). The grace period starts when a leader first sees the topic gone; the "
            + "time travels with the layout, so a new leader goes on counting from it. After it the topic is "
            + "forgotten in the members' userData and in " + "kscale.assignor.layout.store.topic" + " (the group's "
            + "record is replaced, or deleted by a tombstone once no topic is left), which keeps userData bounded "
            + "however many topics rotate. A topic that comes back later starts afresh: T is its partition count "
            + "then, or its count in " + TASK_COUNTS_CONFIG + ", so declare T there for topics that may be away "
            + "longer and expanded meanwhile. 0 forgets a topic at the first rebalance that sees it gone. Read by "
            + "the group leader: set it alike on every member.";

    /** The member's task state hooks: an instance, or a class to instantiate. */
    public static final String TASK_STATE_LISTENER_CONFIG = "kscale.assignor.task.state.listener";
    private static final String TASK_STATE_LISTENER_DOC = "The member's io.kscale.assignor.TaskStateListener, "
            + "which makes it a stateful member: it reports how far its local state of each task is behind, and "
            + "hears which tasks to warm up and which state it may delete. Put an instance in the configuration map "
            + "given to the consumer, or name a class with a public no-argument constructor. Without one the member "
            + "is stateless: tasks move to it without a warmup. Topics that no member with a listener subscribes to "
            + "are assigned as without task state, and the next three settings have no effect on them.";

    /** Records a member may be behind on a task and still take it over. */
    public static final String ACCEPTABLE_RECOVERY_LAG_CONFIG = "kscale.assignor.acceptable.recovery.lag";
    public static final long ACCEPTABLE_RECOVERY_LAG_DEFAULT = 10_000L;
    private static final String ACCEPTABLE_RECOVERY_LAG_DOC = "Records a member's local state of a task may be "
            + "behind and still count as caught up. A task moves to a member with a " + TASK_STATE_LISTENER_CONFIG
            + " only once that member reports a lag at most this, unless no member is caught up; until then the "
            + "prior owner keeps the task and the new member warms up a copy. Kafka Streams' "
            + "acceptable.recovery.lag. Read by the group leader: set it alike on every member.";

    /** How many warmups may be in flight across the group. */
    public static final String MAX_WARMUPS_CONFIG = "kscale.assignor.max.warmups";
    public static final int MAX_WARMUPS_DEFAULT = 2;
    private static final String MAX_WARMUPS_DOC = "Most stateful tasks warming up at once across the group (see "
            + ACCEPTABLE_RECOVERY_LAG_CONFIG + "). More warmups finish a scale-out in fewer follow-up rebalances "
            + "and cost more restore traffic at once; moves beyond the budget wait for a later rebalance. Kafka "
            + "Streams' max.warmup.replicas. Read by the group leader: set it alike on every member.";

    /** The longest wait for a follow-up rebalance while warmups are in flight. */
    public static final String PROBING_INTERVAL_MS_CONFIG = "kscale.assignor.probing.interval.ms";
    public static final long PROBING_INTERVAL_MS_DEFAULT = 600_000L;
    private static final String PROBING_INTERVAL_MS_DOC = "Longest time until a follow-up rebalance while warmups "
            + "are in flight, so that caught-up warmups take their tasks over (the next rebalance for any other "
            + "reason does it sooner). The leader puts the deadline in the assignment of each member that warms "
            + "up a task; that member's poll loop rebalances once it has passed, through ExpansionBarrier.poll or "
            + "FollowUpRebalance.triggerIfDue. Kafka Streams' probing.rebalance.interval.ms, with its default and "
            + "minimum. Read by the group leader: set it alike on every member.";

    private static final String GROUP = "Key-preserving assignor";

    private static final ConfigDef CONFIG = new ConfigDef()
            .define(TASK_COUNTS_CONFIG, Type.LIST, TASK_COUNTS_DEFAULT, new TaskCountsValidator(),
                    Importance.MEDIUM, TASK_COUNTS_DOC, GROUP, 0, Width.LONG, "Task counts")
            .define(EXPANSION_POLICY_CONFIG, Type.STRING, EXPANSION_POLICY_DEFAULT,
                    ConfigDef.CaseInsensitiveValidString.in("keep", "rebase"),
                    Importance.MEDIUM, EXPANSION_POLICY_DOC, GROUP, 1, Width.SHORT, "Expansion policy")
            .define(CO_PARTITIONING_CONFIG, Type.STRING, CO_PARTITIONING_DEFAULT,
                    ConfigDef.CaseInsensitiveValidString.in("by-task-count", "none"),
                    Importance.MEDIUM, CO_PARTITIONING_DOC, GROUP, 2, Width.SHORT, "Co-partitioning")
            .define(LAYOUT_STORE_ENABLED_CONFIG, Type.BOOLEAN, LAYOUT_STORE_ENABLED_DEFAULT,
                    Importance.MEDIUM, LAYOUT_STORE_ENABLED_DOC, GROUP, 3, Width.SHORT, "Layout store enabled")
            .define(LAYOUT_STORE_TOPIC_CONFIG, Type.STRING, LAYOUT_STORE_TOPIC_DEFAULT, StoreSettingValidators.topicName(),
                    Importance.LOW, LAYOUT_STORE_TOPIC_DOC, GROUP, 4, Width.MEDIUM, "Layout store topic")
            .define(LAYOUT_STORE_REPLICATION_FACTOR_CONFIG, Type.SHORT, LAYOUT_STORE_REPLICATION_FACTOR_DEFAULT,
                    StoreSettingValidators.replicationFactor(),
                    Importance.LOW, LAYOUT_STORE_REPLICATION_FACTOR_DOC, GROUP, 5, Width.SHORT, "Layout store replication")
            .define(LAYOUT_STORE_TIMEOUT_MS_CONFIG, Type.INT, LAYOUT_STORE_TIMEOUT_MS_DEFAULT, Range.between(100, 300_000),
                    Importance.LOW, LAYOUT_STORE_TIMEOUT_MS_DOC, GROUP, 6, Width.SHORT, "Layout store timeout")
            .define(LAYOUT_STORE_UNREADABLE_POLICY_CONFIG, Type.STRING, LAYOUT_STORE_UNREADABLE_POLICY_DEFAULT,
                    ConfigDef.CaseInsensitiveValidString.in("hold", "provisional"),
                    Importance.MEDIUM, LAYOUT_STORE_UNREADABLE_POLICY_DOC, GROUP, 7, Width.SHORT,
                    "Layout store unreadable policy")
            .define(LAYOUT_FORGET_AFTER_MS_CONFIG, Type.LONG, LAYOUT_FORGET_AFTER_MS_DEFAULT, Range.atLeast(0L),
                    Importance.LOW, LAYOUT_FORGET_AFTER_MS_DOC, GROUP, 8, Width.SHORT, "Forget layouts after")
            .define(TASK_STATE_LISTENER_CONFIG, Type.CLASS, null, new ListenerClassValidator(),
                    Importance.MEDIUM, TASK_STATE_LISTENER_DOC, GROUP, 9, Width.LONG, "Task state listener")
            .define(ACCEPTABLE_RECOVERY_LAG_CONFIG, Type.LONG, ACCEPTABLE_RECOVERY_LAG_DEFAULT, Range.atLeast(0),
                    Importance.MEDIUM, ACCEPTABLE_RECOVERY_LAG_DOC, GROUP, 10, Width.SHORT, "Acceptable recovery lag")
            .define(MAX_WARMUPS_CONFIG, Type.INT, MAX_WARMUPS_DEFAULT, Range.atLeast(1),
                    Importance.LOW, MAX_WARMUPS_DOC, GROUP, 11, Width.SHORT, "Max warmups")
            .define(PROBING_INTERVAL_MS_CONFIG, Type.LONG, PROBING_INTERVAL_MS_DEFAULT,
                    Range.atLeast(60_000L),
                    Importance.LOW, PROBING_INTERVAL_MS_DOC, GROUP, 12, Width.SHORT, "Probing interval");

    private final Map<String, Integer> taskCounts;
    private final ExpansionPolicy expansionPolicy;
    private final CoPartitioning coPartitioning;
    private final boolean layoutStoreEnabled;
    private final String layoutStoreTopic;
    private final short layoutStoreReplicationFactor;
    private final Duration layoutStoreTimeout;
    private final UnreadableStorePolicy unreadableStorePolicy;
    private final long layoutForgetAfterMs;
    private final String groupId;
    private final String clientId;
    private final TaskStateListener taskStateListener;
    private final PlacementSettings placementSettings;
    private final LeaderSettings leaderSettings;

    /**
     * Parses and validates the settings.
     *
     * @param props the consumer's settings; unknown keys are ignored
     * @throws ConfigException naming the key, the value and what is allowed if a value is invalid,
     *         or naming {@code group.protocol} and the broker-side assignor if the consumer uses
     *         {@code group.protocol=consumer} (KIP-848), where this assignor cannot run
     */
    public KeyPreservingAssignorConfig(Map<String, ?> props) {
        requireClassicProtocol(props);
        // An instance is not a CLASS value: take it out before the ConfigDef parses the rest.
        Object listener = props.get(TASK_STATE_LISTENER_CONFIG);
        Map<String, Object> parsable = new HashMap<>(props);
        if (listener instanceof TaskStateListener) {
            parsable.remove(TASK_STATE_LISTENER_CONFIG);
        }
        Map<String, Object> parsed = CONFIG.parse(parsable);
        @SuppressWarnings("unchecked")
        List<String> pairs = (List<String>) parsed.get(TASK_COUNTS_CONFIG);
        this.taskCounts = Collections.unmodifiableMap(parseTaskCounts(pairs));
        this.expansionPolicy = ExpansionPolicy.valueOf(
                ((String) parsed.get(EXPANSION_POLICY_CONFIG)).toUpperCase(Locale.ROOT));
        this.coPartitioning = CoPartitioning.valueOf(
                ((String) parsed.get(CO_PARTITIONING_CONFIG)).toUpperCase(Locale.ROOT).replace('-', '_'));
        this.layoutStoreEnabled = (Boolean) parsed.get(LAYOUT_STORE_ENABLED_CONFIG);
        this.layoutStoreTopic = (String) parsed.get(LAYOUT_STORE_TOPIC_CONFIG);
        this.layoutStoreReplicationFactor = (Short) parsed.get(LAYOUT_STORE_REPLICATION_FACTOR_CONFIG);
        this.layoutStoreTimeout = Duration.ofMillis(storeBudget(props, (Integer) parsed.get(LAYOUT_STORE_TIMEOUT_MS_CONFIG)));
        this.unreadableStorePolicy = UnreadableStorePolicy.valueOf(
                ((String) parsed.get(LAYOUT_STORE_UNREADABLE_POLICY_CONFIG)).toUpperCase(Locale.ROOT));
        this.layoutForgetAfterMs = (Long) parsed.get(LAYOUT_FORGET_AFTER_MS_CONFIG);
        Object group = props.get(ConsumerConfig.GROUP_ID_CONFIG);
        this.groupId = group == null ? "" : group.toString();
        Object client = props.get(ConsumerConfig.CLIENT_ID_CONFIG);
        this.clientId = client == null ? "" : client.toString();
        this.taskStateListener = listener instanceof TaskStateListener ? (TaskStateListener) listener
                : instantiate((Class<?>) parsed.get(TASK_STATE_LISTENER_CONFIG), props);
        this.placementSettings = PlacementSettings.builder()
                .acceptableRecoveryLag((Long) parsed.get(ACCEPTABLE_RECOVERY_LAG_CONFIG))
                .maxWarmups((Integer) parsed.get(MAX_WARMUPS_CONFIG))
                .probingInterval(Duration.ofMillis((Long) parsed.get(PROBING_INTERVAL_MS_CONFIG)))
                .build();
        this.leaderSettings = new LeaderSettings(taskCounts, expansionPolicy, coPartitioning, layoutForgetAfterMs,
                placementSettings, unreadableStorePolicy);
    }

    /**
     * Fails on {@code group.protocol=consumer}. Kafka's own consumer refuses
     * {@code partition.assignment.strategy} on that protocol before it loads any assignor (4.x), or
     * ignores it (3.x), so this is seen by code that configures the assignor itself; the user of
     * a plain {@code KafkaConsumer} sees Kafka's message (docs/consumer-assignor.md says which).
     */
    private static void requireClassicProtocol(Map<String, ?> props) {
        if (ConsumerProtocol.isChosenIn(props)) {
            throw new ConfigException(ConsumerConfig.GROUP_PROTOCOL_CONFIG, props.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG),
                    KeyPreservingAssignor.class.getName() + " runs only with group.protocol=classic: with consumer "
                    + "(KIP-848) the brokers assign partitions and no client-side assignor runs. For key-preserving "
                    + "assignment there, " + ConsumerProtocol.SERVER_ASSIGNOR_SETUP + ", and remove "
                    + ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG + "; or set group.protocol=classic");
        }
    }

    /**
     * The store budget, checked against the consumer's timeouts: at most a third of
     * {@code request.timeout.ms} and of {@code max.poll.interval.ms}. A value the user set beyond
     * that is rejected; the default is lowered to fit.
     */
    private static int storeBudget(Map<String, ?> props, int budget) {
        int requestTimeout = consumerInt(props, ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        int pollInterval = consumerInt(props, ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 300_000);
        String limiting = requestTimeout <= pollInterval ? ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG + "=" + requestTimeout
                : ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG + "=" + pollInterval;
        int most = Math.min(requestTimeout, pollInterval) / LAYOUT_STORE_TIMEOUT_FRACTION;
        if (budget <= most) {
            return budget;
        }
        if (!props.containsKey(LAYOUT_STORE_TIMEOUT_MS_CONFIG)) {
            return Math.max(1, most);
        }
        throw new ConfigException(LAYOUT_STORE_TIMEOUT_MS_CONFIG, budget, "must be between 100 and " + most
                + ": at most a third of " + limiting + ", since the leader's store I/O runs inside the rebalance "
                + "(raise that timeout, or lower this budget)");
    }

    /** A consumer setting the assignor reads but does not define; the consumer has validated it already. */
    private static int consumerInt(Map<String, ?> props, String key, int defaultValue) {
        Object value = props.get(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return (Integer) ConfigDef.parseType(key, value, Type.INT);
        } catch (ConfigException e) {
            return defaultValue;
        }
    }

    private static TaskStateListener instantiate(Class<?> type, Map<String, ?> props) {
        if (type == null) {
            return null;
        }
        TaskStateListener listener;
        try {
            // The validator checked the type already.
            listener = type.asSubclass(TaskStateListener.class).getDeclaredConstructor().newInstance();
        } catch (InvocationTargetException e) {
            throw new ConfigException(TASK_STATE_LISTENER_CONFIG, type.getName(),
                    "its no-argument constructor threw " + e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new ConfigException(TASK_STATE_LISTENER_CONFIG, type.getName(),
                    "must be a concrete public class with a public no-argument constructor (" + e + ")");
        }
        if (listener instanceof Configurable) {
            ((Configurable) listener).configure(props);
        }
        return listener;
    }

    /** @return declared task count per topic, from {@value #TASK_COUNTS_CONFIG}; empty by default */
    public Map<String, Integer> taskCounts() {
        return taskCounts;
    }

    /** @return which topics share tasks, {@value #CO_PARTITIONING_CONFIG} */
    CoPartitioning coPartitioning() {
        return coPartitioning;
    }

    /** @return the policy of {@value #EXPANSION_POLICY_CONFIG} */
    ExpansionPolicy expansionPolicy() {
        return expansionPolicy;
    }

    /** @return the value of {@value #LAYOUT_STORE_ENABLED_CONFIG} */
    public boolean layoutStoreEnabled() {
        return layoutStoreEnabled;
    }

    /** @return the value of {@value #LAYOUT_STORE_TOPIC_CONFIG} */
    public String layoutStoreTopic() {
        return layoutStoreTopic;
    }

    /** @return the value of {@value #LAYOUT_STORE_REPLICATION_FACTOR_CONFIG} */
    public short layoutStoreReplicationFactor() {
        return layoutStoreReplicationFactor;
    }

    /** @return the value of {@value #LAYOUT_STORE_TIMEOUT_MS_CONFIG} */
    public Duration layoutStoreTimeout() {
        return layoutStoreTimeout;
    }

    /** @return the policy of {@value #LAYOUT_STORE_UNREADABLE_POLICY_CONFIG} */
    UnreadableStorePolicy unreadableStorePolicy() {
        return unreadableStorePolicy;
    }

    /** @return the value of {@value #LAYOUT_FORGET_AFTER_MS_CONFIG}, ms */
    public long layoutForgetAfterMs() {
        return layoutForgetAfterMs;
    }

    /** @return the consumer's {@code group.id}, or "" if it has none */
    public String groupId() {
        return groupId;
    }

    /** @return the consumer's {@code client.id} (Kafka passes a generated one if unset), or "" */
    public String clientId() {
        return clientId;
    }

    /** @return the listener of {@value #TASK_STATE_LISTENER_CONFIG}, if set: the member is stateful */
    public Optional<TaskStateListener> taskStateListener() {
        return Optional.ofNullable(taskStateListener);
    }

    /** @return {@value #ACCEPTABLE_RECOVERY_LAG_CONFIG} */
    public long acceptableRecoveryLag() {
        return placementSettings.acceptableRecoveryLag();
    }

    /** @return {@value #MAX_WARMUPS_CONFIG} */
    public int maxWarmups() {
        return placementSettings.maxWarmups();
    }

    /** @return {@value #PROBING_INTERVAL_MS_CONFIG} */
    public Duration probingInterval() {
        return placementSettings.probingInterval();
    }

    /** @return the placement engine's settings from the three settings above; no standbys */
    PlacementSettings placementSettings() {
        return placementSettings;
    }

    /** @return what the group leader reads of these settings */
    LeaderSettings leaderSettings() {
        return leaderSettings;
    }

    /**
     * The definition of this class's settings, for documentation ({@code toHtml()}, {@code toRst()}).
     *
     * @return a copy of the definition
     */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    /** Parses pairs the validator accepted. */
    private static Map<String, Integer> parseTaskCounts(List<String> pairs) {
        Map<String, Integer> counts = new TreeMap<>();
        for (String pair : pairs) {
            int colon = pair.lastIndexOf(':');
            counts.put(pair.substring(0, colon).trim(), Integer.parseInt(pair.substring(colon + 1).trim()));
        }
        return counts;
    }

    @Override
    public String toString() {
        return TASK_COUNTS_CONFIG + "=" + taskCounts + ", " + EXPANSION_POLICY_CONFIG + "=" + expansionPolicy
                + ", " + CO_PARTITIONING_CONFIG + "=" + coPartitioning
                + ", " + LAYOUT_STORE_ENABLED_CONFIG + "=" + layoutStoreEnabled + ", " + LAYOUT_STORE_TOPIC_CONFIG
                + "=" + layoutStoreTopic + ", " + LAYOUT_STORE_TIMEOUT_MS_CONFIG + "=" + layoutStoreTimeout.toMillis()
                + ", " + LAYOUT_STORE_UNREADABLE_POLICY_CONFIG + "=" + unreadableStorePolicy.name().toLowerCase(Locale.ROOT)
                + ", " + LAYOUT_FORGET_AFTER_MS_CONFIG + "=" + layoutForgetAfterMs
                + ", " + TASK_STATE_LISTENER_CONFIG + "=" + (taskStateListener == null ? "none"
                : taskStateListener.getClass().getName()) + ", " + ACCEPTABLE_RECOVERY_LAG_CONFIG + "="
                + acceptableRecoveryLag() + ", " + MAX_WARMUPS_CONFIG + "=" + maxWarmups() + ", "
                + PROBING_INTERVAL_MS_CONFIG + "=" + probingInterval().toMillis();
    }

    /** Each entry {@code topic:count}, a legal topic name, a count in 1..{@link TopicLayout#MAX_COUNT}, no topic twice. */
    private static final class TaskCountsValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> pairs = (List<String>) value;
            Map<String, String> seen = new TreeMap<>();
            for (String pair : pairs) {
                int colon = pair.lastIndexOf(':');
                String topic = colon < 0 ? "" : pair.substring(0, colon).trim();
                String count = colon < 0 ? "" : pair.substring(colon + 1).trim();
                if (!TopicLayout.isLegalName(topic)) {
                    throw new ConfigException(name, value, "entry '" + pair + "' must be topic:count with a legal topic name");
                }
                long parsed;
                try {
                    parsed = Long.parseLong(count);
                } catch (NumberFormatException e) {
                    parsed = -1;
                }
                if (parsed < 1 || parsed > TopicLayout.MAX_COUNT) {
                    throw new ConfigException(name, value, "entry '" + pair + "' must have a count between 1 and "
                            + TopicLayout.MAX_COUNT);
                }
                if (seen.put(topic, count) != null) {
                    throw new ConfigException(name, value, "topic '" + topic + "' appears twice");
                }
            }
        }

        @Override
        public String toString() {
            return "comma-separated topic:count pairs, count between 1 and " + TopicLayout.MAX_COUNT;
        }
    }

    /** Null, or a class implementing {@link TaskStateListener}. */
    private static final class ListenerClassValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value != null && !TaskStateListener.class.isAssignableFrom((Class<?>) value)) {
                throw new ConfigException(name, ((Class<?>) value).getName(), "must implement "
                        + TaskStateListener.class.getName() + " (or be an instance of it)");
            }
        }

        @Override
        public String toString() {
            return "an instance or class implementing io.kscale.assignor.TaskStateListener";
        }
    }
}
