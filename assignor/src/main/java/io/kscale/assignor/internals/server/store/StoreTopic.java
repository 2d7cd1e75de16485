package io.kscale.assignor.internals.server.store;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task count topic: one partition, an append-only log that is neither compacted nor expired
 * ({@code cleanup.policy=delete}, {@code retention.ms=-1}, {@code retention.bytes=-1}).
 *
 * <p>Why not compacted, as the classic layout topic is: compaction keeps the <em>newest</em>
 * record of a key, and the store's rule is that the <em>first</em> record of a topic id is its T
 * (see {@link KnownTaskCounts}). After two brokers raced on a new topic, compaction would in time
 * drop the winner and keep the loser, and a broker loading the topic afterwards would take another
 * T than the running ones. Compaction would remove nothing else: a T is never rewritten and no
 * record is ever deleted. The log grows by one record (about 100 bytes with its batch) per topic id
 * the assignor ever placed: 10,000 topics are about a megabyte.
 *
 * <p>The topic is created on first use if missing (never again once read: see
 * {@link KafkaTaskCountStore} on a deleted topic). An existing topic whose settings would lose or
 * reorder records gets one WARN with the command that fixes it.
 */
final class StoreTopic {

    private static final Logger log = LoggerFactory.getLogger(KafkaTaskCountStore.class);

    static final Map<String, String> CONFIGS = Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
            TopicConfig.RETENTION_MS_CONFIG, "-1",
            TopicConfig.RETENTION_BYTES_CONFIG, "-1");

    private final String topic;
    private final short replicationFactor;
    private boolean checked;

    StoreTopic(String topic, short replicationFactor) {
        this.topic = topic;
        this.replicationFactor = replicationFactor;
    }

    /**
     * Creates the topic unless it exists, and checks an existing one's settings (once).
     *
     * @throws ExecutionException what the brokers answered, other than "exists"
     * @throws java.util.concurrent.TimeoutException if they did not answer within {@code timeout}
     */
    void ensure(Admin admin, Duration timeout)
            throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
        Optional<Short> replicas = replicationFactor == -1 ? Optional.empty() : Optional.of(replicationFactor);
        NewTopic newTopic = new NewTopic(topic, Optional.of(1), replicas).configs(CONFIGS);
        try {
            admin.createTopics(List.of(newTopic), new CreateTopicsOptions().timeoutMs((int) timeout.toMillis()))
                    .all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            log.info("Created topic {} for the task counts of the broker-side key-preserving assignor", topic);
            checked = true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicAuthorizationException
                    || e.getCause() instanceof ClusterAuthorizationException) {
                // An operator may have created the topic for a principal that may not: reading it tells.
                log.debug("May not create task count topic {} ({}); reading it in case it exists", topic,
                        e.getCause().toString());
                return;
            }
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
            check(admin, timeout);
        }
    }

    /**
     * @return the topic's id; empty if the topic does not exist (or the brokers know no topic ids)
     * @throws ExecutionException what the brokers answered, other than "unknown topic"
     * @throws java.util.concurrent.TimeoutException if they did not answer within {@code timeout}
     */
    Optional<Uuid> id(Admin admin, Duration timeout)
            throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
        try {
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(topic);
            Uuid id = description == null ? null : description.topicId();
            return id == null || id.equals(Uuid.ZERO_UUID) ? Optional.empty() : Optional.of(id);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Checks the settings again: the topic was re-created, maybe with others. */
    void recheck(Admin admin, Duration timeout) throws InterruptedException {
        checked = false;
        check(admin, timeout);
    }

    private void check(Admin admin, Duration timeout) throws InterruptedException {
        if (checked) {
            return;
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try {
            Config config = admin.describeConfigs(List.of(resource)).all()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(resource);
            checked = true;
            String problem = problem(value(config, TopicConfig.CLEANUP_POLICY_CONFIG),
                    value(config, TopicConfig.RETENTION_MS_CONFIG), value(config, TopicConfig.RETENTION_BYTES_CONFIG));
            if (problem != null) {
                log.warn(warning(topic, problem));
            }
        } catch (ExecutionException | java.util.concurrent.TimeoutException | RuntimeException e) {
            checked = true; // no DescribeConfigs ACL, say: the store works without the check
            log.debug("Could not read the settings of task count topic {}: {}", topic, e.toString());
        }
    }

    private static String value(Config config, String name) {
        ConfigEntry entry = config == null ? null : config.get(name);
        return entry == null ? null : entry.value();
    }

    /** @return what is wrong with these settings of the topic, or null if nothing is */
    static String problem(String cleanupPolicy, String retentionMs, String retentionBytes) {
        if (cleanupPolicy != null && cleanupPolicy.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
            return "cleanup.policy=" + cleanupPolicy + ": compaction keeps a topic id's newest record, and the store "
                    + "keeps its first (after a race between brokers, compaction would keep the losing T)";
        }
        if (!"-1".equals(retentionMs) || !"-1".equals(retentionBytes)) {
            return "retention.ms=" + retentionMs + ", retention.bytes=" + retentionBytes + ": the brokers delete "
                    + "the task counts once they are older or the topic larger, and a topic whose record is gone "
                    + "takes its partition count as T again (keys of expanded topics move)";
        }
        return null;
    }

    static String warning(String topic, String problem) {
        return "Task count topic " + topic + " has " + problem + ". Fix it with: kafka-configs.sh --bootstrap-server "
                + "<brokers> --alter --entity-type topics --entity-name " + topic
                + " --add-config cleanup.policy=delete,retention.ms=-1,retention.bytes=-1";
    }
}
