package io.kscale.lab.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A KRaft cluster of child JVM processes running {@code kafka.Kafka} from the
 * {@code org.apache.kafka:kafka_2.13} artifact, each node a combined broker and controller on
 * loopback ports, with its files under {@code <workDir>/<cluster>/broker-<id>/}.
 *
 * <p>The cluster's folder and each node's are created with mode 0700, and a secured cluster's
 * files that hold secrets with 0600 ({@link ClusterCredentials}); no secret is passed on a
 * command line ({@link #commandLines()}).
 *
 * <p>No broker outlives the JVM that started it: a normal exit closes the cluster from a
 * shutdown hook, and after {@code kill -9} each broker notices that its standard input (a pipe
 * from this JVM) was closed and halts. Brokers left paused by a killed JVM are reaped by the
 * next cluster start ({@link OrphanReaper}).
 */
public final class ProcessKafkaCluster implements KafkaCluster {

    private static final Logger log = LoggerFactory.getLogger(ProcessKafkaCluster.class);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final ClusterSpec spec;
    private final Path clusterDir;
    private final String classpath;
    private final List<BrokerProcess> brokers;
    private final ClusterProbe probe;
    /** The TLS material and passwords of a SASL_SSL cluster; null on a PLAINTEXT one. */
    private final ClusterCredentials credentials;
    private boolean stopped;
    private final Thread shutdownHook;

    private ProcessKafkaCluster(ClusterSpec spec, Path clusterDir, String classpath, List<BrokerProcess> brokers,
                                ClusterCredentials credentials) {
        this.spec = spec;
        this.clusterDir = clusterDir;
        this.classpath = classpath;
        this.brokers = brokers;
        this.credentials = credentials;
        this.probe = new ClusterProbe(clientProperties());
        this.shutdownHook = new Thread(this::stopBrokers, "kscale-cluster-shutdown");
    }

    /** Starts the cluster and returns once all brokers are registered and a topic with RF = N can be created. */
    public static ProcessKafkaCluster start(ClusterSpec spec) {
        reapOrphanedBrokers();
        Path clusterDir = newClusterDir(spec.workDir());
        List<BrokerProcess> brokers = new ArrayList<>();
        try {
            for (int id = 0; id < spec.brokers(); id++) {
                brokers.add(BrokerProcess.allocate(id, clusterDir));
            }
        } catch (IOException e) {
            brokers.forEach(b -> b.proxy.close());
            throw new UncheckedIOException("Cannot reserve loopback ports", e);
        }
        String classpath = BrokerClasspath.prepare(clusterDir, spec.pluginJars());
        ClusterCredentials credentials;
        try {
            credentials = spec.security() == ClusterSecurity.SASL_SSL ? ClusterCredentials.generate(clusterDir) : null;
        } catch (RuntimeException e) {
            brokers.forEach(b -> b.proxy.close());
            throw e;
        }
        ProcessKafkaCluster cluster = new ProcessKafkaCluster(spec, clusterDir, classpath, brokers, credentials);
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            cluster.formatAndStart();
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * Kills broker processes left behind by a lab JVM that is gone (for example one killed while
     * its broker was paused). {@link #start} does this first; tools can call it on their own.
     */
    public static void reapOrphanedBrokers() {
        OrphanReaper.reapOrphans();
    }

    private void formatAndStart() {
        Instant begin = Instant.now();
        String voters = quorumVoters();
        Map<String, String> settings = brokerSettings(spec, credentials);
        String clusterId = Uuid.randomUuid().toString();
        String protocolMap = protocolMap();
        Path formatArgsFile = clusterDir.resolve("security").resolve("storage-format.args");
        List<String> formatArgs = credentials == null ? List.of() : credentials.formatArguments(formatArgsFile);
        brokers.forEach(b -> b.writeConfig(voters, settings, protocolMap));
        try {
            // Formatting is a short JVM run per node: run them side by side.
            CompletableFuture.allOf(brokers.stream()
                    .map(b -> CompletableFuture.runAsync(() -> b.format(classpath, clusterId, spec.brokerHeap(), formatArgs)))
                    .toArray(CompletableFuture[]::new)).join();
        } finally {
            deleteQuietly(formatArgsFile); // the admin's password: not kept once every node has its credential
        }
        brokers.forEach(b -> b.start(classpath, spec.brokerHeap()));
        probe.awaitReady(brokers, spec.startupTimeout());
        log.info("{} Kafka cluster of {} broker(s) ready at {} in {} ms (files in {})", spec.security(), brokers.size(),
                bootstrapServers(), Duration.between(begin, Instant.now()).toMillis(), clusterDir);
    }

    private String quorumVoters() {
        return brokers.stream().map(BrokerProcess::controllerVoter).collect(Collectors.joining(","));
    }

    private String protocolMap() {
        return credentials == null ? "EXTERNAL:PLAINTEXT,INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT"
                : ClusterCredentials.protocolMap();
    }

    /**
     * The settings every node gets before the user's overrides: small-cluster replication
     * factors, no automatic topic creation (a client touching a topic too early would create it
     * with one partition), no initial rebalance delay, and few threads on a small machine; then,
     * on a secured cluster, TLS, SCRAM and the authorizer.
     */
    static Map<String, String> brokerSettings(ClusterSpec spec) {
        return brokerSettings(spec, null);
    }

    /** As {@link #brokerSettings(ClusterSpec)}, with a secured cluster's settings before the overrides. */
    static Map<String, String> brokerSettings(ClusterSpec spec, ClusterCredentials credentials) {
        String internalReplication = Integer.toString(Math.min(3, spec.brokers()));
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("auto.create.topics.enable", "false");
        settings.put("offsets.topic.replication.factor", internalReplication);
        settings.put("offsets.topic.num.partitions", "10");
        settings.put("transaction.state.log.replication.factor", internalReplication);
        settings.put("transaction.state.log.min.isr", "1");
        settings.put("share.coordinator.state.topic.replication.factor", internalReplication);
        settings.put("share.coordinator.state.topic.min.isr", "1");
        settings.put("group.initial.rebalance.delay.ms", "0");
        settings.put("num.network.threads", "2");
        settings.put("num.io.threads", "4");
        settings.put("num.recovery.threads.per.data.dir", "1");
        settings.put("log.cleaner.dedupe.buffer.size", Integer.toString(8 * 1024 * 1024));
        if (credentials != null) {
            settings.putAll(credentials.brokerSettings());
        }
        settings.putAll(spec.brokerProperties());
        return settings;
    }

    /** A new folder for the cluster, mode 0700: a secured cluster keeps its keystores and passwords in it. */
    private static Path newClusterDir(Path workDir) {
        String name = "cluster-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + "-" + ProcessHandle.current().pid() + "-" + Long.toHexString(System.nanoTime() & 0xffffff);
        Path dir = workDir.resolve(name).toAbsolutePath();
        try {
            Files.createDirectories(dir.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create " + dir.getParent(), e);
        }
        return PrivateFiles.createDirectory(dir);
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            log.warn("Could not delete {}: {}", file, e.toString());
        }
    }

    @Override
    public String bootstrapServers() {
        return brokers.stream().map(BrokerProcess::clientAddress).collect(Collectors.joining(","));
    }

    @Override
    public Map<String, Object> clientProperties() {
        return credentials == null ? KafkaCluster.super.clientProperties()
                : credentials.adminProperties(bootstrapServers());
    }

    @Override
    public ClusterSecurity security() {
        return spec.security();
    }

    @Override
    public Map<String, Object> createUser(String user) {
        if (credentials == null) {
            return KafkaCluster.super.createUser(user);
        }
        if (user == null || !user.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("user names here are letters, digits, '.', '_' and '-', got '" + user + "'");
        }
        String password = credentials.newSecret();
        try (Admin admin = Admin.create(clientProperties())) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password)))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("Cannot create SCRAM user " + user + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating user " + user, e);
        }
        Map<String, Object> props = credentials.clientProperties(bootstrapServers(), user, password);
        for (BrokerProcess broker : brokers) {
            probe.awaitLogin(props, broker, spec.startupTimeout());
        }
        log.info("Created SCRAM user {} (no ACLs yet)", user);
        return props;
    }

    /**
     * Writes client settings (such as {@link #clientProperties()}) as a properties file readable
     * by its owner only, that Kafka's tools and the lab's {@code --command-config} read as is.
     */
    public static void writeClientProperties(Path file, Map<String, Object> props) {
        ClusterCredentials.writeProperties(file, props);
    }

    @Override
    public Set<String> secrets() {
        return credentials == null ? Set.of() : credentials.secrets();
    }

    @Override
    public List<Path> logFiles() {
        // broker-<id>/*.log and security/*.log: not the segment files under broker-<id>/data
        try (Stream<Path> files = Files.walk(clusterDir, 2)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log") && Files.isRegularFile(f))
                    .sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the logs in " + clusterDir, e);
        }
    }

    @Override
    public int brokerCount() {
        return brokers.size();
    }

    /** The folder holding this cluster's logs and data. */
    public Path directory() {
        return clusterDir;
    }

    /**
     * The command line of every process this cluster launched (storage formats and brokers,
     * restarts included), in launch order, as the operating system shows it to every user
     * ({@code /proc/<pid>/cmdline} read right after launch, arguments joined by spaces; the
     * arguments given where there is no {@code /proc}). Tests check that no secret is in one.
     */
    public List<String> commandLines() {
        return brokers.stream().flatMap(b -> b.commandLines().stream()).collect(Collectors.toList());
    }

    /** The operating-system process id of a running broker. */
    public long pid(int brokerId) {
        return broker(brokerId).pid();
    }

    @Override
    public void pause(int brokerId) {
        broker(brokerId).pause();
        log.info("Paused broker {}", brokerId);
    }

    @Override
    public void resume(int brokerId) {
        broker(brokerId).resume();
        log.info("Resumed broker {}", brokerId);
    }

    @Override
    public boolean isFrozen(int brokerId) {
        return broker(brokerId).isFrozen();
    }

    @Override
    public void kill(int brokerId) {
        broker(brokerId).kill();
        log.info("Killed broker {} (kill -9)", brokerId);
    }

    @Override
    public void restart(int brokerId) {
        BrokerProcess broker = broker(brokerId);
        broker.kill();
        broker.start(classpath, spec.brokerHeap());
        probe.awaitRegistered(broker, spec.startupTimeout());
        log.info("Restarted broker {}", brokerId);
    }

    /**
     * Stops the broker cleanly, rewrites its {@code server.properties} (the cluster's settings,
     * then the overrides), and starts it on the same classpath, data and ports.
     */
    @Override
    public void restart(int brokerId, Map<String, String> brokerPropertyOverrides) {
        BrokerProcess broker = broker(brokerId);
        Map<String, String> settings = brokerSettings(spec, credentials);
        brokerPropertyOverrides.forEach((key, value) -> settings.put(Objects.requireNonNull(key, "key"),
                Objects.requireNonNull(value, () -> "the value of " + key)));
        broker.stop(STOP_TIMEOUT);
        broker.writeConfig(quorumVoters(), settings, protocolMap());
        broker.start(classpath, spec.brokerHeap());
        probe.awaitRegistered(broker, spec.startupTimeout());
        log.info("Restarted broker {} with {}", brokerId, brokerPropertyOverrides);
    }

    @Override
    public String brokerLogText(int brokerId) {
        try {
            return Files.readString(broker(brokerId).logFile(), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return "";
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the log of broker " + brokerId, e);
        }
    }

    @Override
    public void setLatency(int brokerId, Duration delay) {
        broker(brokerId).proxy.setDelay(delay);
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook runs too, and stopBrokers waits for it
        }
        stopBrokers();
    }

    /**
     * Stops every broker (SIGTERM, then kill -9 after a timeout), closes the proxies, drops data.
     * Synchronized so that a second caller (close() during the shutdown hook) returns only once
     * the brokers are really gone.
     */
    private synchronized void stopBrokers() {
        if (stopped) {
            return;
        }
        stopped = true;
        brokers.forEach(BrokerProcess::requestStop);
        brokers.forEach(b -> b.awaitStopped(STOP_TIMEOUT));
        brokers.forEach(b -> b.proxy.close());
        brokers.forEach(b -> deleteRecursively(b.dataDir()));
        log.info("Kafka cluster at {} stopped; logs kept in {}", bootstrapServers(), clusterDir);
    }

    private BrokerProcess broker(int brokerId) {
        if (brokerId < 0 || brokerId >= brokers.size()) {
            throw new IllegalArgumentException("broker id must be between 0 and " + (brokers.size() - 1)
                    + ", got " + brokerId);
        }
        return brokers.get(brokerId);
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            log.debug("Could not delete {}: {}", dir, e.toString());
        }
    }
}
