package io.kscale.lab.cluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Network;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * A KRaft cluster of {@code apache/kafka} containers started through Testcontainers'
 * {@link KafkaContainer}: the same {@link KafkaCluster} as {@link ProcessKafkaCluster}, for
 * machines with a Docker engine. {@link KafkaClusters} picks it when Docker is ready or with
 * {@code -Dkscale.cluster=docker}. The image is the one {@link DockerReadiness} found:
 * {@value #DEFAULT_IMAGE}, the one named by {@code -D}{@value #IMAGE_PROPERTY}, or kscale's
 * offline build of it ({@code kscale-lab image}), which keeps the same contract.
 *
 * <p>Layout. Node {@code i} (0 to N-1) is a combined broker and controller in its own container
 * with host name and network alias {@code kafka-i}, on a {@link Network} of its own cluster. All
 * nodes share a random cluster id and a static controller quorum
 * {@code 0@kafka-0:9094,1@kafka-1:9094,...}. Listeners, inside each container:
 * <ul>
 *   <li>{@code PLAINTEXT} on 9092, for clients. The container port is published on a host port
 *       chosen up front (a free port; on a local engine it is published on 127.0.0.1 only) and
 *       fixed in the container's port bindings, so it survives a restart. Clients do
 *       not connect to it directly: the advertised address is a {@link LatencyProxy} on
 *       {@code 127.0.0.1} in this JVM that forwards to the published port, exactly as on the
 *       process backend. {@link #bootstrapServers()} lists the proxies.</li>
 *   <li>{@code BROKER} on 9093, advertised as {@code kafka-i:9093}: replication between brokers,
 *       over the Docker network, never through a proxy.</li>
 *   <li>{@code CONTROLLER} on 9094: the KRaft quorum, over the Docker network.</li>
 * </ul>
 * Broker settings are {@link ProcessKafkaCluster#brokerSettings} (the same small-cluster
 * defaults, then {@link ClusterSpec#brokerProperties()}), passed as {@code KAFKA_*} environment
 * variables that the image turns into {@code server.properties} (see {@link KafkaImageEnvironment#envVarName}). Plugin
 * jars are copied into {@code /opt/kafka/libs}, which is on the broker's classpath.
 *
 * <p>Faults. {@link #pause}/{@link #resume} are {@code docker pause}/{@code unpause} (the cgroup
 * freezer: like SIGSTOP, sockets stay open and nothing answers). {@link #kill} is
 * {@code docker kill} (SIGKILL) and keeps the container, so {@link #restart} starts the same
 * container again with {@code docker start}: same data (the log dirs live in the container), same
 * alias, same published port (fixed binding), same proxy, hence the same bootstrap address.
 * {@link #setLatency} delays responses in the broker's proxy, as on the process backend.
 *
 * <p>What differs from the process backend:
 * <ul>
 *   <li>Startup is slower (image pull on first use, one container per broker) and the broker JVMs
 *       run with the image's Java, not this build's.</li>
 *   <li>Broker logs go to the containers' output; {@link #close()} copies each container's log to
 *       {@code <workDir>/<cluster>/broker-<id>.log} before removing the containers, and startup
 *       failures quote the last lines.</li>
 *   <li>{@link #close()} kills and removes the containers (no controlled shutdown: the data goes
 *       with them anyway) and the network. If this JVM dies without running its shutdown hook
 *       ({@code kill -9}), the next cluster start removes what it left ({@link ContainerReaper},
 *       which works with Testcontainers' Ryuk disabled, as it must be where its image cannot be
 *       pulled).</li>
 *   <li>The published host ports are picked as free on this machine just before the containers
 *       are created; if something else takes one in between, or the Docker engine runs on another
 *       machine where it is in use, the start fails with Docker's "port is already allocated":
 *       start again. For a remote engine ({@code DOCKER_HOST=tcp://...}) the proxies forward to
 *       {@link DockerClientFactory#dockerHostIpAddress()}, so it works as long as its published
 *       ports are reachable from here.</li>
 *   <li>Broker property keys must be lower case ({@code [a-z0-9._-]}): the image lower-cases
 *       every {@code KAFKA_*} variable, so other keys cannot be expressed; they are rejected.</li>
 * </ul>
 *
 * <p>The integration suite runs on this backend as well as on processes ({@code mvn verify}
 * runs both when an engine answers); its pure helpers are unit-tested in
 * {@code DockerKafkaClusterTest}.
 */
public final class DockerKafkaCluster implements KafkaCluster {

    private static final Logger log = LoggerFactory.getLogger(DockerKafkaCluster.class);

    /** The broker image, unless {@value #IMAGE_PROPERTY} names another. */
    public static final String DEFAULT_IMAGE = "apache/kafka:4.4.0";
    /** System property naming another image, e.g. a mirror of {@value #DEFAULT_IMAGE}. */
    public static final String IMAGE_PROPERTY = "kscale.docker.image";

    private static final String LOOPBACK = "127.0.0.1";
    private static final int LOG_TAIL_LINES = 30;
    private static final long POLL_MILLIS = 200;

    private final ClusterSpec spec;
    private final String name;
    private final Path clusterDir;
    private final Network network;
    private final List<Broker> brokers;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private DockerKafkaCluster(ClusterSpec spec, String name, Path clusterDir, Network network, List<Broker> brokers) {
        this.spec = spec;
        this.name = name;
        this.clusterDir = clusterDir;
        this.network = network;
        this.brokers = brokers;
        this.shutdownHook = new Thread(this::stopContainers, "kscale-docker-cluster-shutdown");
    }

    /**
     * Starts the containers side by side (a KRaft quorum forms only once a majority runs) and
     * returns once all brokers are registered and a topic with RF = N can be created. Removes
     * first what clusters of dead JVMs left ({@link ContainerReaper}).
     *
     * @param imageName the Kafka image, as {@link DockerReadiness#image()} found it ({@value #DEFAULT_IMAGE}
     *                  when null)
     * @throws IllegalStateException when no Docker engine answers, or the cluster does not get
     *                               ready within {@link ClusterSpec#startupTimeout()}
     * @throws IllegalArgumentException for a spec with {@link ClusterSpec#security()} other than
     *                               PLAINTEXT: only the process backend starts secured clusters
     */
    public static DockerKafkaCluster start(ClusterSpec spec, String imageName) {
        if (spec.security() != ClusterSecurity.PLAINTEXT) {
            throw new IllegalArgumentException("The docker backend cannot start a " + spec.security()
                    + " cluster; use the process backend (-D" + ClusterBackend.PROPERTY + "=process or --backend process)");
        }
        Map<String, String> settings = ProcessKafkaCluster.brokerSettings(spec);
        KafkaImageEnvironment.settingsEnv(settings); // reject keys the image cannot express before touching Docker
        spec.pluginJars().forEach(DockerKafkaCluster::requireJar);
        DockerImageName image = imageName(imageName);

        boolean localEngine = DockerEngine.local().isLocal();
        String dockerHost = dockerHost(localEngine);
        int reaped = ContainerReaper.reapOrphans(docker(), localEngine);
        if (reaped > 0) {
            log.info("Removed {} container(s) of Kafka clusters whose JVM is gone", reaped);
        }
        String name = clusterName();
        Path clusterDir = createDirectory(spec.workDir().resolve(name).toAbsolutePath());
        String clusterId = Uuid.randomUuid().toString();
        Map<String, String> labels = ContainerReaper.labels(name);
        Network network = Network.builder().createNetworkCmdModifier(cmd -> cmd.withLabels(labels)).build();
        List<Broker> brokers = new ArrayList<>();
        try (HostPorts hostPorts = HostPorts.reserve(new InetSocketAddress(0).getAddress(), spec.brokers())) {
            // Proxies bind while the planned ports are still held, so they cannot take one.
            for (int id = 0; id < spec.brokers(); id++) {
                int hostPort = hostPorts.ports().get(id);
                LatencyProxy proxy = new LatencyProxy("docker-broker-" + id, new InetSocketAddress(dockerHost, hostPort));
                brokers.add(new Broker(id, localEngine ? LOOPBACK : null, hostPort, proxy));
            }
        } catch (IOException e) {
            brokers.forEach(b -> b.proxy.close());
            network.close();
            throw new UncheckedIOException("Cannot reserve ports for the broker containers", e);
        }
        for (Broker broker : brokers) {
            broker.container = newContainer(image, spec, name, clusterId, network, broker, settings, labels);
        }
        DockerKafkaCluster cluster = new DockerKafkaCluster(spec, name, clusterDir, network, brokers);
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            cluster.startAll(image);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private void startAll(DockerImageName image) {
        Instant begin = Instant.now();
        log.info("Starting {} Kafka container(s) from {} (cluster {}), client ports {}", brokers.size(), image, name,
                brokers.stream().map(b -> Integer.toString(b.hostPort)).collect(Collectors.joining(",")));
        try {
            Startables.deepStart(brokers.stream().map(b -> b.container)).join();
        } catch (CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalStateException("Kafka containers of cluster " + name + " did not start: " + cause
                    + "\n" + logTails(), cause);
        }
        new ClusterProbe(bootstrapServers()).awaitReady(brokers, spec.startupTimeout());
        log.info("Kafka cluster of {} broker container(s) ready at {} in {} ms (logs go to {} on close)",
                brokers.size(), bootstrapServers(), Duration.between(begin, Instant.now()).toMillis(), clusterDir);
    }

    private static KafkaContainer newContainer(DockerImageName image, ClusterSpec spec, String clusterName,
            String clusterId, Network network, Broker broker, Map<String, String> settings, Map<String, String> labels) {
        String alias = KafkaImageEnvironment.networkAlias(broker.id);
        String advertised = broker.clientAddress();
        KafkaContainer container = new ClientAddressKafkaContainer(image, advertised)
                .withNetwork(network)
                .withNetworkAliases(alias)
                .withEnv(KafkaImageEnvironment.containerEnv(spec, broker.id, clusterId, settings))
                .withLabels(labels)
                .withStartupTimeout(spec.startupTimeout())
                // Host name = alias: KafkaContainer advertises BROKER://<host name>:9093.
                .withCreateContainerCmdModifier(cmd -> cmd.withHostName(alias).withName(clusterName + "-" + alias));
        container.setPortBindings(List.of(portBinding(broker.bindAddress, broker.hostPort)));
        for (Path jar : spec.pluginJars()) {
            container.withCopyFileToContainer(MountableFile.forHostPath(jar), pluginPath(jar));
        }
        return container;
    }

    // ----------------------------------------------------------------------------------------
    // Pure helpers (unit-tested without Docker)

    /** The image from {@value #IMAGE_PROPERTY}'s value, or {@value #DEFAULT_IMAGE} when unset or blank. */
    static DockerImageName imageName(String requested) {
        if (requested == null || requested.isBlank()) {
            return DockerImageName.parse(DEFAULT_IMAGE);
        }
        // A mirror or a local build of apache/kafka: let KafkaContainer accept it.
        return DockerImageName.parse(requested.trim()).asCompatibleSubstituteFor("apache/kafka");
    }

    /**
     * The container's port binding for a fixed host port, in Testcontainers'
     * {@code [ip:]host:container} form: on {@code bindAddress} only, or on the engine's default
     * address when null.
     */
    static String portBinding(String bindAddress, int hostPort) {
        return (bindAddress == null ? "" : bindAddress + ":") + hostPort + ":" + KafkaImageEnvironment.CLIENT_PORT;
    }

    /** Where a plugin jar goes in the container: {@code /opt/kafka/libs/<file name>}. */
    static String pluginPath(Path jar) {
        return "/opt/kafka/libs/" + jar.getFileName();
    }

    // ----------------------------------------------------------------------------------------
    // KafkaCluster

    @Override
    public String bootstrapServers() {
        return brokers.stream().map(Broker::clientAddress).collect(Collectors.joining(","));
    }

    @Override
    public int brokerCount() {
        return brokers.size();
    }

    /** The folder that receives the containers' logs on {@link #close()}. */
    public Path directory() {
        return clusterDir;
    }

    /** The Docker container id of a broker. */
    public String containerId(int brokerId) {
        return broker(brokerId).container.getContainerId();
    }

    @Override
    public void pause(int brokerId) {
        Broker broker = broker(brokerId);
        synchronized (broker) {
            requireRunning(broker);
            docker().pauseContainerCmd(broker.containerId()).exec();
            broker.paused = true;
        }
        log.info("Paused broker {} (docker pause)", brokerId);
    }

    @Override
    public void resume(int brokerId) {
        Broker broker = broker(brokerId);
        synchronized (broker) {
            requireRunning(broker);
            docker().unpauseContainerCmd(broker.containerId()).exec();
            broker.paused = false;
        }
        log.info("Resumed broker {} (docker unpause)", brokerId);
    }

    @Override
    public void kill(int brokerId) {
        Broker broker = broker(brokerId);
        synchronized (broker) {
            killContainer(broker);
        }
        log.info("Killed broker {} (docker kill, container kept)", brokerId);
    }

    @Override
    public void restart(int brokerId) {
        Broker broker = broker(brokerId);
        synchronized (broker) {
            killContainer(broker);
            // Same container: same data, alias, fixed port binding and starter script, so the
            // advertised address (the proxy) is still right.
            docker().startContainerCmd(broker.containerId()).exec();
        }
        new ClusterProbe(bootstrapServers()).awaitRegistered(broker, spec.startupTimeout());
        log.info("Restarted broker {} (docker start)", brokerId);
    }

    @Override
    public boolean isFrozen(int brokerId) {
        Broker broker = broker(brokerId);
        synchronized (broker) {
            InspectContainerResponse.ContainerState state = docker().inspectContainerCmd(broker.containerId()).exec()
                    .getState();
            return Boolean.TRUE.equals(state.getPaused());
        }
    }

    @Override
    public void setLatency(int brokerId, Duration delay) {
        broker(brokerId).proxy.setDelay(delay);
    }

    @Override
    public void close() {
        if (!closed.get()) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down: the hook is running or will run
            }
            stopContainers();
        }
    }

    /** Saves each container's log, removes the containers, the proxies and the network. */
    private void stopContainers() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (Broker broker : brokers) {
            try {
                synchronized (broker) {
                    if (broker.container.getContainerId() != null) {
                        if (broker.paused) {
                            docker().unpauseContainerCmd(broker.containerId()).exec();
                            broker.paused = false;
                        }
                        saveLog(broker);
                    }
                    ContainerRemoval.stop(broker.container); // kill and remove, with its volumes
                }
            } catch (RuntimeException e) {
                log.warn("Could not remove the container of broker {}: {}", broker.id, e.toString());
            }
            broker.proxy.close();
        }
        try {
            network.close();
        } catch (RuntimeException e) {
            log.warn("Could not remove network of cluster {}: {}", name, e.toString());
        }
        log.info("Kafka cluster {} at {} stopped; container logs in {}", name, bootstrapServers(), clusterDir);
    }

    // ----------------------------------------------------------------------------------------
    // Docker plumbing

    private void killContainer(Broker broker) {
        if (broker.paused) {
            // Docker refuses to kill a paused container.
            docker().unpauseContainerCmd(broker.containerId()).exec();
            broker.paused = false;
        }
        if (isRunning(broker)) {
            docker().killContainerCmd(broker.containerId()).withSignal("SIGKILL").exec();
            awaitStopped(broker, Duration.ofSeconds(30));
        }
        broker.proxy.dropConnections();
    }

    private static boolean isRunning(Broker broker) {
        InspectContainerResponse.ContainerState state = docker().inspectContainerCmd(broker.containerId()).exec()
                .getState();
        return Boolean.TRUE.equals(state.getRunning());
    }

    private static void awaitStopped(Broker broker, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (isRunning(broker)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Container of broker " + broker.id + " still runs after docker kill");
            }
            sleep();
        }
    }

    private static void requireRunning(Broker broker) {
        if (!isRunning(broker)) {
            throw new IllegalStateException("Broker " + broker.id + " is not running");
        }
    }

    private static DockerClient docker() {
        return DockerClientFactory.instance().client();
    }

    /**
     * Where published ports are reached. A local engine publishes them on loopback (the ports are
     * bound to 127.0.0.1 explicitly), whatever Testcontainers believes: on a machine carrying
     * Docker's container marker file, it would name the bridge gateway instead. A remote engine
     * publishes them on its own address.
     */
    private static String dockerHost(boolean localEngine) {
        if (localEngine) {
            return LOOPBACK;
        }
        try {
            return DockerClientFactory.instance().dockerHostIpAddress();
        } catch (RuntimeException e) {
            throw new IllegalStateException("No Docker engine for the docker cluster backend (" + e.getMessage()
                    + "); run with -D" + ClusterBackend.PROPERTY + "=process to start brokers as processes", e);
        }
    }

    /** Each broker container's output so far (a restarted container keeps its earlier output). */
    @Override
    public String brokerLogText() {
        StringBuilder text = new StringBuilder();
        for (Broker broker : brokers) {
            try {
                text.append(broker.container.getLogs()).append('\n');
            } catch (RuntimeException e) {
                log.debug("Could not read the log of broker {}: {}", broker.id, e.toString());
            }
        }
        return text.toString();
    }

    /** The broker container's output so far (a restarted container keeps its earlier output). */
    @Override
    public String brokerLogText(int brokerId) {
        return broker(brokerId).container.getLogs();
    }

    private void saveLog(Broker broker) {
        Path file = clusterDir.resolve("broker-" + broker.id + ".log");
        try {
            Files.writeString(file, broker.container.getLogs(), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            log.debug("Could not save the log of broker {} to {}: {}", broker.id, file, e.toString());
        }
    }

    private String logTails() {
        return brokers.stream().map(b -> b.logTail(LOG_TAIL_LINES)).collect(Collectors.joining("\n"));
    }

    private static void sleep() {
        try {
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a Kafka container", e);
        }
    }

    // ----------------------------------------------------------------------------------------

    private Broker broker(int brokerId) {
        if (brokerId < 0 || brokerId >= brokers.size()) {
            throw new IllegalArgumentException("broker id must be between 0 and " + (brokers.size() - 1)
                    + ", got " + brokerId);
        }
        return brokers.get(brokerId);
    }

    private static void requireJar(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("Plugin jar " + jar.toAbsolutePath() + " does not exist");
        }
    }

    private static String clusterName() {
        return "kscale-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + "-" + ProcessHandle.current().pid() + "-"
                + Long.toHexString(System.nanoTime() & 0xffffff).toLowerCase(Locale.ROOT);
    }

    private static Path createDirectory(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create " + dir, e);
        }
    }

    /** One node: its fixed host port, its proxy and its container. */
    private static final class Broker implements ClusterProbe.ProbedBroker {
        final int id;
        /** The host address its port is published on; null for the engine's default. */
        final String bindAddress;
        final int hostPort;
        final LatencyProxy proxy;
        KafkaContainer container;
        boolean paused;

        Broker(int id, String bindAddress, int hostPort, LatencyProxy proxy) {
            this.id = id;
            this.bindAddress = bindAddress;
            this.hostPort = hostPort;
            this.proxy = proxy;
        }

        @Override
        public int id() {
            return id;
        }

        /** What clients are told: the proxy in this JVM. */
        @Override
        public String clientAddress() {
            return "127.0.0.1:" + proxy.port();
        }

        @Override
        public boolean isRunning() {
            return DockerKafkaCluster.isRunning(this);
        }

        @Override
        public String logTail(int lines) {
            try {
                List<String> all = container.getLogs().lines().collect(Collectors.toList());
                return "broker " + id + " log ends with:\n"
                        + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
            } catch (RuntimeException e) {
                return "(no log of broker " + id + ": " + e + ")";
            }
        }

        String containerId() {
            String id = container.getContainerId();
            if (id == null) {
                throw new IllegalStateException("The container of broker " + this.id + " was never created");
            }
            return id;
        }
    }

    /**
     * A {@link KafkaContainer} that advertises its {@code PLAINTEXT} listener at a given address
     * (the broker's proxy) instead of {@code <docker host>:<mapped port>}: KafkaContainer writes
     * {@link #getBootstrapServers()} into the starter script as {@code PLAINTEXT://...}.
     */
    private static final class ClientAddressKafkaContainer extends GatedStartKafkaContainer {
        private final String clientAddress;

        ClientAddressKafkaContainer(DockerImageName image, String clientAddress) {
            super(image);
            this.clientAddress = clientAddress;
        }

        @Override
        public String getBootstrapServers() {
            return clientAddress;
        }
    }
}
