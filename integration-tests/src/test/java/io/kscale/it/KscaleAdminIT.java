package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kscale.admin.TopicExpansions;
import io.kscale.admin.TopicExpansions.GroupReport;
import io.kscale.admin.TopicExpansions.Kind;
import io.kscale.admin.TopicExpansions.TopicReport;
import io.kscale.admin.cli.KscaleAdmin;
import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.it.support.RealKafkaCluster;
import io.kscale.it.support.Topics;
import io.kscale.lab.cluster.KafkaCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * {@code kscale-admin} on a real broker, through the command line as an operator runs it. One
 * topic, {@code orders}, is read by three groups that live for the whole class:
 * <ul>
 *   <li>{@code server-g}: {@code group.protocol=consumer} on the brokers' {@code kscale-key-preserving},
 *       started at 2 partitions, so T = 2 in the task count topic;</li>
 *   <li>{@code classic-g}: the classic protocol on {@code KeyPreservingAssignor}, started after the
 *       topic grew to 4, so T = 4 in the layout topic;</li>
 *   <li>{@code sticky-g}: Kafka's {@code CooperativeStickyAssignor}: keys move on any expansion.</li>
 * </ul>
 * The tests run in order on that story: describe (both Ts, the step 4); a refused count (6 breaks
 * T = 4; 4 is not above today's); an accepted one (8), followed until both kscale groups hold each
 * new partition with its task, verified again from the groups' described assignments; a store that
 * cannot be read (refused, nothing grown); a group that does not settle in time (exit 3, and why);
 * {@code --force} (18, naming the groups it breaks, in JSON).
 */
@RealKafkaCluster(brokers = 1, serverAssignors = true, brokerProperties = {
        "group.consumer.min.heartbeat.interval.ms=500", "group.consumer.heartbeat.interval.ms=500"})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KscaleAdminIT {

    private static final Logger log = LoggerFactory.getLogger(KscaleAdminIT.class);
    private static final String TOPIC = "orders";
    private static final String SERVER_GROUP = "server-g";
    private static final String CLASSIC_GROUP = "classic-g";
    private static final String STICKY_GROUP = "sticky-g";
    private static final String SLOW_GROUP = "slow-g";
    private static final Duration SETTLE = Duration.ofSeconds(60);

    private final List<Thread> pollers = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private String bootstrap;

    /**
     * Once per class, but in {@code @BeforeEach}: where the extension skips the class's tests
     * (the Docker suite without an engine), it does so before this runs, where a {@code @BeforeAll}
     * asking for the cluster would fail the class.
     */
    @BeforeEach
    void startTheGroups(KafkaCluster cluster) {
        if (bootstrap != null) {
            return;
        }
        bootstrap = cluster.clientProperties().get("bootstrap.servers").toString();
        Topics.create(cluster, Topics.topic(TOPIC, 2, 1, Map.of()));
        Map<String, Object> server = new HashMap<>(cluster.clientProperties());
        server.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        server.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, KeyPreservingAssignor.NAME);
        startConsumers(SERVER_GROUP, server, 2);
        awaitAllAssigned(cluster, SERVER_GROUP, 2);

        grow(cluster, 4); // the past: the topic grew once, before the classic group started
        awaitAllAssigned(cluster, SERVER_GROUP, 4);

        Map<String, Object> classic = new HashMap<>(cluster.clientProperties());
        classic.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, KeyPreservingAssignor.class.getName());
        classic.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1000); // the leader sees new partitions within a second
        startConsumers(CLASSIC_GROUP, classic, 2);
        Map<String, Object> sticky = new HashMap<>(cluster.clientProperties());
        sticky.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        startConsumers(STICKY_GROUP, sticky, 1);
        awaitAllAssigned(cluster, CLASSIC_GROUP, 4);
        awaitAllAssigned(cluster, STICKY_GROUP, 4);
    }

    @AfterAll
    void stopTheGroups() throws InterruptedException {
        running.set(false);
        for (Thread poller : pollers) {
            poller.join(30_000);
        }
    }

    @Test
    @Order(1)
    void shouldShowEachGroupsTaskCountFromItsStore(KafkaCluster cluster) {
        TopicReport report = describe(cluster);

        assertThat(report.partitions()).isEqualTo(4);
        GroupReport server = group(report, SERVER_GROUP);
        assertThat(server.protocol()).isEqualTo("consumer");
        assertThat(server.kind()).isEqualTo(Kind.KEY_PRESERVING);
        assertThat(server.taskCount()).hasValue(2);
        assertThat(server.taskCountSource()).get().asString().startsWith("task count topic kscale-task-counts");
        assertThat(server.tasks()).isEqualTo(Map.of(0, List.of(0, 2), 1, List.of(1, 3)));
        GroupReport classic = group(report, CLASSIC_GROUP);
        assertThat(classic.protocol()).isEqualTo("classic");
        assertThat(classic.taskCount()).hasValue(4);
        assertThat(classic.taskCountSource()).get().asString().startsWith("layout topic kscale-assignor-layouts");
        GroupReport sticky = group(report, STICKY_GROUP);
        assertThat(sticky.kind()).isEqualTo(Kind.OTHER);
        assertThat(sticky.assignor()).isEqualTo("cooperative-sticky");
        assertThat(sticky.onExpansion()).startsWith("keys move on any expansion");
        assertThat(report.safeStep()).isEqualTo(4);
        assertThat(report.nextSafeCounts(3)).containsExactly(8, 12, 16);

        Run text = run("describe", "--topic", TOPIC);
        log.info("kscale-admin describe --topic {}:\n{}", TOPIC, text.out);
        assertThat(text.exit).isZero();
        assertThat(text.out).contains("multiples of 4 [8, 12, 16, 20, 24]", "T=2 (task count topic", "T=4 (layout topic");
        Run all = run("describe");
        assertThat(all.exit).isZero();
        assertThat(all.out).as("every topic a group reads, but no internal or store topic").contains("Topic orders:")
                .doesNotContain("Topic __consumer_offsets", "Topic kscale-assignor-layouts", "Topic kscale-task-counts");
        Run json = run("describe", "--topic", TOPIC, "--output", "json");
        assertThat(json.exit).isZero();
        assertThat(json.out).startsWith("{\"topics\":[{\"topic\":\"orders\"").contains("\"taskCount\":4", "\"taskCount\":2");
    }

    @Test
    @Order(2)
    void shouldRefuseACountThatBreaksATaskCountAndNameTheNearestSafeOnes(KafkaCluster cluster) {
        Run breaks = run("expand", "--topic", TOPIC, "--partitions", "6");
        log.info("kscale-admin expand --partitions 6: exit {}\n{}{}", breaks.exit, breaks.out, breaks.err);

        assertThat(breaks.exit).isEqualTo(1);
        assertThat(breaks.err.trim()).isEqualTo("Refused: 6 is not a multiple of T=4 of group classic-g: keys would "
                + "move between its tasks. Nearest safe counts: 8 above.");
        Run notAbove = run("expand", "--topic", TOPIC, "--partitions", "4");
        assertThat(notAbove.exit).isEqualTo(1);
        assertThat(notAbove.err).contains("Kafka can only add partitions");
        Run dryRun = run("expand", "--topic", TOPIC, "--partitions", "8", "--dry-run");
        assertThat(dryRun.exit).as(dryRun.out + dryRun.err).isZero();
        assertThat(dryRun.out).contains("Dry run: the brokers would grow orders from 4 to 8 partitions; nothing changed.",
                "Allowed: 8 keeps every key of every key-preserving group.");
        Run missing = run("describe", "--topic", "no-such-topic");
        assertThat(missing.exit).isEqualTo(4);
        assertThat(missing.err.trim()).isEqualTo("kscale-admin: UnknownTopicOrPartitionException: topic no-such-topic "
                + "does not exist");
        assertThat(describe(cluster).partitions()).as("nothing grown").isEqualTo(4);
    }

    @Test
    @Order(3)
    void shouldGrowToASafeCountAndFollowBothProtocolsUntilEveryTaskIsWhole(KafkaCluster cluster) throws Exception {
        // The producers' runbook (docs/runbooks.md): step 1, a keyed producer writing throughout
        // with one request in flight; step 2 is the expansion below; step 3 its checks at the end.
        KeyedWriter writer = new KeyedWriter(cluster);
        Run expand = run("expand", "--topic", TOPIC, "--partitions", "8", "--timeout", SETTLE.toSeconds() + "s");
        log.info("kscale-admin expand --partitions 8: exit {}\n{}{}", expand.exit, expand.out, expand.err);

        assertThat(expand.exit).as(expand.out + expand.err).isZero();
        assertThat(expand.out).contains("Keys move in group sticky-g", "Created partitions 4..7 of orders.")
                .containsPattern("classic-g +classic +4 +4 of 4 +0 ")
                .containsPattern("server-g +consumer +2 +4 of 4 +0 ")
                .contains("metadata.max.age.ms");
        // Verified apart from the command: every task of each group whole on one member.
        TopicReport after = describe(cluster);
        assertThat(after.partitions()).isEqualTo(8);
        for (String group : List.of(CLASSIC_GROUP, SERVER_GROUP)) {
            GroupReport report = group(after, group);
            int taskCount = report.taskCount().orElseThrow();
            Set<Integer> owned = new TreeSet<>();
            for (SortedSet<Integer> partitions : report.owners().values()) {
                owned.addAll(partitions);
                Set<Integer> tasks = new TreeSet<>();
                partitions.forEach(p -> tasks.add(p % taskCount));
                for (int task : tasks) {
                    assertThat(partitions).as("group %s: task %d whole on one member", group, task)
                            .containsAll(report.tasks().get(task));
                }
            }
            assertThat(owned).as("group %s owns every partition", group).hasSize(8);
        }
        // Step 3: the new partitions' end offsets grow, and the producer had no record error.
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            Map<TopicPartition, OffsetSpec> added = new HashMap<>();
            for (int p = 4; p < 8; p++) {
                added.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
            }
            await().atMost(SETTLE).untilAsserted(() -> assertThat(admin.listOffsets(added).all().get(30, TimeUnit.SECONDS)
                    .values()).as("end offsets of the new partitions").allSatisfy(end -> assertThat(end.offset()).isPositive()));
        }
        long sent = writer.stop();
        log.info("Producer through the expansion: {} records acknowledged, record-error-total {}", sent, writer.recordErrors);
        assertThat(writer.recordErrors).as("record-error-total of the producer (the producers' runbook, step 3)").isZero();
        assertThat(writer.failures.get()).as("sends that failed").isZero();
        assertThat(sent).as("records acknowledged").isPositive();
    }

    /**
     * A producer as the producers' runbook sets it up before an expansion: idempotent, one request
     * in flight, keyed records written every few milliseconds from its own thread until stopped.
     */
    private static final class KeyedWriter {
        private final KafkaProducer<String, String> producer;
        private final Thread thread;
        private final AtomicBoolean writing = new AtomicBoolean(true);
        private final AtomicLong acknowledged = new AtomicLong();
        private final AtomicLong failures = new AtomicLong();
        private volatile double recordErrors = -1;

        KeyedWriter(KafkaCluster cluster) {
            Map<String, Object> settings = new HashMap<>(cluster.clientProperties());
            settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            settings.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
            settings.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 1000); // writes to the new partitions soon
            settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            producer = new KafkaProducer<>(settings);
            thread = new Thread(this::write, "runbook-producer");
            thread.setDaemon(true);
            thread.start();
        }

        private void write() {
            for (long i = 0; writing.get(); i++) {
                String key = "key-" + (i % 100);
                producer.send(new ProducerRecord<>(TOPIC, key, Long.toString(i)), (metadata, e) -> {
                    if (e == null) {
                        acknowledged.incrementAndGet();
                    } else {
                        failures.incrementAndGet();
                    }
                });
                try {
                    TimeUnit.MILLISECONDS.sleep(5); // pacing, not a wait for a condition
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        /** Stops writing, waits for every send's outcome, reads record-error-total; returns the records acknowledged. */
        long stop() throws InterruptedException {
            writing.set(false);
            thread.join(30_000);
            producer.flush();
            recordErrors = producer.metrics().entrySet().stream()
                    .filter(metric -> metric.getKey().group().equals("producer-metrics")
                            && metric.getKey().name().equals("record-error-total"))
                    .mapToDouble(metric -> ((Number) metric.getValue().metricValue()).doubleValue())
                    .findFirst().orElseThrow();
            producer.close(Duration.ofSeconds(30));
            return acknowledged.get();
        }
    }

    @Test
    @Order(4)
    void shouldRefuseWithoutGrowingWhenALayoutStoreCannotBeRead(KafkaCluster cluster) throws Exception {
        String badLayouts = "bad-layouts";
        Topics.create(cluster, Topics.topic(badLayouts, 1, 1, Map.of("cleanup.policy", "compact")));
        Map<String, Object> producer = new HashMap<>(cluster.clientProperties());
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> garbage = new KafkaProducer<>(producer)) {
            garbage.send(new ProducerRecord<>(badLayouts, 0, CLASSIC_GROUP.getBytes(), new byte[] {1, 2, 3}))
                    .get(30, TimeUnit.SECONDS);
        }

        Run refused = run("expand", "--topic", TOPIC, "--partitions", "16", "--layout-topic", badLayouts);
        log.info("kscale-admin expand with an unreadable layout store: exit {}\n{}{}", refused.exit, refused.out,
                refused.err);

        assertThat(refused.exit).isEqualTo(1);
        assertThat(refused.err).startsWith("Refused: the T of group classic-g is unknown: the layout of group "
                + "classic-g in topic bad-layouts (offset 0, 3 bytes) does not decode.");
        assertThat(describe(cluster).partitions()).as("nothing grown").isEqualTo(8);
    }

    @Test
    @Order(5)
    void shouldExitThreeAndSayWhyWhenAGroupDoesNotSettleInTime(KafkaCluster cluster) {
        // A classic group at the default metadata.max.age.ms (5 minutes): its leader sees the new
        // partitions only at its next refresh, long after the 5 s given here. Its T is 8.
        Map<String, Object> slow = new HashMap<>(cluster.clientProperties());
        slow.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, KeyPreservingAssignor.class.getName());
        startConsumers(SLOW_GROUP, slow, 1);
        awaitAllAssigned(cluster, SLOW_GROUP, 8);

        Run late = run("expand", "--topic", TOPIC, "--partitions", "16", "--timeout", "5s");
        log.info("kscale-admin expand --partitions 16 --timeout 5s: exit {}\n{}{}", late.exit, late.out, late.err);

        assertThat(late.exit).as(late.out + late.err).isEqualTo(3);
        assertThat(late.out).containsPattern("slow-g +classic +8 +0 of 8 +unknown +not settled")
                .contains("Group slow-g: not settled within 5000 ms: partitions [8, 9, 10, 11, 12, 13, 14, 15] "
                        + "unassigned; its leader has not rebalanced: it notices new partitions at its next metadata "
                        + "refresh (metadata.max.age.ms, 5 minutes by default)")
                .containsPattern("classic-g +classic +4 +8 of 8 +0 ");
        assertThat(describe(cluster).partitions()).isEqualTo(16);
    }

    @Test
    @Order(6)
    void shouldGrowWhenForcedAndNameTheGroupsItBreaks(KafkaCluster cluster) {
        Run forced = run("expand", "--topic", TOPIC, "--partitions", "18", "--force", "--timeout", "5s",
                "--output", "json");
        log.info("kscale-admin expand --partitions 18 --force --output json: exit {}\n{}{}", forced.exit, forced.out,
                forced.err);

        assertThat(forced.exit).as("grown: settled or not, never refused").isIn(0, 3);
        assertThat(forced.err).contains("Will break group classic-g: keys move between its tasks.",
                "Will break group slow-g: keys move between its tasks.",
                "Forced: 18 is not a multiple of T=4 of group classic-g", "Created partitions 16..17 of orders.")
                .doesNotContain("Will break group server-g");
        assertThat(forced.out).startsWith("{\"plan\":{\"topic\":\"orders\",\"currentPartitions\":16,\"partitions\":18,"
                + "\"allowed\":false,").contains("\"breaking\":[\"classic-g\",\"slow-g\"]", "\"forced\":true",
                "\"expanded\":true");
        assertThat(describe(cluster).partitions()).isEqualTo(18);
    }

    private TopicReport describe(KafkaCluster cluster) {
        try (TopicExpansions expansions = TopicExpansions.connect(cluster.clientProperties())) {
            return expansions.describe(TOPIC);
        }
    }

    private static GroupReport group(TopicReport report, String groupId) {
        return report.groups().stream().filter(g -> g.groupId().equals(groupId)).findFirst()
                .orElseThrow(() -> new AssertionError(groupId + " not among " + report.groups().size() + " groups"));
    }

    /** Runs the command as ./kscale-admin does, in this JVM, and keeps what it printed. */
    private Run run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add(1, "--bootstrap-server");
        all.add(2, bootstrap);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine line = KscaleAdmin.commandLine();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        int exit = line.execute(all.toArray(new String[0]));
        return new Run(exit, out.toString(), err.toString());
    }

    private static final class Run {
        final int exit;
        final String out;
        final String err;

        Run(int exit, String out, String err) {
            this.exit = exit;
            this.out = out;
            this.err = err;
        }
    }

    private void startConsumers(String group, Map<String, Object> settings, int count) {
        for (int i = 0; i < count; i++) {
            Map<String, Object> config = new HashMap<>(settings);
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            config.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-" + i);
            config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            Thread poller = new Thread(() -> {
                try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                    consumer.subscribe(List.of(TOPIC));
                    while (running.get()) {
                        consumer.poll(Duration.ofMillis(100));
                    }
                }
            }, group + "-" + i);
            poller.setDaemon(true);
            poller.start();
            pollers.add(poller);
        }
    }

    private static void grow(KafkaCluster cluster, int partitions) {
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            admin.createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(partitions))).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot grow " + TOPIC, e);
        }
    }

    private static void awaitAllAssigned(KafkaCluster cluster, String group, int partitions) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            try (TopicExpansions expansions = TopicExpansions.connect(cluster.clientProperties())) {
                GroupReport report = group(expansions.describe(TOPIC), group);
                Set<Integer> owned = new TreeSet<>();
                report.owners().values().forEach(owned::addAll);
                assertThat(owned).as("partitions of %s owned by group %s", TOPIC, group).hasSize(partitions);
            }
        });
    }
}
