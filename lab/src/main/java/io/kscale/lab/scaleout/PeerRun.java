package io.kscale.lab.scaleout;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scale-out scenario for one assignor, on its own input topic, application id and state
 * directories: preload, one instance catches up, a steady producer starts, more instances join;
 * sample once a second until the assignment is balanced and stable or the balance timeout passes;
 * stop the producer, let the instances drain, and check the counts.
 */
final class PeerRun {

    private static final Logger log = LoggerFactory.getLogger(PeerRun.class);
    private static final Duration CATCH_UP_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration BASELINE = Duration.ofSeconds(3);
    private static final long SAMPLE_MILLIS = 1000;

    private final ScaleOutPeer peer;
    private final ScaleOutSettings settings;
    private final Map<String, Object> clientProperties;
    private final String app;
    private final String topic;
    private final Path stateDirs;
    private final RestoreLog restores = new RestoreLog();
    private final List<ScaleOutInstance> instances = new ArrayList<>();
    private final List<Sample> timeline = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();
    private long lastSampleNanos;
    private long lastProcessed;
    private String lastShape = "";

    PeerRun(ScaleOutPeer peer, ScaleOutSettings settings, String runId, Map<String, Object> clientProperties) {
        this.peer = peer;
        this.settings = settings;
        this.clientProperties = clientProperties;
        this.app = "kscale-scale-out-" + runId + "-" + peer.cliName();
        this.topic = app + "-input";
        this.stateDirs = settings.workDir().resolve(app);
    }

    ScaleOutRun run() throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(clientProperties);
             PayloadProducer producer = new PayloadProducer(topic, settings.keys(), settings.valueBytes(),
                     app + "-producer", clientProperties)) {
            int replicas = createTopic(admin);
            long startNanos = System.nanoTime();
            producer.preload(settings.preloadRecords());
            log.info("{}: preloaded {} records into {} ({} partitions, replication {}) in {} s", peer.label(),
                    settings.preloadRecords(), topic, settings.partitions(), replicas, secondsSince(startNanos));
            Map<String, Object> streamsProperties = streamsProperties(replicas);
            startInstance(streamsProperties);
            awaitCaughtUp(admin, producer, CATCH_UP_TIMEOUT, "the first instance to process the preload");
            log.info("{}: phase 1 done: {} processed the preload in {} s", peer.label(), instances.get(0).name(),
                    secondsSince(startNanos));

            producer.startSteady(settings.recordsPerSecond());
            long origin = System.nanoTime() + BASELINE.toNanos();
            lastSampleNanos = System.nanoTime();
            lastProcessed = processed();
            while (System.nanoTime() < origin) {
                TimeUnit.MILLISECONDS.sleep(SAMPLE_MILLIS);
                sample(origin, producer);
            }
            int rebalancesBefore = instances.get(0).rebalances();
            for (int i = 1; i < settings.instances(); i++) {
                startInstance(streamsProperties);
            }
            log.info("{}: scale-out: {} instances join", peer.label(), settings.instances() - 1);
            Killed killed = settings.killWarmingInstance() ? killAWarmingInstance(origin, producer) : null;
            PartitionProgress progress = killed == null ? null : new PartitionProgress(killed.at, committed(admin));
            OptionalDouble balancedAfter = awaitBalance(origin, producer, admin, progress);
            List<Integer> finalActives = instances.stream().map(ScaleOutInstance::actives).collect(Collectors.toList());
            int rebalances = instances.get(0).rebalances() - rebalancesBefore;
            List<ActiveRestore> restored = restores.since(origin, System.nanoTime());
            int warmups = restores.standbyStartsSince(origin);

            producer.stop();
            try {
                awaitCaughtUp(admin, producer, DRAIN_TIMEOUT, "the instances to process every record");
            } catch (IllegalStateException e) {
                problems.add(e.getMessage());
            }
            CountCheck counts = checkCounts(producer.ackedPerKey());
            Optional<WarmupKill> kill = Optional.empty();
            if (killed != null) {
                CountCheck recount = checkCounts(InputRecount.countPerKey(clientProperties, topic, settings.partitions()));
                kill = Optional.of(new WarmupKill(killed.name, killed.standbys, killed.at, balancedAfter, progress,
                        restored, recount));
            }
            ScaleOutRun run = new ScaleOutRun(peer, settings.partitions(), settings.instances(),
                    settings.recordsPerSecond(), settings.acceptableRecoveryLag(),
                    settings.balanceTimeout().toMillis() / 1000.0, balancedAfter, finalActives, restored, warmups,
                    rebalances, counts, timeline, problems, kill);
            log.info("{}", run);
            return run;
        } finally {
            closeInstances();
            ScaleOutInstance.deleteRecursively(stateDirs);
        }
    }

    private Map<String, Object> streamsProperties(int replicas) {
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.put("application.id", app);
        props.put("group.protocol", "classic");
        // Exactly-once, so the final counts can be checked exactly; a commit a second rather than
        // every 100 ms (the exactly-once default) halves the time the first instance needs for
        // the preload on a loaded 2-core machine.
        props.put("processing.guarantee", "exactly_once_v2");
        props.put("commit.interval.ms", 1000);
        props.put("num.stream.threads", 1);
        props.put("num.standby.replicas", 0);
        props.put("replication.factor", replicas);
        props.put("acceptable.recovery.lag", settings.acceptableRecoveryLag());
        props.put("max.warmup.replicas", settings.maxWarmupReplicas());
        props.put("probing.rebalance.interval.ms", settings.probingInterval().toMillis());
        props.put("session.timeout.ms", (int) settings.sessionTimeout().toMillis());
        // a third of the session timeout, as Kafka advises (its default 3 s fits the 45 s default)
        props.put("heartbeat.interval.ms", (int) Math.min(3_000, settings.sessionTimeout().toMillis() / 3));
        if (settings.restoreRecordsPerSecond() > 0) {
            props.put("kscale.warmup.restore.records.per.second", settings.restoreRecordsPerSecond());
        }
        peer.taskAssignorClass().ifPresent(name -> props.put("task.assignor.class", name));
        return props;
    }

    private void startInstance(Map<String, Object> streamsProperties) {
        String name = "instance-" + instances.size();
        ScaleOutInstance instance = new ScaleOutInstance(name, topic, streamsProperties, stateDirs.resolve(name),
                restores);
        instances.add(instance);
        instance.start();
    }

    private int createTopic(Admin admin) throws InterruptedException, ExecutionException, TimeoutException {
        int brokers = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size();
        int replicas = Math.min(3, brokers);
        admin.createTopics(List.of(new NewTopic(topic, settings.partitions(), (short) replicas)))
                .all().get(30, TimeUnit.SECONDS);
        awaitLeaders(admin, replicas);
        return replicas;
    }

    /** Waits until every partition of the new topic has a leader and all its replicas in sync. */
    private void awaitLeaders(Admin admin, int replicas) throws InterruptedException, ExecutionException,
            TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try {
                TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                        .get(30, TimeUnit.SECONDS).get(topic);
                if (description.partitions().stream()
                        .allMatch(p -> p.leader() != null && p.isr().size() == replicas)) {
                    return;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new IllegalStateException(peer.label() + ": the partitions of " + topic + " have no leader after 30 s");
    }

    /** The instance killed during warmup: its name, its warmups then, and when (seconds since the scale-out). */
    private static final class Killed {
        final String name;
        final int standbys;
        final double at;

        Killed(String name, int standbys, double at) {
            this.name = name;
            this.standbys = standbys;
            this.at = at;
        }
    }

    /**
     * Samples once a second until a joining instance warms up copies (standbys and no active task),
     * then kills it ({@link ScaleOutInstance#kill}).
     *
     * @return the kill, or null (with a problem recorded) if no instance warmed up within the balance timeout
     */
    private Killed killAWarmingInstance(long origin, PayloadProducer producer) throws InterruptedException {
        long deadline = origin + settings.balanceTimeout().toNanos();
        while (System.nanoTime() < deadline && failure() == null) {
            TimeUnit.MILLISECONDS.sleep(SAMPLE_MILLIS);
            Sample sample = sample(origin, producer);
            for (ScaleOutInstance instance : instances.subList(1, instances.size())) {
                int standbys = instance.standbys();
                if (instance.state() == KafkaStreams.State.RUNNING && standbys > 0 && instance.actives() == 0) {
                    instance.kill();
                    log.info("{}: killed {} at {} s while it warmed up {} tasks ({})", peer.label(), instance.name(),
                            String.format("%.1f", sample.seconds()), standbys, sample);
                    return new Killed(instance.name(), standbys, (System.nanoTime() - origin) / 1e9);
                }
            }
        }
        problems.add("no joining instance warmed up a task to kill within " + settings.balanceTimeout().toSeconds() + " s");
        return null;
    }

    /**
     * Samples once a second until the assignment has been balanced for {@code stableFor}, or the
     * balance timeout passed, or an instance failed.
     *
     * @param progress if not null, records the committed offsets at each sample
     * @return seconds from the origin to the start of the balanced stretch, if there was one
     */
    private OptionalDouble awaitBalance(long origin, PayloadProducer producer, Admin admin, PartitionProgress progress)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = origin + settings.balanceTimeout().toNanos();
        long balancedSince = -1;
        while (true) {
            TimeUnit.MILLISECONDS.sleep(SAMPLE_MILLIS);
            long now = System.nanoTime();
            Sample sample = sample(origin, producer);
            if (progress != null) {
                progress.record(sample.seconds(), committed(admin));
            }
            String failure = failure();
            if (failure != null) {
                problems.add(failure);
                return OptionalDouble.empty();
            }
            if (!isBalanced(sample)) {
                balancedSince = -1;
            } else if (balancedSince < 0) {
                balancedSince = now;
            }
            if (balancedSince >= 0 && now - balancedSince >= settings.stableFor().toNanos()) {
                double after = (balancedSince - origin) / 1e9;
                log.info("{}: balanced after {} s: {}", peer.label(), String.format("%.1f", after), sample.actives());
                return OptionalDouble.of(after);
            }
            if (now > deadline) {
                String problem = String.format("not balanced within %d s: actives %s, standbys %s, %d restoring",
                        settings.balanceTimeout().toSeconds(), sample.actives(), sample.standbys(),
                        sample.restoringActives());
                log.info("{}: {}", peer.label(), problem);
                problems.add(problem);
                return OptionalDouble.empty();
            }
        }
    }

    /**
     * Balanced: every instance not killed runs, each has its share of the active tasks (the shares
     * differ by at most one), no warmup is left and no active task is restoring.
     */
    private boolean isBalanced(Sample sample) {
        boolean running = instances.stream().allMatch(i -> i.killed() || i.state() == KafkaStreams.State.RUNNING);
        List<Integer> live = new ArrayList<>();
        for (int i = 0; i < instances.size(); i++) {
            if (!instances.get(i).killed()) {
                live.add(sample.actives().get(i));
            }
        }
        int total = live.stream().mapToInt(Integer::intValue).sum();
        int most = live.stream().mapToInt(Integer::intValue).max().orElse(0);
        int least = live.stream().mapToInt(Integer::intValue).min().orElse(0);
        int standbys = sample.standbys().stream().mapToInt(Integer::intValue).sum();
        return running && total == settings.partitions() && most - least <= 1 && standbys == 0
                && sample.restoringActives() == 0;
    }

    private Sample sample(long origin, PayloadProducer producer) {
        long now = System.nanoTime();
        long processed = processed();
        double perSecond = (processed - lastProcessed) / Math.max(1e-3, (now - lastSampleNanos) / 1e9);
        lastSampleNanos = now;
        lastProcessed = processed;
        List<Integer> actives = new ArrayList<>();
        List<Integer> standbys = new ArrayList<>();
        for (int i = 0; i < settings.instances(); i++) {
            actives.add(i < instances.size() ? instances.get(i).actives() : 0);
            standbys.add(i < instances.size() ? instances.get(i).standbys() : 0);
        }
        Sample sample = new Sample((now - origin) / 1e9, actives, standbys, restores.restoring(), perSecond,
                Math.max(0, producer.acked() - processed));
        timeline.add(sample);
        String shape = actives + " " + standbys + " " + sample.restoringActives();
        if (!shape.equals(lastShape)) {
            lastShape = shape;
            log.info("{}: {}", peer.label(), sample);
        }
        return sample;
    }

    private long processed() {
        return instances.stream().mapToLong(ScaleOutInstance::processed).sum();
    }

    private String failure() {
        return instances.stream().map(ScaleOutInstance::failure).filter(f -> f != null).findFirst().orElse(null);
    }

    /**
     * Waits until the application's committed offsets reach the end of the input topic (with
     * exactly-once, a committed offset means the store's changes are committed too).
     *
     * @throws IllegalStateException on timeout or when an instance failed
     */
    private void awaitCaughtUp(Admin admin, PayloadProducer producer, Duration timeout, String what)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long lag = Long.MAX_VALUE;
        while (System.nanoTime() < deadline) {
            String failure = failure();
            if (failure != null) {
                throw new IllegalStateException(peer.label() + ": " + failure);
            }
            lag = lag(admin);
            if (lag == 0) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(500);
        }
        throw new IllegalStateException(String.format("%s: timed out after %d s waiting for %s; %d of %d records"
                + " not processed", peer.label(), timeout.toSeconds(), what, lag, producer.acked()));
    }

    /** @return the application's committed offset per input partition (0 for none yet) */
    private Map<Integer, Long> committed(Admin admin) throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(app)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        Map<Integer, Long> offsets = new HashMap<>();
        for (int p = 0; p < settings.partitions(); p++) {
            OffsetAndMetadata offset = committed.get(new TopicPartition(topic, p));
            offsets.put(p, offset == null ? 0 : offset.offset());
        }
        return offsets;
    }

    private long lag(Admin admin) throws InterruptedException, ExecutionException, TimeoutException {
        Map<Integer, Long> committed = committed(admin);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < settings.partitions(); p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all()
                .get(30, TimeUnit.SECONDS);
        long lag = 0;
        for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end : ends.entrySet()) {
            lag += end.getValue().offset() - committed.get(end.getKey().partition());
        }
        return lag;
    }

    /** Reads the active store of every instance not killed and compares each key's count with the expected one. */
    private CountCheck checkCounts(Map<String, Long> expected) throws InterruptedException {
        Map<String, Long> stored = new HashMap<>();
        int onTwo = 0;
        for (ScaleOutInstance instance : instances) {
            if (instance.killed()) {
                continue;
            }
            Map<String, Long> counts = query(instance);
            for (Map.Entry<String, Long> entry : counts.entrySet()) {
                if (stored.put(entry.getKey(), entry.getValue()) != null) {
                    onTwo++;
                }
            }
        }
        int wrong = 0;
        for (Map.Entry<String, Long> entry : expected.entrySet()) {
            if (!entry.getValue().equals(stored.get(entry.getKey()))) {
                wrong++;
            }
        }
        for (String key : stored.keySet()) {
            if (!expected.containsKey(key)) {
                wrong++;
            }
        }
        long sent = expected.values().stream().mapToLong(Long::longValue).sum();
        long counted = stored.values().stream().mapToLong(Long::longValue).sum();
        return new CountCheck(expected.size(), wrong, onTwo, sent, counted);
    }

    private Map<String, Long> query(ScaleOutInstance instance) throws InterruptedException {
        long deadline = System.nanoTime() + QUERY_TIMEOUT.toNanos();
        while (true) {
            try {
                return instance.storedCounts();
            } catch (InvalidStateStoreException e) {
                if (System.nanoTime() > deadline) {
                    problems.add(instance.name() + ": store not queryable after " + QUERY_TIMEOUT.toSeconds() + " s: "
                            + e.getMessage());
                    return Map.of();
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    /** Closes the instances side by side (each close may wait for its thread to finish a commit). */
    private void closeInstances() throws InterruptedException {
        List<Thread> closing = new ArrayList<>();
        for (ScaleOutInstance instance : instances) {
            Thread thread = new Thread(instance::close, "kscale-scale-out-close-" + instance.name());
            thread.start();
            closing.add(thread);
        }
        for (Thread thread : closing) {
            thread.join(60_000);
        }
    }

    private static String secondsSince(long startNanos) {
        return String.format("%.1f", (System.nanoTime() - startNanos) / 1e9);
    }
}
