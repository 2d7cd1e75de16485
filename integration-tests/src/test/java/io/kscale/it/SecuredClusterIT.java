package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.KeyPreservingAssignorConfig;
import io.kscale.it.support.RealKafkaCluster;
import io.kscale.lab.cluster.ClusterSecurity;
import io.kscale.lab.KscaleLab;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.ProcessKafkaCluster;
import io.kscale.streams.WarmupTaskAssignor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The three plug-ins on a SASL_SSL cluster (TLS, SCRAM-SHA-512, {@code StandardAuthorizer} with
 * {@code allow.everyone.if.no.acl.found=false}), run as the non-super user {@value #APP}, which
 * holds exactly the ACLs the README lists for each plug-in (the tests' own input is written, and
 * output read, by the admin, a super user). The layout store of
 * {@link KeyPreservingAssignor} logs in with the consumer's settings; without its ACLs the group
 * still works, and the store says once which ACL is missing. Last, no secret of the cluster
 * (keystore, truststore and user passwords) appears in the client output captured during the
 * class, in an exception message, or in any broker log (INFO, with the brokers' configuration
 * dumps). The class runs in a Failsafe execution of its own ({@code secured-clusters}), where
 * Kafka's clients log at INFO, with their configuration dumps, and kscale at DEBUG.
 */
@ExtendWith(SecuredClusterIT.CapturedStderr.class) // first: it also captures the cluster's start-up
@RealKafkaCluster(brokers = 2, security = ClusterSecurity.SASL_SSL)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecuredClusterIT {

    private static final String APP = "app";
    private static final String PRINCIPAL = "User:" + APP;
    private static final int KEYS = 40;

    private static Map<String, Object> app;
    /** Exception messages seen by the tests, searched for secrets too. */
    private static final List<String> errors = new ArrayList<>();

    /**
     * Once per class, but in {@code @BeforeEach}: in the Docker suite the extension skips each test
     * before this runs, where a {@code @BeforeAll} asking for the cluster would fail the class.
     */
    @BeforeEach
    void createTheApplicationUser(KafkaCluster cluster) {
        if (app == null) {
            app = cluster.createUser(APP);
        }
    }

    @Test
    @Order(1)
    void shouldRefuseTheApplicationUserWhatNoAclAllows(KafkaCluster cluster) {
        createTopic(cluster, "no-acl", 1);
        Map<String, Object> props = producerProps(app);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("no-acl", "k", "v")).get())
                    .hasCauseInstanceOf(TopicAuthorizationException.class)
                    .satisfies(e -> errors.add(String.valueOf(e)));
        }
        Map<String, Object> wrongPassword = new HashMap<>(app);
        wrongPassword.put("sasl.jaas.config", jaasConfig(APP, "not-the-password"));
        try (Admin admin = Admin.create(wrongPassword)) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get())
                    .hasCauseInstanceOf(SaslAuthenticationException.class)
                    .satisfies(e -> errors.add(String.valueOf(e)));
        }
    }

    /** The partitioner needs WRITE on the topic (which implies DESCRIBE), nothing else. */
    @Test
    @Order(2)
    void shouldProduceUniformlyWithTheStickyBytesPartitionerGrantedWriteOnly(KafkaCluster cluster) throws Exception {
        createTopic(cluster, "uniform", 3);
        allow(cluster, topic("uniform"), AclOperation.WRITE);
        PluginSmokeChecks.assertSpreadsUniformly(producerProps(app), "uniform");
    }

    /**
     * The group needs READ on its topic and its group; the layout store READ, WRITE and CREATE on
     * its topic (the README's list): with those and no more, the store creates its topic and
     * writes the layout, and never reports a missing ACL.
     */
    @Test
    @Order(3)
    void shouldKeepKeysOnTheirConsumerAcrossAnExpansionWithTheStoresAcls(KafkaCluster cluster) throws Exception {
        String store = "secured-layouts";
        createTopic(cluster, "orders", 2);
        allow(cluster, topic("orders"), AclOperation.READ);
        allow(cluster, group("orders-group"), AclOperation.READ);
        allow(cluster, topic(store), AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE);
        int before = CapturedStderr.text().length();

        Map<String, String> firstOwner = new ConcurrentHashMap<>();
        Map<String, String> laterOwner = new ConcurrentHashMap<>();
        try (KafkaConsumer<String, String> a = consumer(app, "a", "orders-group", store);
             KafkaConsumer<String, String> b = consumer(app, "b", "orders-group", store)) {
            a.subscribe(List.of("orders"));
            b.subscribe(List.of("orders"));
            PluginSmokeChecks.pollUntil(a, b, firstOwner, () -> a.assignment().size() == 1 && b.assignment().size() == 1);
            produceKeys(cluster, "orders", "before");
            PluginSmokeChecks.pollUntil(a, b, firstOwner, () -> firstOwner.size() == KEYS);

            try (Admin admin = Admin.create(cluster.clientProperties())) {
                admin.createPartitions(Map.of("orders", NewPartitions.increaseTo(4))).all().get();
            }
            PluginSmokeChecks.pollUntil(a, b, laterOwner, () -> a.assignment().size() == 2 && b.assignment().size() == 2);
            produceKeys(cluster, "orders", "after");
            PluginSmokeChecks.pollUntil(a, b, laterOwner, () -> laterOwner.size() == KEYS);

        }
        assertThat(laterOwner).as("consumer of each key after 2 -> 4 partitions").isEqualTo(firstOwner);
        assertThat(storedRecords(cluster, store)).as("layout records in %s", store).isPositive();
        assertThat(missingAclWarnings(CapturedStderr.text().substring(before), store)).as("missing-ACL WARNs").isEmpty();
    }

    /**
     * Without the store's ACLs a group set to go on provisionally works; the store WARNs once,
     * naming the ACL, and the metric counts it. (By default, since issue 17, such a group holds the
     * topics no member knows until the store can be read: see {@code LayoutPersistenceTest}.)
     */
    @Test
    @Order(4)
    void shouldWarnOnceNamingTheMissingAclWhenTheStoreMayNotWrite(KafkaCluster cluster) throws Exception {
        String store = "denied-layouts";
        createTopic(cluster, "payments", 2);
        allow(cluster, topic("payments"), AclOperation.READ);
        allow(cluster, group("payments-group"), AclOperation.READ);
        int before = CapturedStderr.text().length();

        Map<String, String> owner = new ConcurrentHashMap<>();
        long failures;
        Map<String, Object> provisional = Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_UNREADABLE_POLICY_CONFIG,
                "provisional");
        try (KafkaConsumer<String, String> a = consumer(app, "a", "payments-group", store, provisional);
             KafkaConsumer<String, String> b = consumer(app, "b", "payments-group", store, provisional)) {
            a.subscribe(List.of("payments"));
            b.subscribe(List.of("payments"));
            PluginSmokeChecks.pollUntil(a, b, owner, () -> a.assignment().size() == 1 && b.assignment().size() == 1);
            produceKeys(cluster, "payments", "p");
            PluginSmokeChecks.pollUntil(a, b, owner, () -> owner.size() == KEYS);
            failures = storeFailures("payments-group-a") + storeFailures("payments-group-b");
        }

        List<String> warnings = missingAclWarnings(CapturedStderr.text().substring(before), store);
        assertThat(warnings).as("missing-ACL WARNs of the layout store").hasSize(1);
        assertThat(warnings.get(0)).containsPattern(PRINCIPAL + " lacks (READ|WRITE) on topic " + store)
                .contains("--allow-principal " + PRINCIPAL);
        assertThat(failures).as("layout-store-failures-total").isPositive();
    }

    /**
     * A stateful Streams app (a repartition and a changelog topic, whose lags the assignor reads)
     * needs READ on its input topic and its group (the application id), WRITE on its output
     * topic, and CREATE, READ, WRITE and DELETE on the topics prefixed with its application id:
     * Streams creates its internal topics, and deletes the repartition topic's consumed records.
     */
    @Test
    @Order(5)
    void shouldRunAStatefulStreamsAppWithTheWarmupTaskAssignor(KafkaCluster cluster) throws Exception {
        String appId = "secured-streams";
        createTopic(cluster, "words", 2);
        createTopic(cluster, "word-counts", 2);
        allow(cluster, topic("words"), AclOperation.READ);
        allow(cluster, topic("word-counts"), AclOperation.WRITE);
        allow(cluster, group(appId), AclOperation.READ);
        allow(cluster, new ResourcePattern(ResourceType.TOPIC, appId, PatternType.PREFIXED),
                AclOperation.CREATE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE);
        StreamsBuilder builder = new StreamsBuilder();
        // "hello-7" counts under "hello": re-keying makes the repartition topic, count() the changelog
        builder.stream("words", Consumed.with(Serdes.String(), Serdes.String()))
                .groupBy((key, value) -> value.substring(0, value.indexOf('-')), Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as("counts"))
                .toStream()
                .mapValues(String::valueOf)
                .to("word-counts", Produced.with(Serdes.String(), Serdes.String()));
        Properties props = new Properties();
        props.putAll(app);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        props.put(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, WarmupTaskAssignor.class.getName());
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("secured-streams").toString());
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0); // every update reaches the output
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, cluster.brokerCount());
        props.put(StreamsConfig.CLIENT_ID_CONFIG, appId + "-1");
        // The assignor's metrics are those of the leading thread's main consumer (one thread here).
        ObjectName assignorMetrics = new ObjectName(
                "kscale.streams:type=warmup-task-assignor,client-id=" + appId + "-1-StreamThread-1-consumer");

        Map<String, String> counts = new ConcurrentHashMap<>();
        try (KafkaStreams streams = new KafkaStreams(builder.build(), props);
             KafkaConsumer<String, String> reader = consumer(cluster.clientProperties(), "reader", "counts-reader", null)) {
            streams.start();
            produceKeys(cluster, "words", "hello");
            reader.subscribe(List.of("word-counts"));
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                for (ConsumerRecord<String, String> record : reader.poll(Duration.ofMillis(200))) {
                    counts.put(record.key(), record.value());
                }
                return String.valueOf(KEYS).equals(counts.get("hello"));
            });
            // A rebalance may still be under way (the consumer rejoins when its metadata of the
            // internal topics changes), and processing goes on through it: wait for it to end.
            await().atMost(Duration.ofSeconds(60)).untilAsserted(
                    () -> assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING));
            assertThat(((Number) ManagementFactory.getPlatformMBeanServer()
                    .getAttribute(assignorMetrics, "assignments-total")).longValue())
                    .as("assignments the WarmupTaskAssignor computed").isPositive();
        }
        assertThat(ManagementFactory.getPlatformMBeanServer().isRegistered(assignorMetrics))
                .as("the assignor's metrics, after the Streams instance closed").isFalse();
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            assertThat(admin.listTopics().names().get()).as("the app's internal topics, created as user " + APP)
                    .contains(appId + "-counts-repartition", appId + "-counts-changelog");
        }
        assertThat(counts).containsOnlyKeys("hello");
    }

    /**
     * A lab scenario command runs on the secured cluster from the client settings file alone, as
     * {@code kscale-lab cluster --security sasl_ssl} writes it (the admin's: scenarios create topics).
     */
    @Test
    @Order(6)
    void shouldRunALabScenarioFromTheWrittenClientSettings(KafkaCluster cluster, @TempDir Path dir) {
        Path config = dir.resolve("client.properties");
        ProcessKafkaCluster.writeClientProperties(config, cluster.clientProperties());
        StringWriter out = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setOut(new PrintWriter(out));

        int status = lab.execute("expansion", "--command-config", config.toString(), "--peers", "kscale",
                "--partitions", "2,4", "--members", "2", "--keys", "20", "--records-per-step", "200",
                "--rate", "2000", "--report-dir", dir.toString());

        assertThat(status).as("exit status; output:%n%s", out).isZero();
        assertThat(out.toString()).contains("Cluster " + cluster.bootstrapServers()).contains("Report: ");
    }

    /**
     * Issue 17 (finding 7): no other user of the machine can read a secret of the cluster. On
     * disk, every file under the cluster's folder that holds one (a password in it, also base64,
     * or a keystore: {@code *.p12}) is mode 0600, and every folder from it up to the cluster's
     * folder 0700; so is a client settings file the lab writes. On command lines, which every
     * user reads in {@code /proc/<pid>/cmdline}: neither a running broker's nor those of the
     * storage formats ({@code StorageTool}, which used to get the admin's SCRAM password as an
     * argument) hold one.
     */
    @Test
    @Order(Integer.MAX_VALUE - 1)
    void shouldKeepEverySecretToItsOwnerOnDiskAndOffEveryCommandLine(KafkaCluster cluster, @TempDir Path dir)
            throws IOException {
        assertThat(cluster).as("the secured suite runs on processes").isInstanceOf(ProcessKafkaCluster.class);
        ProcessKafkaCluster processes = (ProcessKafkaCluster) cluster;
        Path root = processes.directory();
        Set<String> secrets = cluster.secrets();
        List<Path> secretFiles = new ArrayList<>();
        Set<String> exposed = new java.util.LinkedHashSet<>();
        try (java.util.stream.Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
                String text = Files.readString(file, StandardCharsets.ISO_8859_1);
                if (!file.getFileName().toString().endsWith(".p12") && secrets.stream().noneMatch(secret -> text.contains(secret)
                        || text.contains(Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8))))) {
                    continue;
                }
                secretFiles.add(root.relativize(file));
                checkMode(file, "rw-------", exposed);
                for (Path folder = file.getParent(); folder.startsWith(root); folder = folder.getParent()) {
                    checkMode(folder, "rwx------", exposed);
                }
            }
        }
        Path settings = dir.resolve("admin.properties");
        ProcessKafkaCluster.writeClientProperties(settings, cluster.clientProperties());
        checkMode(settings, "rw-------", exposed);

        Map<String, String> commandLines = new HashMap<>();
        for (int id : cluster.brokerIds()) {
            long pid = processes.pid(id);
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            commandLines.put("broker " + id + " (pid " + pid + ")", new String(raw, StandardCharsets.UTF_8).replace('\0', ' '));
        }
        List<String> launched = processes.commandLines();
        assertThat(launched.stream().filter(line -> line.contains("kafka.tools.StorageTool")))
                .as("storage formats launched").hasSize(cluster.brokerCount());
        for (int i = 0; i < launched.size(); i++) {
            commandLines.put("launched process " + i, launched.get(i));
        }
        List<String> onCommandLines = new ArrayList<>();
        commandLines.forEach((process, line) -> {
            String redacted = line;
            for (String secret : secrets) {
                redacted = redacted.replace(secret, "<a secret>"); // not into the test report
            }
            if (!redacted.equals(line)) {
                onCommandLines.add(process + ": " + redacted);
            }
        });

        org.assertj.core.api.SoftAssertions.assertSoftly(softly -> {
            // Not a scan of nothing: each node's settings and the keystores hold secrets.
            softly.assertThat(secretFiles).as("files holding secrets").contains(Path.of("broker-0", "server.properties"),
                    Path.of("security", "broker-keystore.p12"));
            softly.assertThat(exposed).as("secret-bearing files or their folders open to other users").isEmpty();
            softly.assertThat(onCommandLines).as("command lines holding a secret").isEmpty();
        });
    }

    private static void checkMode(Path path, String expected, Set<String> exposed) throws IOException {
        String mode = java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
        if (!mode.equals(expected)) {
            exposed.add(path + " is " + mode + ", not " + expected);
        }
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void shouldLogNoSecretAnywhere(KafkaCluster cluster) throws IOException {
        Set<String> secrets = cluster.secrets();
        assertThat(secrets).as("keystore, truststore, admin and app passwords").hasSizeGreaterThanOrEqualTo(4);
        assertThat(cluster.logFiles()).as("broker logs").isNotEmpty();
        Map<String, String> searched = new HashMap<>();
        searched.put("client output", CapturedStderr.text());
        searched.put("exception messages", String.join("\n", errors));
        for (Path log : cluster.logFiles()) {
            searched.put(log.toString(), Files.readString(log, StandardCharsets.ISO_8859_1));
        }
        // Not a search of nothing: the output holds the clients' configuration dumps and kscale's DEBUG lines.
        assertThat(searched.get("client output")).as("captured client output").contains("KafkaLayoutStore")
                .contains("ProducerConfig values:").contains("sasl.jaas.config = [hidden]").containsPattern(" DEBUG \\S+ - ");

        for (String secret : secrets) {
            String encoded = Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8));
            searched.forEach((where, text) -> {
                assertThat(text).as("a secret in %s", where).doesNotContain(secret);
                assertThat(text).as("a base64-encoded secret in %s", where).doesNotContain(encoded);
            });
        }
    }

    // ------------------------------------------------------------------------------------------

    private static void createTopic(KafkaCluster cluster, String name, int partitions) {
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) cluster.brokerCount()))).all().get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException("Cannot create topic " + name, e);
        }
    }

    private static ResourcePattern topic(String name) {
        return new ResourcePattern(ResourceType.TOPIC, name, PatternType.LITERAL);
    }

    private static ResourcePattern group(String name) {
        return new ResourcePattern(ResourceType.GROUP, name, PatternType.LITERAL);
    }

    /**
     * Grants {@value #APP} these operations on the resource, and waits until the user sees the
     * resource described as allowed (the ACLs reach the brokers with the metadata).
     */
    private static void allow(KafkaCluster cluster, ResourcePattern resource, AclOperation... operations)
            throws Exception {
        List<AclBinding> bindings = new ArrayList<>();
        for (AclOperation operation : operations) {
            bindings.add(new AclBinding(resource, new AccessControlEntry(PRINCIPAL, "*", operation,
                    AclPermissionType.ALLOW)));
        }
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            admin.createAcls(bindings).all().get();
            for (AclBinding binding : bindings) {
                await().atMost(Duration.ofSeconds(30)).until(() ->
                        admin.describeAcls(binding.toFilter()).values().get().contains(binding));
            }
        }
    }

    private static Map<String, Object> producerProps(Map<String, Object> user) {
        Map<String, Object> props = new HashMap<>(user);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        return props;
    }

    /** Writes the test's input as the admin, so that {@value #APP} holds only the ACLs of the plug-in under test. */
    private static void produceKeys(KafkaCluster cluster, String topic, String valuePrefix) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(cluster.clientProperties()))) {
            for (int k = 0; k < KEYS; k++) {
                producer.send(new ProducerRecord<>(topic, "key-" + k, valuePrefix + "-" + k)).get();
            }
        }
    }

    /** A consumer of this user; with {@code storeTopic}, one of KeyPreservingAssignor with its layout store there. */
    private static KafkaConsumer<String, String> consumer(Map<String, Object> user, String name, String groupId,
                                                          String storeTopic) {
        return consumer(user, name, groupId, storeTopic, Map.of());
    }

    /** As above, with more settings of the assignor. */
    private static KafkaConsumer<String, String> consumer(Map<String, Object> user, String name, String groupId,
                                                          String storeTopic, Map<String, Object> assignorSettings) {
        Map<String, Object> props = new HashMap<>(user);
        props.putAll(assignorSettings);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId + "-" + name);
        if (storeTopic != null) {
            props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, KeyPreservingAssignor.class.getName());
            props.put(KeyPreservingAssignorConfig.LAYOUT_STORE_TOPIC_CONFIG, storeTopic);
            // a generous budget: on a loaded machine a TLS handshake alone may take a second
            props.put(KeyPreservingAssignorConfig.LAYOUT_STORE_TIMEOUT_MS_CONFIG, 10_000); // the most request.timeout.ms allows
        }
        props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1000);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        return new KafkaConsumer<>(props);
    }

    /** The layout store's WARNs that say an ACL on this store topic is missing. */
    private static List<String> missingAclWarnings(String output, String store) {
        return output.lines().filter(l -> l.contains("WARN") && l.contains("KafkaLayoutStore")
                && l.contains(" lacks ") && l.contains("on topic " + store)).collect(Collectors.toList());
    }

    /**
     * The assignor's {@code layout-store-failures-total} of this consumer, from JMX (the assignor
     * keeps its metrics in a registry of its own, by client id, while the consumer is open).
     */
    private static long storeFailures(String clientId) throws Exception {
        ObjectName name = new ObjectName("kscale.assignor:type=key-preserving-assignor,client-id=" + clientId);
        return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(name, "layout-store-failures-total"))
                .longValue();
    }

    /** The end offset of the store topic's partition, read as the admin. */
    private static long storedRecords(KafkaCluster cluster, String store) throws Exception {
        Map<String, Object> props = new HashMap<>(cluster.clientProperties());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        try (KafkaConsumer<String, String> admin = new KafkaConsumer<>(props)) {
            TopicPartition partition = new TopicPartition(store, 0);
            return admin.endOffsets(List.of(partition)).get(partition);
        }
    }

    private static String jaasConfig(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                + "\" password=\"" + password + "\";";
    }


    /**
     * Copies everything written to {@code System.err} while the class runs (slf4j-simple, the
     * tests' logger, writes there and looks the stream up at each line) into a buffer, still
     * passing it on.
     */
    static final class CapturedStderr implements BeforeAllCallback, AfterAllCallback {
        private static final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        private static PrintStream original;

        static String text() {
            synchronized (captured) {
                return captured.toString(StandardCharsets.UTF_8);
            }
        }

        @Override
        public void beforeAll(ExtensionContext context) {
            original = System.err;
            PrintStream passOn = original;
            System.setErr(new PrintStream(new OutputStream() {
                @Override
                public void write(int b) {
                    synchronized (captured) {
                        captured.write(b);
                    }
                    passOn.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    synchronized (captured) {
                        captured.write(b, off, len);
                    }
                    passOn.write(b, off, len);
                }

                @Override
                public void flush() {
                    passOn.flush();
                }
            }, true, StandardCharsets.UTF_8));
        }

        @Override
        public void afterAll(ExtensionContext context) {
            System.setErr(original);
        }
    }
}
