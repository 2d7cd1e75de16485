package io.kscale.lab.expansion;

import io.kscale.assignor.KeyPreservingAssignorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SEP-5's problem on a real cluster: a producer writes numbered records for a fixed set of keys
 * while the topic grows (4 -> 8 -> 16 partitions by default), and a consumer group counts records
 * per key in each member's local state, as a stateful consumer would. A key whose records reach a
 * second member is split: that member starts counting it from zero, and the key's final count
 * comes out wrong. Then a member joins and one leaves, to check that every partition is owned
 * exactly once after each rebalance and no record is lost.
 *
 * <p>Each assignor gets its own topic and group, one after the other on the same cluster. The
 * lab prints the returned runs; the integration test asserts on them.
 */
public final class ExpansionScenario {

    private static final Logger log = LoggerFactory.getLogger(ExpansionScenario.class);
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(90);

    private final ExpansionSettings settings;

    public ExpansionScenario(ExpansionSettings settings) {
        this.settings = settings;
    }

    /**
     * Runs every assignor of the settings on a cluster.
     *
     * @param clientProperties connection settings of the cluster (bootstrap servers, security)
     * @return one run per assignor, in the order of the settings
     */
    public List<ExpansionRun> runOn(Map<String, Object> clientProperties) {
        String runId = Long.toString(System.currentTimeMillis(), 36);
        List<ExpansionRun> runs = new ArrayList<>();
        for (ExpansionPeer peer : settings.peers()) {
            String topic = "kscale-expansion-" + runId + "-" + peer.cliName();
            runs.add(run(peer, topic, clientProperties));
        }
        return runs;
    }

    private ExpansionRun run(ExpansionPeer peer, String topic, Map<String, Object> clientProperties) {
        List<Integer> steps = settings.partitionSteps();
        log.info("{}: topic {} grows through {} partitions, members on {}", peer.label(), topic, steps,
                settings.memberCommand().map(MemberCommand::label).orElse("KafkaConsumer"));
        try (Admin admin = Admin.create(clientProperties)) {
            createTopic(admin, topic, steps.get(0));
            CountingGroup group = new CountingGroup(peer, topic, "kscale-expansion-" + topic, clientProperties,
                    settings.memberCommand());
            KeyedSequenceProducer producer = new KeyedSequenceProducer(topic, settings.keys(),
                    settings.recordsPerSecond(), clientProperties);
            List<String> ownershipProblems = new ArrayList<>();
            try {
                for (int i = 0; i < settings.members(); i++) {
                    group.addMember();
                }
                awaitSettled(group, topic, steps.get(0), ownershipProblems, "start");
                producer.start();
                for (int step = 1; step < steps.size(); step++) {
                    producer.awaitSent(settings.recordsPerStep() * step);
                    admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(steps.get(step))))
                            .all().get(30, TimeUnit.SECONDS);
                    log.info("{}: {} grew to {} partitions", peer.label(), topic, steps.get(step));
                    if (settings.joinAtGrowth() && step == steps.size() - 1) {
                        // In the same rebalance as the growth, where it can: a task that grows may move too.
                        group.addMember();
                        log.info("{}: a member joined as the topic grew", peer.label());
                    }
                    producer.awaitPartitions(steps.get(step));
                    awaitSettled(group, topic, steps.get(step), ownershipProblems, "after growing to " + steps.get(step));
                }
                producer.awaitSent(settings.recordsPerStep() * steps.size());
                producer.stop();
                int partitions = steps.get(steps.size() - 1);
                awaitConsumed(group, producer);
                KeyOutcome keys = KeyOutcome.of(group.members(), producer.sentPerKey());
                OrderOutcome tailingOrder = OrderOutcome.of(group.order());
                OrderOutcome catchUpOrder = catchUp(peer, topic, steps.get(0), clientProperties, producer);

                group.addMember();
                awaitSettled(group, topic, partitions, ownershipProblems, "after a member joined");
                group.removeFirstMember();
                awaitSettled(group, topic, partitions, ownershipProblems, "after a member left");
                long sentBeforeChurn = producer.sent();
                producer.start();
                producer.awaitSent(sentBeforeChurn + settings.recordsPerStep());
                producer.stop();
                awaitConsumed(group, producer);
                return new ExpansionRun(peer, steps, keys, producer.sent(), group.distinctRecords(),
                        group.missing(producer.sentPerKey()), tailingOrder, catchUpOrder, ownershipProblems,
                        group.timeline().splitTasks(steps.get(0)), group.rebalances());
            } finally {
                producer.close();
                group.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not run the expansion scenario for " + peer.label() + ": " + e, e);
        }
    }

    /**
     * A second group reads the whole grown topic from the start, as a new application or a
     * rebuilt one would. Under the classic protocol it must declare the topic's original task
     * count: a group that first sees the topic at its final count would take that count as T, and
     * its tasks would have one partition each, so nothing would keep a key's old and new
     * partitions together. The broker-side assignor shares each topic's T with every group.
     */
    private OrderOutcome catchUp(ExpansionPeer peer, String topic, int taskCount, Map<String, Object> clientProperties,
                                 KeyedSequenceProducer producer) throws InterruptedException {
        Map<String, Object> consumerProperties = new HashMap<>(clientProperties);
        if (!peer.isServerSide()) {
            // On the broker, T is kept per topic id for every group: nothing to declare there.
            consumerProperties.put(KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG, topic + ":" + taskCount);
        }
        try (CountingGroup catchingUp = new CountingGroup(peer, topic, "kscale-catch-up-" + topic, consumerProperties,
                settings.memberCommand())) {
            for (int i = 0; i < settings.members(); i++) {
                catchingUp.addMember();
            }
            awaitConsumed(catchingUp, producer);
            OrderOutcome order = OrderOutcome.of(catchingUp.order());
            log.info("{}: a new group read the whole topic: {}", peer.label(), order);
            return order;
        }
    }

    static void createTopic(Admin admin, String topic, int partitions)
            throws InterruptedException, ExecutionException, TimeoutException {
        int brokers = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size();
        short replicas = (short) Math.min(3, brokers);
        admin.createTopics(List.of(new NewTopic(topic, partitions, replicas))).all().get(30, TimeUnit.SECONDS);
    }

    /**
     * Waits until the members together own every partition of the topic exactly once and no
     * member is in the middle of a rebalance; records a problem if a partition is owned twice at
     * that point.
     */
    static void awaitSettled(CountingGroup group, String topic, int partitions, List<String> problems,
                                     String when) throws InterruptedException {
        Set<TopicPartition> all = new HashSet<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(topic, p));
        }
        await(() -> group.isSettled() && group.ownedPartitions().equals(all), SETTLE_TIMEOUT,
                () -> "the group to own all " + partitions + " partitions " + when + "; owns " + group.ownership());
        Optional<String> twice = group.partitionOwnedTwice();
        twice.ifPresent(problem -> problems.add(when + ": " + problem));
        log.info("Settled {}: {}", when, group.ownership());
    }

    static void awaitConsumed(CountingGroup group, KeyedSequenceProducer producer) throws InterruptedException {
        await(() -> group.distinctRecords() >= producer.sent(), SETTLE_TIMEOUT,
                () -> "the group to consume all " + producer.sent() + " records; has " + group.distinctRecords());
    }

    static void await(BooleanSupplier condition, Duration timeout, java.util.function.Supplier<String> what)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for " + what.get());
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }
}
