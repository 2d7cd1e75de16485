package io.kscale.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kscale.admin.TopicExpansions;
import io.kscale.admin.TopicExpansions.GroupReport;
import io.kscale.admin.cli.KscaleAdmin;
import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.it.support.RealKafkaCluster;
import io.kscale.it.support.Topics;
import io.kscale.lab.cluster.ClusterSecurity;
import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.ProcessKafkaCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import picocli.CommandLine;

/**
 * {@code kscale-admin} on a SASL_SSL cluster with ACLs ({@code StandardAuthorizer},
 * {@code allow.everyone.if.no.acl.found=false}), as an operator user {@code ops} that holds only
 * what docs/operations.md lists, granted step by step: DESCRIBE on every group and on the topic
 * find the group; READ on the layout topic is needed to read its T (without it, every count is
 * refused and nothing grows); ALTER on the topic is needed to grow it (without it, exit 4 and
 * nothing grows, and a dry run, which the brokers validate, exits 4 too); with all of them the expansion runs and the group settles. A classic
 * {@code KeyPreservingAssignor} group, run as the admin, reads the topic.
 */
@RealKafkaCluster(brokers = 1, security = ClusterSecurity.SASL_SSL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KscaleAdminSecuredClusterIT {

    private static final String TOPIC = "orders";
    private static final String GROUP = "classic-g";
    private static final String OPS = "ops";
    private static final String LAYOUT_TOPIC = "kscale-assignor-layouts";

    private final List<Thread> pollers = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private Path opsConfig;

    /** Once per class, in {@code @BeforeEach} (see KscaleAdminIT). */
    @BeforeEach
    void startTheGroupAndTheOperator(KafkaCluster cluster) throws Exception {
        if (opsConfig != null) {
            return;
        }
        Topics.create(cluster, Topics.topic(TOPIC, 2, 1, Map.of()));
        Map<String, Object> classic = new HashMap<>(cluster.clientProperties());
        classic.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, KeyPreservingAssignor.class.getName());
        classic.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1000);
        classic.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        classic.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        classic.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        for (int i = 0; i < 2; i++) {
            Map<String, Object> config = new HashMap<>(classic);
            config.put(ConsumerConfig.CLIENT_ID_CONFIG, GROUP + "-" + i);
            Thread poller = new Thread(() -> {
                try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                    consumer.subscribe(List.of(TOPIC));
                    while (running.get()) {
                        consumer.poll(Duration.ofMillis(100));
                    }
                }
            }, GROUP + "-" + i);
            poller.setDaemon(true);
            poller.start();
            pollers.add(poller);
        }
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> owned(cluster.clientProperties()) == 2);
        opsConfig = Files.createTempDirectory("kscale-admin-secured").resolve("ops.properties");
        ProcessKafkaCluster.writeClientProperties(opsConfig, cluster.createUser(OPS));
        allow(cluster, new ResourcePattern(ResourceType.GROUP, "*", PatternType.LITERAL), AclOperation.DESCRIBE);
        allow(cluster, topic(TOPIC), AclOperation.DESCRIBE);
    }

    @AfterAll
    void stopTheGroup() throws Exception {
        running.set(false);
        for (Thread poller : pollers) {
            poller.join(30_000);
        }
        if (opsConfig != null) {
            Files.deleteIfExists(opsConfig);
            Files.deleteIfExists(opsConfig.getParent());
        }
    }

    @Test
    @Order(1)
    void shouldRefuseEveryCountWithoutReadOnTheLayoutTopic(KafkaCluster cluster) {
        Run refused = run("expand", "--topic", TOPIC, "--partitions", "4");

        assertThat(refused.exit).as(refused.out + refused.err).isEqualTo(1);
        assertThat(refused.err).startsWith("Refused: the T of group classic-g is unknown: cannot read layout topic "
                + LAYOUT_TOPIC).contains("TopicAuthorizationException");
        assertThat(partitions(cluster)).isEqualTo(2);
    }

    @Test
    @Order(2)
    void shouldNotGrowTheTopicWithoutAlterOnIt(KafkaCluster cluster) throws Exception {
        allow(cluster, topic(LAYOUT_TOPIC), AclOperation.READ);

        Run denied = run("expand", "--topic", TOPIC, "--partitions", "4");
        Run dryRun = run("expand", "--topic", TOPIC, "--partitions", "4", "--dry-run");

        assertThat(denied.exit).as(denied.out + denied.err).isEqualTo(4);
        assertThat(denied.err).startsWith("kscale-admin: TopicAuthorizationException");
        assertThat(dryRun.exit).as("a dry run asks the brokers too: " + dryRun.out + dryRun.err).isEqualTo(4);
        assertThat(dryRun.err).startsWith("kscale-admin: TopicAuthorizationException");
        assertThat(partitions(cluster)).isEqualTo(2);
    }

    @Test
    @Order(3)
    void shouldDescribeAndExpandWithExactlyTheDocumentedAcls(KafkaCluster cluster) throws Exception {
        allow(cluster, topic(TOPIC), AclOperation.ALTER);

        Run describe = run("describe", "--topic", TOPIC);
        Run expand = run("expand", "--topic", TOPIC, "--partitions", "4", "--timeout", "60s");

        assertThat(describe.exit).as(describe.err).isZero();
        assertThat(describe.out).contains("Group classic-g: classic protocol, assignor kscale-key-preserving",
                "T=2 (layout topic kscale-assignor-layouts");
        assertThat(expand.exit).as(expand.out + expand.err).isZero();
        assertThat(expand.out).containsPattern("classic-g +classic +2 +2 of 2 +0 ");
        assertThat(partitions(cluster)).isEqualTo(4);
    }

    private int partitions(KafkaCluster cluster) {
        try (TopicExpansions admin = TopicExpansions.connect(cluster.clientProperties())) {
            return admin.describe(TOPIC).partitions();
        }
    }

    private static int owned(Map<String, Object> settings) {
        try (TopicExpansions admin = TopicExpansions.connect(settings)) {
            Set<Integer> owned = new TreeSet<>();
            admin.describe(TOPIC).groups().stream().filter(g -> g.groupId().equals(GROUP))
                    .map(GroupReport::owners).forEach(owners -> owners.values().forEach(owned::addAll));
            return owned.size();
        }
    }

    private static ResourcePattern topic(String name) {
        return new ResourcePattern(ResourceType.TOPIC, name, PatternType.LITERAL);
    }

    private static void allow(KafkaCluster cluster, ResourcePattern resource, AclOperation operation) throws Exception {
        AclBinding binding = new AclBinding(resource, new AccessControlEntry("User:" + OPS, "*", operation,
                AclPermissionType.ALLOW));
        try (Admin admin = Admin.create(cluster.clientProperties())) {
            admin.createAcls(List.of(binding)).all().get();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> admin.describeAcls(binding.toFilter()).values().get().contains(binding));
        }
    }

    private Run run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add(1, "--command-config");
        all.add(2, opsConfig.toString());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine line = KscaleAdmin.commandLine();
        line.setOut(new PrintWriter(out, true));
        line.setErr(new PrintWriter(err, true));
        return new Run(line.execute(all.toArray(new String[0])), out.toString(), err.toString());
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
}
