package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.KeyPreservingAssignorConfig;
import io.kscale.it.support.RealKafkaCluster;
import io.kscale.it.support.Topics;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.expansion.ExpansionPeer;
import io.kscale.lab.expansion.ExpansionRun;
import io.kscale.lab.expansion.ExpansionScenario;
import io.kscale.lab.expansion.ExpansionSettings;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SEP-5's problem on real brokers: 3 brokers, 3 consumers counting records per key in local
 * state, a producer writing 200 keys while the topic grows 4 -> 8 -> 16 partitions; then a member
 * joins and one leaves; afterwards a new group reads the whole topic. With KeyPreservingAssignor
 * and its ExpansionBarrier no key is split, every count is right, and both groups see every key's
 * records in order. The same assignor with a plain poll, CooperativeStickyAssignor and
 * RangeAssignor run in the same test on the same cluster. For every assignor: each partition owned
 * exactly once whenever the group settles, and no record lost.
 *
 * <p>The control: CooperativeStickyAssignor and RangeAssignor must split keys in the same run,
 * or the scenario tests nothing (a producer that wrote nothing before the expansion, a topic
 * that did not grow, members that never counted). Both must split at least {@value #CONTROL_MIN_SPLIT}
 * of the 200 keys. Why that holds on every run: at 4 partitions the 3 members own 2, 1 and 1
 * partitions; at 8 both peers give each member at most 3, so at least one of the two child
 * partitions of the member with two parents goes to another member, and with it every key that
 * moved there. The smallest of the 4 child partitions (7) holds 13 of these 200 keys (murmur2, as
 * the producer partitions), and each key has about 20 records counted before the expansion, so at
 * least 13 keys are counted by two members. Measured: 93, 136 and 93 (CooperativeStickyAssignor),
 * 170, 177 and 170 (RangeAssignor) of 200.
 *
 * <p>The control of the order claim: catching up without the barrier must deliver some key out of
 * order, or the barrier's zero would test nothing. Three runs catch up without it: kscale's
 * assignor with a plain poll, and the two peers. The first reads each task's parent and child
 * partitions from offset 0 at once; a partition's records come in one fetch and are drained before
 * the next partition's, so a task is in order only when its parents are drained before each of their
 * children. That is not chance alone: measured 43, 91 and 78 keys of 200 out of order on broker
 * processes, but once 0 on Docker, where every parent was drained first. The peers split keys (see
 * above), and a split key's parent and child are read by two members at once: 63 to 108 keys out
 * of order. So the control asks for keys out of order in the three together.
 *
 * <p>The same cluster runs the runbook "Switch a running group to KeyPreservingAssignor"
 * (docs/runbooks.md) as written: a group of 3 members on CooperativeStickyAssignor, reading a topic
 * already grown from 4 to 8 partitions, moves to kscale's assignor in Kafka's two rolling bounces,
 * with each step's check.
 */
@RealKafkaCluster(brokers = 3)
class KeyPreservingExpansionIT {

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingExpansionIT.class);

    /** Keys the peers must split at least (see the class comment: 13 by construction). */
    private static final int CONTROL_MIN_SPLIT = 10;

    /** The switched group's members, each restarted in turn by both bounces. */
    private static final int MEMBERS = 3;
    /** The switched topic's partition count when its keys were first written, and after it grew. */
    private static final int TASKS = 4;
    private static final int PARTITIONS = 8;
    private static final int SWITCH_KEYS = 100;
    /** Records written while a bounced member is down, so each rebalance has records in flight. */
    private static final int RECORDS_PER_BOUNCE = 100;
    private static final String COOPERATIVE_STICKY = "cooperative-sticky";

    @Test
    void shouldKeepEveryKeyOnOneMemberWhileTheTopicGrowsFourToEightToSixteen(KafkaCluster cluster) {
        List<ExpansionRun> runs = new ExpansionScenario(ExpansionSettings.defaults()).runOn(cluster.clientProperties());
        log.info("Expansion 4 -> 8 -> 16 with 3 members, then one joins and one leaves:\n{}",
                runs.stream().map(ExpansionRun::toString).collect(Collectors.joining("\n")));

        ExpansionRun kscale = runs.stream().filter(run -> run.peer() == ExpansionPeer.KSCALE).findFirst().orElseThrow();
        assertThat(runs).hasSize(ExpansionSettings.defaults().peers().size());
        assertThat(kscale.keys().keys()).isEqualTo(200);
        assertThat(kscale.keys().splitKeys()).as("keys counted by more than one member").isZero();
        assertThat(kscale.keys().wrongCounts()).as("keys whose final count is wrong").isZero();
        assertThat(kscale.tailingOrder().keysOutOfOrder()).as("keys out of order, tailing with the barrier").isZero();
        assertThat(kscale.catchUpOrder().keysOutOfOrder()).as("keys out of order, catching up with the barrier").isZero();
        assertThat(kscale.transientSplits()).as("moments when a task's partitions were on two members").isEmpty();
        assertThat(runs).allSatisfy(run -> {
            assertThat(run.missing()).as("%s: records lost", run.peer().label()).isZero();
            assertThat(run.received()).as("%s: records received", run.peer().label()).isEqualTo(run.sent());
            assertThat(run.ownershipProblems()).as("%s: partitions owned twice", run.peer().label()).isEmpty();
        });
        assertThat(runs).filteredOn(run -> run.peer() == ExpansionPeer.COOPERATIVE_STICKY || run.peer() == ExpansionPeer.RANGE)
                .as("control runs").hasSize(2)
                .allSatisfy(run -> {
                    assertThat(run.keys().splitKeys()).as("control: %s splits keys", run.peer().label())
                            .isGreaterThanOrEqualTo(CONTROL_MIN_SPLIT);
                    assertThat(run.keys().wrongCounts()).as("control: %s gets counts wrong", run.peer().label())
                            .isGreaterThanOrEqualTo(CONTROL_MIN_SPLIT);
                });
        assertThat(runs.stream().filter(run -> run.peer() != ExpansionPeer.KSCALE)
                .mapToLong(run -> run.catchUpOrder().keysOutOfOrder()).sum())
                .as("control: keys out of order, catching up without the barrier (a plain poll, and both peers)")
                .isPositive();
    }

    /**
     * The runbook's steps in order, each followed by its check. The old assignor's name stays the
     * group's until the last member lists kscale's: the coordinator picks among the assignors
     * every member lists. Records are written before the expansion, after it, and while each
     * bounced member is down; the group must read every one of them.
     */
    @Test
    void shouldSwitchARunningGroupToKeyPreservingAssignorInTwoRollingBounces(KafkaCluster cluster) throws Exception {
        String topic = "switch-orders";
        String group = "switch-group";
        Topics.create(cluster, Topics.topic(topic, TASKS, 3, Map.of()));
        Set<String> consumed = ConcurrentHashMap.newKeySet();
        Random keys = new Random(42);
        int produced = 0;
        List<Member> members = new ArrayList<>();
        try (Admin admin = Admin.create(cluster.clientProperties());
             KafkaProducer<String, String> producer = producer(cluster)) {
            // Step 1's case: keys first written at 4 partitions, then the topic grew to 8.
            produced += produce(producer, topic, keys, 2 * RECORDS_PER_BOUNCE);
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(PARTITIONS))).all().get(30, TimeUnit.SECONDS);
            // so that the next records go to the new partitions too
            await().atMost(Duration.ofSeconds(30)).until(() -> producer.partitionsFor(topic).size() == PARTITIONS);
            produced += produce(producer, topic, keys, 2 * RECORDS_PER_BOUNCE);

            List<Class<?>> oldAssignor = List.of(CooperativeStickyAssignor.class);
            for (int i = 0; i < MEMBERS; i++) {
                members.add(new Member(cluster, group, "switch-member-" + i, topic, oldAssignor, consumed));
            }
            ConsumerGroupDescription running = awaitSettled(admin, group);
            assertThat(running.type()).as("the group's protocol").isEqualTo(GroupType.CLASSIC);
            assertThat(running.partitionAssignor()).as("the running group's strategy").isEqualTo(COOPERATIVE_STICKY);
            logStep("before the bounces", running);

            // Step 2: kscale's assignor first, the old one second, on each member in turn.
            List<Class<?>> both = List.of(KeyPreservingAssignor.class, CooperativeStickyAssignor.class);
            for (int i = 0; i < MEMBERS; i++) {
                produced += restart(members, i, both, producer, keys);
                String expected = i < MEMBERS - 1 ? COOPERATIVE_STICKY : KeyPreservingAssignor.NAME;
                ConsumerGroupDescription settled = awaitSettled(admin, group);
                logStep("first bounce, " + members.get(i).clientId + " restarted", settled);
                assertThat(settled.partitionAssignor()).as("the strategy after first-bounce restart %d", i + 1)
                        .isEqualTo(expected);
            }

            // Step 3: the leader is the one member whose kscale assignor has computed assignments.
            List<String> leaders = members.stream().map(member -> member.clientId)
                    .filter(clientId -> assignorMetric(clientId, "assignments-total") > 0)
                    .collect(Collectors.toList());
            assertThat(leaders).as("members whose assignments-total grew").hasSize(1);
            String leader = leaders.get(0);
            // The layout is stored by a writer thread after the assignment: await its first success.
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> assignorMetric(leader, "layout-store-last-success-age-ms") >= 0);
            assertThat(assignorMetric(leader, "layout-epoch")).as("layout-epoch").isPositive();
            assertThat(assignorMetric(leader, "held-topics")).as("held-topics").isZero();
            assertThat(assignorMetric(leader, "provisional-topics")).as("provisional-topics").isZero();
            assertThat(assignorMetric(leader, "layout-store-failures-total")).as("layout-store-failures-total")
                    .isZero();
            log.info("Switch, layout: leader {} at layout epoch {}, stored {} ms ago", leader,
                    (long) assignorMetric(leader, "layout-epoch"),
                    (long) assignorMetric(leader, "layout-store-last-success-age-ms"));

            // Step 4: kscale's assignor alone, on each member in turn.
            for (int i = 0; i < MEMBERS; i++) {
                produced += restart(members, i, List.of(KeyPreservingAssignor.class), producer, keys);
                ConsumerGroupDescription settled = awaitSettled(admin, group);
                logStep("second bounce, " + members.get(i).clientId + " restarted", settled);
                assertThat(settled.partitionAssignor()).as("the strategy after second-bounce restart %d", i + 1)
                        .isEqualTo(KeyPreservingAssignor.NAME);
            }

            // Each task whole: partition p and p + 4 (its child since the expansion) on one member.
            Map<Integer, String> owners = owners(awaitSettled(admin, group), topic);
            for (int p = 0; p < TASKS; p++) {
                assertThat(owners.get(p + TASKS)).as("owner of partition %d (task %d)", p + TASKS, p)
                        .isEqualTo(owners.get(p));
            }
            int written = produced;
            await().atMost(Duration.ofSeconds(30)).until(() -> consumed.size() >= written);
            log.info("Switch done: partitions owned by {}; {} records written, {} distinct consumed", owners, written,
                    consumed.size());
            assertThat(members).allSatisfy(member -> assertThat(member.failure).as(member.clientId).isNull());
        } finally {
            members.forEach(Member::close);
        }
    }

    /**
     * Closes member {@code index}, writes records while it is down, and starts it again under the
     * same client id (as a restarted process would) with {@code assignors}; returns the records written.
     */
    private static int restart(List<Member> members, int index, List<Class<?>> assignors,
                               KafkaProducer<String, String> producer, Random keys) throws Exception {
        Member old = members.get(index);
        old.close();
        assertThat(old.failure).as(old.clientId).isNull();
        int written = produce(producer, old.topic, keys, RECORDS_PER_BOUNCE);
        members.set(index, new Member(old.settings, assignors, old.topic, old.consumed));
        return written;
    }

    /**
     * Awaits the runbook's "Stable" once a restart's rebalances are over: every member in, and
     * every partition assigned (a cooperative rebalance that moves partitions first leaves some
     * unassigned in a Stable generation of its own).
     */
    private static ConsumerGroupDescription awaitSettled(Admin admin, String group) {
        AtomicReference<ConsumerGroupDescription> settled = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                // until its first member joins, the coordinator knows no such group
                .ignoreExceptionsMatching(e -> e.getCause() instanceof GroupIdNotFoundException)
                .untilAsserted(() -> {
                    ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group))
                            .describedGroups().get(group).get(10, TimeUnit.SECONDS);
                    assertThat(description.groupState()).as("group state").isEqualTo(GroupState.STABLE);
                    assertThat(description.members()).as("members").hasSize(MEMBERS);
                    assertThat(description.members().stream()
                            .mapToInt(member -> member.assignment().topicPartitions().size()).sum())
                            .as("partitions assigned").isEqualTo(PARTITIONS);
                    settled.set(description);
                });
        return settled.get();
    }

    private static void logStep(String step, ConsumerGroupDescription group) {
        log.info("Switch, {}: group {} with {} members, strategy {}", step, group.groupState(),
                group.members().size(), group.partitionAssignor());
    }

    /** Each partition's owner (client id) in the group's current assignment. */
    private static Map<Integer, String> owners(ConsumerGroupDescription group, String topic) {
        Map<Integer, String> owners = new HashMap<>();
        for (MemberDescription member : group.members()) {
            member.assignment().topicPartitions().stream().filter(partition -> partition.topic().equals(topic))
                    .forEach(partition -> owners.put(partition.partition(), member.clientId()));
        }
        return owners;
    }

    /** An attribute of the assignor's MBean for this client id, which the runbook reads over JMX. */
    private static double assignorMetric(String clientId, String attribute) {
        try {
            ObjectName name = new ObjectName("kscale.assignor:type=key-preserving-assignor,client-id=" + clientId);
            return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(name, attribute)).doubleValue();
        } catch (JMException e) {
            throw new IllegalStateException("Cannot read " + attribute + " of " + clientId, e);
        }
    }

    private static KafkaProducer<String, String> producer(KafkaCluster cluster) {
        Map<String, Object> props = new HashMap<>(cluster.clientProperties());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true); // each record once in the log: written == stored
        props.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 500); // sees the new partitions soon after the expansion
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** Writes {@code count} records of keys drawn from {@code keys} and waits for every ack. */
    private static int produce(KafkaProducer<String, String> producer, String topic, Random keys, int count)
            throws Exception {
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = "key-" + keys.nextInt(SWITCH_KEYS);
            sends.add(producer.send(new ProducerRecord<>(topic, key, key)));
        }
        for (Future<RecordMetadata> send : sends) {
            send.get(30, TimeUnit.SECONDS);
        }
        return count;
    }

    /**
     * A member of the switched group: a plain KafkaConsumer polling on its own thread, noting each
     * record's (partition, offset) before it commits, as an application that processes records then
     * commits them would. A commit a rebalance refuses is dropped: the next owner reads those records
     * again, which the distinct count absorbs.
     */
    private static final class Member {
        final String clientId;
        final String topic;
        final Map<String, Object> settings;
        final Set<String> consumed;
        private final KafkaConsumer<String, String> consumer;
        private final Thread thread;
        private volatile boolean running = true;
        private volatile Throwable failure;

        Member(KafkaCluster cluster, String group, String clientId, String topic, List<Class<?>> assignors,
               Set<String> consumed) {
            this(baseSettings(cluster, group, clientId), assignors, topic, consumed);
        }

        Member(Map<String, Object> settings, List<Class<?>> assignors, String topic, Set<String> consumed) {
            this.settings = settings;
            this.clientId = (String) settings.get(ConsumerConfig.CLIENT_ID_CONFIG);
            this.topic = topic;
            this.consumed = consumed;
            Map<String, Object> props = new HashMap<>(settings);
            props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                    assignors.stream().map(Class::getName).collect(Collectors.toList()));
            if (assignors.contains(KeyPreservingAssignor.class)) {
                // The runbook's step 1: this topic's keys were first written at 4 partitions.
                props.put(KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG, topic + ":" + TASKS);
            }
            this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
            this.thread = new Thread(this::consume, clientId);
            this.thread.setDaemon(true);
            this.thread.start();
        }

        private static Map<String, Object> baseSettings(KafkaCluster cluster, String group, String clientId) {
            Map<String, Object> props = new HashMap<>(cluster.clientProperties());
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            return props;
        }

        private void consume() {
            try {
                consumer.subscribe(List.of(topic));
                while (running) {
                    ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                    records.forEach(record -> consumed.add(record.partition() + ":" + record.offset()));
                    if (!records.isEmpty()) {
                        try {
                            consumer.commitSync();
                        } catch (RebalanceInProgressException | CommitFailedException e) {
                            // read again by the partition's next owner
                        }
                    }
                }
            } catch (RuntimeException e) {
                failure = e;
            } finally {
                consumer.close(); // leaves the group: the others rebalance at once
            }
        }

        /** Stops polling after the current poll and waits until the consumer has left the group. */
        void close() {
            running = false;
            try {
                thread.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            assertThat(thread.isAlive()).as("%s still running after 30 s", clientId).isFalse();
        }
    }
}
