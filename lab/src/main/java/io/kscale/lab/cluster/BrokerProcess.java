package io.kscale.lab.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One KRaft node (broker and controller in one JVM) of a {@link ProcessKafkaCluster}: its ports,
 * files, latency proxy and, while it runs, its child process.
 *
 * <p>Listeners: clients reach the node through {@code EXTERNAL}, which is advertised at the port
 * of a {@link LatencyProxy}; brokers replicate over {@code INTERNAL} and the controllers talk
 * over {@code CONTROLLER}, both direct, so an added delay slows clients only.
 */
final class BrokerProcess implements ClusterProbe.ProbedBroker {

    private static final Logger log = LoggerFactory.getLogger(BrokerProcess.class);

    private static final String LOG4J2 = String.join("\n",
            "rootLogger.level=INFO",
            "rootLogger.appenderRef.out.ref=out",
            "appender.out.type=Console",
            "appender.out.name=out",
            "appender.out.layout.type=PatternLayout",
            "appender.out.layout.pattern=[%d] %p %m (%c)%n",
            "logger.state.name=state.change.logger",
            "logger.state.level=WARN",
            "");

    final int id;
    final Path dir;
    final int externalPort;
    final int internalPort;
    final int controllerPort;
    final LatencyProxy proxy;
    private Process process;
    private boolean paused;
    /** The command lines of the processes launched for this node, as the OS showed them. */
    private final List<String> commandLines = new CopyOnWriteArrayList<>();

    private BrokerProcess(int id, Path dir, int[] ports, LatencyProxy proxy) {
        this.id = id;
        this.dir = dir;
        this.externalPort = ports[0];
        this.internalPort = ports[1];
        this.controllerPort = ports[2];
        this.proxy = proxy;
    }

    /** Reserves ports and the proxy for node {@code id}; starts nothing yet. */
    static BrokerProcess allocate(int id, Path clusterDir) throws IOException {
        int[] ports = freeLoopbackPorts(3);
        LatencyProxy proxy = new LatencyProxy("broker-" + id,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), ports[0]));
        Path dir = PrivateFiles.createDirectory(clusterDir.resolve("broker-" + id));
        return new BrokerProcess(id, dir, ports, proxy);
    }

    @Override
    public int id() {
        return id;
    }

    /** Clients reach the broker through its proxy. */
    @Override
    public String clientAddress() {
        return "127.0.0.1:" + proxy.port();
    }

    String controllerVoter() {
        return id + "@127.0.0.1:" + controllerPort;
    }

    Path logFile() {
        return dir.resolve("broker.log");
    }

    Path dataDir() {
        return dir.resolve("data");
    }

    /**
     * Writes server.properties: the cluster's settings (overrides included), then the node's own.
     * Mode 0600: on a secured cluster it holds the keystore and truststore passwords.
     *
     * @param protocolMap the {@code listener.security.protocol.map} of the three listeners
     */
    void writeConfig(String quorumVoters, Map<String, String> clusterSettings, String protocolMap) {
        Properties props = new Properties();
        props.putAll(clusterSettings);
        props.put("process.roles", "broker,controller");
        props.put("node.id", Integer.toString(id));
        props.put("controller.quorum.voters", quorumVoters);
        props.put("listeners", "EXTERNAL://127.0.0.1:" + externalPort + ",INTERNAL://127.0.0.1:" + internalPort
                + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", "EXTERNAL://" + clientAddress() + ",INTERNAL://127.0.0.1:" + internalPort);
        props.put("listener.security.protocol.map", protocolMap);
        props.put("inter.broker.listener.name", "INTERNAL");
        props.put("controller.listener.names", "CONTROLLER");
        props.put("log.dirs", dataDir().toAbsolutePath().toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            props.store(out, "kscale broker " + id); // ISO 8859-1 with escapes, as Kafka loads it
            PrivateFiles.write(dir.resolve("server.properties"), out.toByteArray());
            Files.writeString(dir.resolve("log4j2.properties"), LOG4J2);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs kafka-storage format for this node and waits for it.
     *
     * @param extraArgs more format options, e.g. {@code @file} naming a file of them (one a
     *                  line): never a secret, which every user could read on the command line
     */
    void format(String classpath, String clusterId, String heap, List<String> extraArgs) {
        List<String> args = new ArrayList<>(List.of("kafka.tools.StorageTool", "format", "-t", clusterId, "-c",
                configFile()));
        args.addAll(extraArgs);
        Process format = launch(classpath, heap, dir.resolve("format.log"), args);
        try {
            if (!format.waitFor(2, TimeUnit.MINUTES) || format.exitValue() != 0) {
                format.destroyForcibly();
                throw new IllegalStateException("Formatting broker " + id + " failed; see " + dir.resolve("format.log"));
            }
        } catch (InterruptedException e) {
            format.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while formatting broker " + id, e);
        }
    }

    synchronized void start(String classpath, String heap) {
        if (isRunning()) {
            throw new IllegalStateException("Broker " + id + " is already running");
        }
        process = launch(classpath, heap, logFile(), List.of("kafka.Kafka", configFile()));
        paused = false;
    }

    @Override
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    synchronized long pid() {
        if (process == null) {
            throw new IllegalStateException("Broker " + id + " was never started");
        }
        return process.pid();
    }

    /** SIGSTOP, then wait until the kernel reports the process stopped, so a caller sees it frozen. */
    synchronized void pause() {
        requireRunning();
        if (!Signals.send("STOP", process.pid())) {
            throw new IllegalStateException("Could not pause broker " + id);
        }
        paused = true;
        awaitFrozen(process.pid(), Duration.ofSeconds(10));
    }

    /**
     * A stop signal is delivered asynchronously: right after {@code kill -STOP} the JVM's threads
     * may still be running (a test read state R there once). Waits for state T in
     * {@code /proc/<pid>/stat}; where there is no {@code /proc}, returns at once.
     */
    private void awaitFrozen(long pid, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            for (char state = stateLetter(pid); state != 0; state = stateLetter(pid)) {
                if (isStopped(state) || System.nanoTime() > deadline) {
                    if (!isStopped(state)) {
                        log.warn("Broker {} (pid {}) is not reported stopped {} after SIGSTOP (state {})", id, pid,
                                timeout, state);
                    }
                    return;
                }
                Thread.sleep(5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the kernel reports the broker's process stopped (state T), as SIGSTOP leaves it. */
    synchronized boolean isFrozen() {
        return process != null && isStopped(stateLetter(process.pid()));
    }

    private static boolean isStopped(char state) {
        return state == 'T' || state == 't';
    }

    /**
     * The state letter of {@code /proc/<pid>/stat} (R, S, D, T, Z...), or 0 when the process is
     * gone or there is no {@code /proc}.
     */
    private static char stateLetter(long pid) {
        try {
            String line = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return line.charAt(line.lastIndexOf(')') + 2);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    synchronized void resume() {
        requireRunning();
        if (!Signals.send("CONT", process.pid())) {
            throw new IllegalStateException("Could not resume broker " + id);
        }
        paused = false;
    }

    /** kill -9, then wait for the process to be gone; connections through the proxy are dropped. */
    synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(30));
        paused = false;
        proxy.dropConnections();
    }

    /**
     * Stops the broker cleanly (SIGTERM), killing it after {@code timeout}, and drops the
     * connections through its proxy, so that clients reconnect to it once it runs again.
     */
    void stop(Duration timeout) {
        requestStop();
        awaitStopped(timeout);
        proxy.dropConnections();
    }

    /** Asks the broker to shut down (SIGTERM); {@link #awaitStopped} waits for it. */
    synchronized void requestStop() {
        if (isRunning()) {
            if (paused) {
                Signals.send("CONT", process.pid());
                paused = false;
            }
            // Not Process.destroy(): it also closes the child's stdin, and BrokerMain would
            // take that for a dead parent and halt before Kafka's own clean shutdown ran.
            Signals.send("TERM", process.pid());
        }
    }

    /** Waits up to {@code timeout} for the process to exit, then kills it. */
    void awaitStopped(Duration timeout) {
        Process current;
        synchronized (this) {
            current = process;
        }
        if (current == null) {
            return;
        }
        try {
            if (!current.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                current.destroyForcibly();
                current.waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            current.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(logFile(), StandardCharsets.UTF_8);
            return logFile() + " ends with:\n" + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private void requireRunning() {
        if (!isRunning()) {
            throw new IllegalStateException("Broker " + id + " is not running");
        }
    }

    private void awaitExit(Duration timeout) {
        try {
            process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String configFile() {
        return dir.resolve("server.properties").toAbsolutePath().toString();
    }

    /**
     * Starts {@code io.kscale.broker.BrokerMain <main class> args} in a new JVM. Its standard input
     * stays an open pipe to this process: the child halts when this JVM dies.
     */
    private Process launch(String classpath, String heap, Path log, List<String> mainAndArgs) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms64m");
        command.add("-Xmx" + heap);
        // Serial GC and C1 only: brokers here carry test loads, and the machine has few cores
        // shared by several brokers and the clients; these start faster and burn less CPU.
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Djava.awt.headless=true");
        command.add("-Dlog4j2.configurationFile=" + dir.resolve("log4j2.properties").toAbsolutePath());
        command.add(OrphanReaper.ownerOption());
        command.add("-cp");
        command.add(classpath);
        command.add("io.kscale.broker.BrokerMain");
        command.addAll(mainAndArgs);
        Process started;
        try {
            started = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start a JVM for broker " + id, e);
        }
        commandLines.add(commandLine(started.pid(), command));
        return started;
    }

    /** The command lines of the processes launched for this node (see {@link ProcessKafkaCluster#commandLines()}). */
    List<String> commandLines() {
        return List.copyOf(commandLines);
    }

    /**
     * What every user sees as the process's command line: {@code /proc/<pid>/cmdline} (start()
     * returns after the exec), else the arguments given.
     */
    private static String commandLine(long pid, List<String> command) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            if (raw.length > 0) {
                return new String(raw, StandardCharsets.UTF_8).replace('\0', ' ').trim();
            }
        } catch (IOException | RuntimeException e) {
            // gone already, or no /proc
        }
        return String.join(" ", command);
    }

    private static int[] freeLoopbackPorts(int count) throws IOException {
        try (HostPorts ports = HostPorts.reserve(InetAddress.getLoopbackAddress(), count)) {
            return ports.ports().stream().mapToInt(Integer::intValue).toArray();
        }
    }
}
