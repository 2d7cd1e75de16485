package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.ExpansionBarrier;
import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.KeyPreservingServerAssignor;
import io.kscale.assignor.internals.barrier.BarrierMetrics;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.server.ServerAssignorMetrics;
import io.kscale.partitioner.UniformStickyBytesPartitioner;
import io.kscale.streams.WarmupTaskAssignor;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.metrics.MetricValueProvider;
import org.apache.kafka.common.metrics.Monitorable;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.common.metrics.Sensor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The metrics tables of docs/ name exactly the metrics the code registers, as
 * {@link DocsSettingsTablesTest} holds the settings tables to the {@code ConfigDef}s. Each table sits
 * between {@code <!-- NAME-metrics:start (checked by DocsMetricsTablesTest) -->} and
 * {@code <!-- NAME-metrics:end -->}; the metric names are the backquoted words of each row's first
 * cell. The registered names are read the way a user sees them: the JMX attributes of the MBeans
 * the assignors' metrics classes register, and the names the partitioner gives the producer's
 * {@link PluginMetrics} (through a recording one) once a record goes to a topic.
 *
 * <p>docs/operations.md's table of where each plug-in's metrics live is checked too: every MBean
 * the plug-ins register has a row, each row's JMX name is registered, and the row says the metrics
 * reach the client's metric reporters only for a plug-in that implements {@link Monitorable} (the
 * only way Kafka hands a plug-in its client's registry); the others register in a JMX-only registry
 * of their own.
 */
class DocsMetricsTablesTest {

    private static final Path ROOT = Path.of("..");
    private static final String CLIENT = "docs-metrics-test";
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

    private static AssignorMetrics assignorMetrics;
    private static BarrierMetrics barrierMetrics;
    private static Object streamsMetrics;
    private static final RecordingPluginMetrics PARTITIONER_METRICS = new RecordingPluginMetrics();

    @BeforeAll
    static void registerEveryPluginsMetrics() throws Exception {
        assignorMetrics = new AssignorMetrics(AssignorMetrics.Registry.SHARED, CLIENT);
        barrierMetrics = new BarrierMetrics(AssignorMetrics.Registry.SHARED, CLIENT);
        streamsMetrics = streamsMetrics();
        if (!JMX.isRegistered(new ObjectName(ServerAssignorMetrics.JMX_PREFIX + ":type=" + ServerAssignorMetrics.GROUP))) {
            ServerAssignorMetrics.registered(() -> 0); // once per JVM, as on a broker
        }
        try (UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner()) {
            partitioner.configure(Map.of());
            partitioner.withPluginMetrics(PARTITIONER_METRICS);
            Node node = new Node(0, "localhost", 9092);
            Cluster cluster = new Cluster("c", List.of(node),
                    List.of(new PartitionInfo("t", 0, node, new Node[] {node}, new Node[] {node})), Set.of(), Set.of());
            partitioner.partition("t", null, null, "v", new byte[] {1}, cluster);
        }
    }

    @AfterAll
    static void closeThem() throws Exception {
        assignorMetrics.close();
        barrierMetrics.close();
        Method close = streamsMetrics.getClass().getDeclaredMethod("close");
        close.setAccessible(true);
        close.invoke(streamsMetrics);
    }

    @Test
    void partitionerTableNamesItsRegisteredMetrics() throws IOException {
        check("partitioner", "docs/partitioner.md", PARTITIONER_METRICS.names());
    }

    @Test
    void assignorTableNamesItsRegisteredMetrics() throws Exception {
        check("assignor", "docs/consumer-assignor.md",
                attributes(AssignorMetrics.JMX_PREFIX + ":type=" + AssignorMetrics.GROUP + ",client-id=" + CLIENT));
    }

    @Test
    void barrierTableNamesItsRegisteredMetrics() throws Exception {
        check("barrier", "docs/consumer-assignor.md",
                attributes(AssignorMetrics.JMX_PREFIX + ":type=" + BarrierMetrics.GROUP + ",client-id=" + CLIENT));
    }

    @Test
    void serverAssignorTableNamesItsRegisteredMetrics() throws Exception {
        check("server", "docs/server-assignor.md",
                attributes(ServerAssignorMetrics.JMX_PREFIX + ":type=" + ServerAssignorMetrics.GROUP));
    }

    @Test
    void streamsTableNamesItsRegisteredMetrics() throws Exception {
        check("streams", "docs/streams-assignor.md", attributes("kscale.streams:type=warmup-task-assignor,client-id=" + CLIENT));
    }

    @Test
    void operationsTableSaysWhereEachPluginsMetricsLiveAndWhoSeesThem() throws Exception {
        Map<String, Class<?>> plugins = new LinkedHashMap<>();
        for (Class<?> plugin : List.of(UniformStickyBytesPartitioner.class, KeyPreservingAssignor.class,
                ExpansionBarrier.class, KeyPreservingServerAssignor.class, WarmupTaskAssignor.class)) {
            plugins.put(plugin.getSimpleName(), plugin);
        }
        List<List<String>> rows = rows(section("registries", "docs/operations.md"));
        assertThat(rows).as("docs/operations.md: one row per plug-in").extracting(row -> unquote(row.get(0)))
                .containsExactlyInAnyOrderElementsOf(plugins.keySet());

        Set<String> documentedBeans = new TreeSet<>();
        for (List<String> row : rows) {
            Class<?> plugin = plugins.get(unquote(row.get(0)));
            String where = row.get(1);
            String reach = row.get(2);
            if (Monitorable.class.isAssignableFrom(plugin)) {
                assertThat(where).as(plugin.getSimpleName() + ": its client's registry").contains("producer's own registry")
                        .contains("tag `" + String.join("`, `", PARTITIONER_METRICS.tagKeys()) + "`");
                assertThat(reach).as(plugin.getSimpleName() + ": Monitorable, so the client's reporters see it")
                        .contains("metric.reporters");
            } else {
                Matcher bean = Pattern.compile("`([\\w.]+:type=[\\w-]+)").matcher(where);
                assertThat(bean.find()).as(plugin.getSimpleName() + ": a JMX name in " + where).isTrue();
                documentedBeans.add(bean.group(1));
                assertThat(reach).as(plugin.getSimpleName() + ": not Monitorable, so its own JMX-only registry")
                        .isEqualTo("JMX only");
            }
        }
        Set<String> registeredBeans = new TreeSet<>();
        for (String domain : List.of(AssignorMetrics.JMX_PREFIX, ServerAssignorMetrics.JMX_PREFIX, "kscale.streams")) {
            for (ObjectName name : JMX.queryNames(new ObjectName(domain + ":*"), null)) {
                if (!"kafka-metrics-count".equals(name.getKeyProperty("type"))) {
                    registeredBeans.add(domain + ":type=" + name.getKeyProperty("type"));
                }
            }
        }
        assertThat(documentedBeans).as("docs/operations.md's JMX names against the MBeans registered")
                .isEqualTo(registeredBeans);
    }

    @Test
    void readsTheNamesOfATableBetweenItsMarkers() {
        String page = String.join("\n",
                "<!-- x-metrics:start (checked by DocsMetricsTablesTest) -->",
                "| metric | what |",
                "|---|---|",
                "| `a-total` | counts a |",
                "| `b-last`, `b-max` | times b |",
                "<!-- x-metrics:end -->",
                "| `c` | outside |");

        assertThat(names(section(page, "x", "page"))).containsExactly("a-total", "b-last", "b-max");
    }

    private static void check(String name, String document, Set<String> registered) throws IOException {
        Set<String> documented = names(section(name, document));
        assertThat(documented).as(document + " " + name + " metrics table against the registered metrics "
                + registered).isEqualTo(registered);
    }

    private static String section(String name, String document) throws IOException {
        return section(Files.readString(ROOT.resolve(document), StandardCharsets.UTF_8), name, document);
    }

    private static String section(String text, String name, String document) {
        String start = "<!-- " + name + "-metrics:start (checked by DocsMetricsTablesTest) -->";
        String end = "<!-- " + name + "-metrics:end -->";
        int from = text.indexOf(start);
        int to = text.indexOf(end);
        assertThat(from).as(document + " marker " + start).isNotNegative();
        assertThat(to).as(document + " marker " + end).isGreaterThan(from);
        return text.substring(from + start.length(), to);
    }

    /** The table's rows after its header and separator, each split into trimmed cells. */
    private static List<List<String>> rows(String table) {
        List<List<String>> rows = new ArrayList<>();
        List<String> lines = table.strip().lines().filter(l -> l.startsWith("|")).collect(Collectors.toList());
        for (String line : lines.subList(Math.min(2, lines.size()), lines.size())) {
            String inner = line.substring(1, line.endsWith("|") ? line.length() - 1 : line.length());
            rows.add(Arrays.stream(inner.split("(?<!\\\\)\\|")).map(String::strip).collect(Collectors.toList()));
        }
        return rows;
    }

    private static Set<String> names(String table) {
        Set<String> names = new TreeSet<>();
        for (List<String> row : rows(table)) {
            Matcher quoted = Pattern.compile("`([^`]+)`").matcher(row.get(0));
            while (quoted.find()) {
                names.add(quoted.group(1));
            }
        }
        return names;
    }

    private static String unquote(String cell) {
        return cell.replace("`", "").strip();
    }

    private static Set<String> attributes(String objectName) throws Exception {
        ObjectName name = new ObjectName(objectName);
        assertThat(JMX.isRegistered(name)).as("MBean " + objectName).isTrue();
        return Arrays.stream(JMX.getMBeanInfo(name).getAttributes()).map(MBeanAttributeInfo::getName)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The Streams assignor's metrics class is package-private: created as its leader creates it. */
    private static Object streamsMetrics() throws Exception {
        Class<?> type = Class.forName("io.kscale.streams.WarmupAssignorMetrics");
        Field registry = type.getDeclaredField("JMX");
        registry.setAccessible(true);
        Constructor<?> create = type.getDeclaredConstructor(AssignorMetrics.Registry.class, String.class);
        create.setAccessible(true);
        return create.newInstance(registry.get(null), CLIENT);
    }

    /** A producer's plug-in registry that remembers what is added to it. */
    private static final class RecordingPluginMetrics implements PluginMetrics {
        private final Map<MetricName, MetricValueProvider<?>> metrics = new LinkedHashMap<>();

        @Override
        public MetricName metricName(String name, String description, LinkedHashMap<String, String> tags) {
            return new MetricName(name, "plugins", description, tags);
        }

        @Override
        public synchronized void addMetric(MetricName name, MetricValueProvider<?> provider) {
            metrics.put(name, provider);
        }

        @Override
        public synchronized void removeMetric(MetricName name) {
            // kept: the names registered are what the docs list
        }

        @Override
        public Sensor addSensor(String name) {
            throw new UnsupportedOperationException("the partitioner registers no sensor");
        }

        @Override
        public void removeSensor(String name) {
        }

        synchronized Set<String> names() {
            return metrics.keySet().stream().map(MetricName::name).collect(Collectors.toCollection(TreeSet::new));
        }

        synchronized Set<String> tagKeys() {
            return metrics.keySet().stream().flatMap(n -> n.tags().keySet().stream())
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
