package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kscale.it.support.RealKafkaCluster;
import io.kscale.it.support.Topics;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.ServerAssignorPlugin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnsupportedAssignorException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runbook "Roll the broker-side assignor onto a cluster and off again" (docs/runbooks.md) on
 * three real brokers, on and off, with a group of three members on {@code group.protocol=consumer}
 * reading through both rolls.
 *
 * <p>Every broker has kscale's assignor jar on its classpath from the start, but lists only
 * {@code uniform,range}: the jar by itself changes nothing, since a broker instantiates only the
 * assignors {@code group.consumer.assignors} names, so the runbook's copy of the jar is already done
 * and each rolling restart changes the setting alone ({@link KafkaCluster#restart(int, Map)}, which
 * the process backend has: a container's settings are fixed when it is created).
 *
 * <p>On: a consumer that names {@code kscale-key-preserving} is refused; each broker in turn
 * restarts with the class listed last, and before the next one the cluster has no under-replicated
 * partition and the restarted broker's log says its task count store started and then loaded; then
 * the members move to {@code group.remote.assignor=kscale-key-preserving} one at a time, after
 * which the group runs kscale's assignor, and when its topic grows from 4 to 8 partitions,
 * partitions p and p + 4 (one task) land on one member. Three members share eight partitions, so
 * an assignor that spreads partitions evenly (3, 3, 2) would split a task.
 *
 * <p>Off: the members move to {@code uniform}, and no group runs kscale's assignor any more; each
 * broker restarts with {@code uniform,range} again, with no under-replicated partition before the
 * next and no task count store starting; afterwards kscale's assignor is refused again, the group
 * still has every partition, and the {@code kscale-task-counts} topic is still there.
 */
@RealKafkaCluster(brokers = 3, serverAssignors = true, processSuiteOnly = "restarting a broker with other settings "
        + "needs the process backend: a container's settings are fixed when it is created", brokerProperties = {
        "group.consumer.assignors=" + ServerAssignorPlugin.KAFKA_ASSIGNORS,
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.heartbeat.interval.ms=500"})
class ServerAssignorRollIT {

    private static final Logger log = LoggerFactory.getLogger(ServerAssignorRollIT.class);

    private static final String TOPIC = "roll";
    private static final String GROUP = "roll-group";
    private static final int PARTITIONS = 4;
    private static final int MEMBERS = 3;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final CloseOptions CLOSE = CloseOptions.timeout(Duration.ofSeconds(30));

    /** The runbook's setting, on: Kafka's assignors in their order, kscale's last. */
    private static final String ASSIGNORS_ON = ServerAssignorPlugin.KAFKA_ASSIGNORS + ","
            + ServerAssignorPlugin.SERVER_ASSIGNOR_CLASS;
    private static final String STORE_STARTED = ServerAssignorPlugin.SERVER_ASSIGNOR_NAME
            + " started its task count store";
    private static final String STORE_TOPIC = "kscale-task-counts";
    private static final String STORE_LOADED = ServerAssignorPlugin.STORE_LOADED_LINE + " " + STORE_TOPIC;

    @Test
    void shouldRollTheBrokerSideAssignorOnAndOffAgain(KafkaCluster cluster) throws Exception {
        assumeTrue(ServerAssignorPlugin.isAvailable() && ServerAssignorPlugin.brokersServeIt(),
                "the broker-side assignor needs Kafka 4.0 brokers and this build's assignor module");
        Topics.create(cluster, Topics.topic(TOPIC, PARTITIONS, 3, Map.of()));

        try (Admin admin = Admin.create(cluster.clientProperties()); Group group = new Group(cluster)) {
            for (int member = 0; member < MEMBERS; member++) {
                group.start(member, null);
            }
            group.awaitAssigned(admin, PARTITIONS, "uniform");
            assertRefused(cluster, "before the brokers list it");

            // On, 3: the brokers one at a time, each with the class listed.
            for (int broker : cluster.brokerIds()) {
                int logBefore = cluster.brokerLogText(broker).length();
                cluster.restart(broker, Map.of(ServerAssignorPlugin.ASSIGNORS_CONFIG, ASSIGNORS_ON));
                awaitNoUnderReplicatedPartitions(admin, group, "after broker " + broker + " restarted with the assignor");
                group.awaitUntil(() -> storeStartedThenLoaded(cluster.brokerLogText(broker).substring(logBefore)),
                        () -> "broker " + broker + "'s log to say '" + STORE_STARTED + "' and then '" + STORE_LOADED
                                + "'; it ends with:\n" + tail(cluster.brokerLogText(broker)));
            }

            // On, 4: the members one at a time.
            for (int member = 0; member < MEMBERS; member++) {
                group.restart(member, ServerAssignorPlugin.SERVER_ASSIGNOR_NAME);
                group.awaitAssigned(admin, PARTITIONS, null);
            }
            group.awaitAssigned(admin, PARTITIONS, ServerAssignorPlugin.SERVER_ASSIGNOR_NAME);
            group.awaitUntil(() -> cluster.brokerLogText().contains("gets task count T = " + PARTITIONS),
                    () -> "a broker to log the task count of topic " + TOPIC);

            admin.createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(2 * PARTITIONS))).all()
                    .get(30, TimeUnit.SECONDS);
            group.awaitAssigned(admin, 2 * PARTITIONS, ServerAssignorPlugin.SERVER_ASSIGNOR_NAME);
            Map<Integer, Set<Integer>> membersByTask = group.membersByTask(PARTITIONS);
            log.info("After the growth to {} partitions, members by task (p % {}): {}", 2 * PARTITIONS, PARTITIONS,
                    membersByTask);
            assertThat(membersByTask).as("each task's members (partitions p and p + %d of one task)", PARTITIONS)
                    .hasSize(PARTITIONS).allSatisfy((task, members) -> assertThat(members).hasSize(1));

            // Off, 1: the members first.
            for (int member = 0; member < MEMBERS; member++) {
                group.restart(member, "uniform");
                group.awaitAssigned(admin, 2 * PARTITIONS, null);
            }
            group.awaitAssigned(admin, 2 * PARTITIONS, "uniform");
            assertThat(consumerGroupAssignors(admin)).as("the assignor of every consumer group")
                    .doesNotContainValue(ServerAssignorPlugin.SERVER_ASSIGNOR_NAME);

            // Off, 2: then the brokers, without the class.
            for (int broker : cluster.brokerIds()) {
                int logBefore = cluster.brokerLogText(broker).length();
                cluster.restart(broker, Map.of(ServerAssignorPlugin.ASSIGNORS_CONFIG, ServerAssignorPlugin.KAFKA_ASSIGNORS));
                awaitNoUnderReplicatedPartitions(admin, group, "after broker " + broker + " restarted without the assignor");
                assertThat(cluster.brokerLogText(broker).substring(logBefore)).as("broker %d's log since its restart", broker)
                        .doesNotContain(STORE_STARTED);
            }
            group.awaitAssigned(admin, 2 * PARTITIONS, "uniform");
            assertRefused(cluster, "after the brokers dropped it");

            // Off, 3: the store's topic stays.
            assertThat(admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get(30, TimeUnit.SECONDS))
                    .as("topics after the roll off").contains(STORE_TOPIC);
        }
    }

    /** The runbook's check of a restarted broker: the store started, then loaded its topic. */
    private static boolean storeStartedThenLoaded(String logSinceRestart) {
        int started = logSinceRestart.indexOf(STORE_STARTED);
        return started >= 0 && logSinceRestart.indexOf(STORE_LOADED, started) > 0;
    }

    /**
     * A consumer that names kscale's assignor, in a group of its own, while no coordinator lists
     * it: the first heartbeat's error comes out of poll.
     */
    private static void assertRefused(KafkaCluster cluster, String when) {
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(cluster, "refused", "refused",
                ServerAssignorPlugin.SERVER_ASSIGNOR_NAME));
        try {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (true) {
                try {
                    consumer.poll(Duration.ofMillis(200));
                } catch (UnsupportedAssignorException e) {
                    assertThat(e).as("the refusal %s", when)
                            .hasMessageContaining("ServerAssignor " + ServerAssignorPlugin.SERVER_ASSIGNOR_NAME
                                    + " is not supported");
                    return;
                }
                assertThat(System.nanoTime()).as("time: a consumer naming %s %s was not refused within %s",
                        ServerAssignorPlugin.SERVER_ASSIGNOR_NAME, when, TIMEOUT).isLessThan(deadline);
            }
        } finally {
            // A refused member never joined, so it has no group to leave: its close would only
            // wait out the timeout trying.
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(1)));
        }
    }

    /**
     * What {@code kafka-topics.sh --describe --under-replicated-partitions} lists (internal topics
     * included) is empty; the members poll meanwhile.
     */
    private static void awaitNoUnderReplicatedPartitions(Admin admin, Group group, String when) {
        List<String> underReplicated = new ArrayList<>();
        group.awaitUntil(() -> {
            underReplicated.clear();
            underReplicated.addAll(underReplicatedPartitions(admin));
            return underReplicated.isEmpty();
        }, () -> "no under-replicated partitions " + when + "; still " + underReplicated);
    }

    private static List<String> underReplicatedPartitions(Admin admin) {
        try {
            Set<String> topics = admin.listTopics(new ListTopicsOptions().listInternal(true)).names()
                    .get(10, TimeUnit.SECONDS);
            Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames()
                    .get(10, TimeUnit.SECONDS);
            return described.values().stream()
                    .flatMap(topic -> topic.partitions().stream()
                            .filter(p -> p.isr().size() < p.replicas().size())
                            .map(p -> topic.name() + "-" + p.partition()))
                    .sorted().collect(Collectors.toList());
        } catch (Exception e) {
            return List.of("(cannot tell: " + e + ")");
        }
    }

    /** The assignor of every group on the consumer protocol, as {@code --describe --all-groups --state} shows it. */
    private static Map<String, String> consumerGroupAssignors(Admin admin) throws Exception {
        List<String> groups = admin.listGroups().all().get(30, TimeUnit.SECONDS).stream()
                .filter(g -> g.type().orElse(null) == GroupType.CONSUMER)
                .map(GroupListing::groupId).collect(Collectors.toList());
        Map<String, String> assignors = new TreeMap<>();
        admin.describeConsumerGroups(groups).all().get(30, TimeUnit.SECONDS)
                .forEach((id, description) -> assignors.put(id, description.partitionAssignor()));
        return assignors;
    }

    private static Map<String, Object> consumerProperties(KafkaCluster cluster, String clientId, String groupId,
                                                          String remoteAssignor) {
        Map<String, Object> props = new HashMap<>(cluster.clientProperties());
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, GroupProtocol.CONSUMER.name().toLowerCase());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        if (remoteAssignor != null) {
            props.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, remoteAssignor);
        }
        return props;
    }

    private static String tail(String text) {
        return text.substring(Math.max(0, text.length() - 3000));
    }

    /**
     * The group's members, polled in turn by the test's thread while it waits for anything (a
     * member learns its assignment and completes a revocation in poll).
     */
    private static final class Group implements AutoCloseable {
        private final KafkaCluster cluster;
        private final List<KafkaConsumer<byte[], byte[]>> members = new ArrayList<>();

        Group(KafkaCluster cluster) {
            this.cluster = cluster;
        }

        void start(int member, String remoteAssignor) {
            KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(cluster,
                    "roll-member-" + member, GROUP, remoteAssignor));
            consumer.subscribe(List.of(TOPIC));
            if (member < members.size()) {
                members.set(member, consumer);
            } else {
                members.add(consumer);
            }
        }

        /** One step of the members' rolling restart: the member leaves and comes back with another assignor. */
        void restart(int member, String remoteAssignor) {
            members.get(member).close(CLOSE);
            start(member, remoteAssignor);
            log.info("Member {} restarted with group.remote.assignor={}", member, remoteAssignor);
        }

        /** Waits for {@code condition}, polling the members before each look; fails saying {@code what}. */
        void awaitUntil(Callable<Boolean> condition, Supplier<String> what) {
            try {
                await().pollInSameThread().pollInterval(Duration.ZERO).atMost(TIMEOUT).until(() -> {
                    poll();
                    return condition.call();
                });
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("Timed out after " + TIMEOUT + " waiting for " + what.get(), e);
            }
        }

        /**
         * Waits until the members own the topic's {@code partitions} (each once, none missing) and
         * the group, as the Admin describes it, is stable with this many members and runs
         * {@code assignor} (any, when null).
         */
        void awaitAssigned(Admin admin, int partitions, String assignor) {
            String[] seen = {""};
            awaitUntil(() -> {
                ConsumerGroupDescription description;
                try {
                    description = admin.describeConsumerGroups(List.of(GROUP)).all().get(10, TimeUnit.SECONDS)
                            .get(GROUP);
                } catch (ExecutionException e) {
                    seen[0] = "describing the group failed: " + e.getCause(); // not there yet, or its coordinator moving
                    return false;
                }
                List<Integer> owned = members.stream().flatMap(m -> m.assignment().stream())
                        .map(TopicPartition::partition).sorted().collect(Collectors.toList());
                seen[0] = "group " + description.groupState() + ", " + description.members().size()
                        + " members, assignor " + description.partitionAssignor() + ", members own " + owned;
                return description.groupState() == GroupState.STABLE && description.members().size() == MEMBERS
                        && owned.size() == partitions
                        && new HashSet<>(owned).size() == partitions
                        && (assignor == null || assignor.equals(description.partitionAssignor()));
            }, () -> "a stable group of " + MEMBERS + " members to own " + partitions + " partitions"
                    + (assignor == null ? "" : " under assignor " + assignor) + "; last seen: " + seen[0]);
            log.info("Group settled: {}", seen[0]);
        }

        /** For each task {@code p % taskCount}, the members that own a partition of it. */
        Map<Integer, Set<Integer>> membersByTask(int taskCount) {
            Map<Integer, Set<Integer>> byTask = new TreeMap<>();
            for (int member = 0; member < members.size(); member++) {
                for (TopicPartition partition : members.get(member).assignment()) {
                    byTask.computeIfAbsent(partition.partition() % taskCount, t -> new HashSet<>()).add(member);
                }
            }
            return byTask;
        }

        private void poll() {
            for (KafkaConsumer<byte[], byte[]> member : members) {
                member.poll(Duration.ofMillis(20));
            }
        }

        @Override
        public void close() {
            RuntimeException failure = null;
            for (KafkaConsumer<byte[], byte[]> member : members) {
                try {
                    member.close(CLOSE);
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
        }
    }
}
