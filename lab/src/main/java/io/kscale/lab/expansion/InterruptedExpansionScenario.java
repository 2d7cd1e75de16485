package io.kscale.lab.expansion;

import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.cluster.ServerAssignorPlugin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether an assignor keeps each topic's task count T through what wipes every memory of it but
 * a durable one ({@link Interruption}): the whole group leaving and coming back, every broker
 * restarting, the topic deleted and re-created. One assignor and one interruption per run, on
 * its own topic and group, on a cluster whose brokers the run may restart.
 *
 * <p>The story, with the defaults (3 members, 200 keys):
 * <ol>
 *   <li>The topic starts at 4 partitions and grows to 8 while the producer writes and the group
 *       counts per key ({@code before}).</li>
 *   <li>The producer stops, the group consumes everything, and the interruption happens.</li>
 *   <li>The producer writes again and the topic grows to 12 ({@code after}): a multiple of the
 *       first count, 4, but not of 8. A key-preserving assignor that kept T = 4 moves no key; one
 *       that lost T and took it from the partition count (8) moves a third of them to the task of
 *       another partition, where they are split.</li>
 * </ol>
 * For {@link Interruption#TOPIC_RECREATED} the new topic has 5 partitions and grows to 10: the new
 * topic's T is 5, so no key moves; an assignor that kept the deleted topic's T (4) by name moves
 * keys at 10. For {@link Interruption#MIGRATION} the growth before runs with kscale's classic
 * assignor and the growth after with the broker-side peer: the broker side must find T = 4 where
 * the classic side left it.
 *
 * <p>Why Kafka's {@code uniform} must split keys here (the control), for the 200 keys
 * {@code key-0 .. key-199} under murmur2:
 * <ul>
 *   <li>8 -> 12: a key's partitions at 8 and at 12 follow from {@code hash % 24}. For each r &lt; 4,
 *       the keys with {@code hash % 24} in {12 + r, 16 + r} move between partitions r and r + 4
 *       (11 to 22 keys per r, 11 for r = 2). The 3 members own 3, 3 and 2 of the 8 partitions, and
 *       an odd count means some pair r, r + 4 has two owners; uniform keeps old partitions where
 *       they are when the count grows, so those keys are split: at least 11.</li>
 *   <li>5 -> 10: partition 5 + r takes the keys of r with {@code hash % 10 == 5 + r} (15 to 26
 *       keys). The members own 2, 2 and 1, then 4, 3 and 3, so a member with two parents keeps at
 *       most one child of them: at least 15 keys split.</li>
 * </ul>
 */
public final class InterruptedExpansionScenario {

    private static final Logger log = LoggerFactory.getLogger(InterruptedExpansionScenario.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    /** Partition counts before the interruption: 4 -> 8. */
    public static final List<Integer> STEPS_BEFORE = List.of(4, 8);
    /** The count the topic grows to after the interruption: a multiple of 4, not of 8. */
    public static final int COUNT_AFTER = 12;
    /** The re-created topic's count, and what it grows to. */
    public static final int RECREATED_COUNT = 5;
    public static final int RECREATED_COUNT_AFTER = 10;

    private final ExpansionSettings settings;

    /** Uses the members, keys, rate and records per step of {@code settings}; its peers and steps are ignored. */
    public InterruptedExpansionScenario(ExpansionSettings settings) {
        this.settings = settings;
    }

    /**
     * @throws IllegalArgumentException for {@link Interruption#MIGRATION} with a classic peer: the
     *     migration goes from kscale's classic assignor to {@code peer} on the consumer protocol
     */
    public InterruptedExpansionRun run(KafkaCluster cluster, ExpansionPeer peer, Interruption interruption) {
        if (interruption == Interruption.MIGRATION && !peer.isServerSide()) {
            throw new IllegalArgumentException("a migration goes from kscale's classic assignor to a broker-side one, not to "
                    + peer.cliName());
        }
        Map<String, Object> clientProperties = cluster.clientProperties();
        String topic = "kscale-interrupted-" + Long.toString(System.currentTimeMillis(), 36) + "-" + peer.cliName()
                + "-" + interruption.cliName();
        String groupId = "kscale-interrupted-" + topic;
        List<String> problems = new ArrayList<>();
        try (Admin admin = Admin.create(clientProperties)) {
            ExpansionScenario.createTopic(admin, topic, STEPS_BEFORE.get(0));
            ExpansionPeer peerBefore = interruption == Interruption.MIGRATION ? ExpansionPeer.KSCALE : peer;
            CountingGroup first = new CountingGroup(peerBefore, topic, groupId, clientProperties);
            KeyedSequenceProducer producer = producer(topic, clientProperties);
            CountingGroup group = first;
            KeyedSequenceProducer writing = producer;
            try {
                startMembers(first, topic, STEPS_BEFORE.get(0), problems);
                grow(admin, first, producer, topic, STEPS_BEFORE, problems);
                KeyOutcome before = KeyOutcome.of(first.members(), producer.sentPerKey());
                log.info("{}: before the {}: {}", peerBefore.label(), interruption.label(), before);

                Map<String, Long> baseline = Map.of();
                int countNow = STEPS_BEFORE.get(STEPS_BEFORE.size() - 1);
                int countAfter = COUNT_AFTER;
                switch (interruption) {
                    case GROUP_RESTART:
                    case MIGRATION:
                        baseline = producer.sentPerKey();
                        group = restartGroup(admin, first, groupId, peer);
                        startMembers(group, topic, countNow, problems);
                        break;
                    case BROKER_RESTART:
                        restartEveryBroker(cluster);
                        ExpansionScenario.awaitSettled(first, topic, countNow, problems, "after every broker restarted");
                        break;
                    case TOPIC_RECREATED:
                        first.removeAllMembers();
                        awaitEmpty(admin, groupId);
                        producer.close();
                        recreateTopic(admin, topic, RECREATED_COUNT);
                        countNow = RECREATED_COUNT;
                        countAfter = RECREATED_COUNT_AFTER;
                        group = new CountingGroup(peer, topic, groupId, clientProperties);
                        writing = producer(topic, clientProperties);
                        startMembers(group, topic, countNow, problems);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown interruption " + interruption);
                }
                grow(admin, group, writing, topic, List.of(countNow, countAfter), problems);
                KeyOutcome after = KeyOutcome.of(group.members(), since(baseline, writing.sentPerKey()));
                long missing = interruption == Interruption.TOPIC_RECREATED
                        ? first.missing(producer.sentPerKey()) + group.missing(writing.sentPerKey())
                        : group.missing(writing.sentPerKey());
                long sent = interruption == Interruption.TOPIC_RECREATED ? producer.sent() + writing.sent() : writing.sent();
                String path = ExpansionReport.path(STEPS_BEFORE) + " | " + interruption.label() + " | " + countNow
                        + "->" + countAfter;
                InterruptedExpansionRun run = new InterruptedExpansionRun(peer, peerBefore, interruption, path, before,
                        after, sent, missing, problems);
                log.info("{}", run);
                return run;
            } finally {
                writing.close();
                producer.close();
                group.close();
                first.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not run the " + interruption.label() + " scenario for "
                    + peer.label() + ": " + e, e);
        }
    }

    private KeyedSequenceProducer producer(String topic, Map<String, Object> clientProperties) {
        return new KeyedSequenceProducer(topic, settings.keys(), settings.recordsPerSecond(), clientProperties);
    }

    private void startMembers(CountingGroup group, String topic, int partitions, List<String> problems)
            throws InterruptedException {
        for (int i = 0; i < settings.members(); i++) {
            group.addMember();
        }
        ExpansionScenario.awaitSettled(group, topic, partitions, problems, "at " + partitions + " partitions");
    }

    /**
     * From {@code steps[0]}, which the topic has: writes a step's records at each count, grows to
     * the next, and finally waits until the group has consumed everything.
     */
    private void grow(Admin admin, CountingGroup group, KeyedSequenceProducer producer, String topic,
                      List<Integer> steps, List<String> problems)
            throws InterruptedException, ExecutionException, TimeoutException {
        long start = producer.sent();
        producer.start();
        for (int step = 1; step < steps.size(); step++) {
            producer.awaitSent(start + settings.recordsPerStep() * step);
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(steps.get(step)))).all().get(30, TimeUnit.SECONDS);
            producer.awaitPartitions(steps.get(step));
            ExpansionScenario.awaitSettled(group, topic, steps.get(step), problems, "after growing to " + steps.get(step));
        }
        producer.awaitSent(start + settings.recordsPerStep() * steps.size());
        producer.stop();
        ExpansionScenario.awaitConsumed(group, producer);
    }

    private static CountingGroup restartGroup(Admin admin, CountingGroup group, String groupId, ExpansionPeer peer)
            throws InterruptedException {
        group.removeAllMembers();
        awaitEmpty(admin, groupId);
        return group.nextGeneration(peer);
    }

    /** Waits until the coordinator has seen every member leave: the group is empty, its target gone. */
    private static void awaitEmpty(Admin admin, String groupId) throws InterruptedException {
        ExpansionScenario.await(() -> groupState(admin, groupId) == GroupState.EMPTY, TIMEOUT,
                () -> "group " + groupId + " to be empty; is " + groupState(admin, groupId));
    }

    private static GroupState groupState(Admin admin, String groupId) {
        try {
            return admin.describeConsumerGroups(List.of(groupId)).describedGroups().get(groupId)
                    .get(10, TimeUnit.SECONDS).groupState();
        } catch (ExecutionException | TimeoutException e) {
            return GroupState.UNKNOWN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return GroupState.UNKNOWN;
        }
    }

    /**
     * Restarts every broker at once (each is killed, then started on its data) and returns when
     * all are registered again: no broker's memory, and no coordinator, outlives it.
     */
    private static void restartEveryBroker(KafkaCluster cluster) throws InterruptedException {
        long loadedBefore = taskCountStoreLoads(cluster);
        CompletableFuture.allOf(cluster.brokerIds().stream()
                .map(broker -> CompletableFuture.runAsync(() -> cluster.restart(broker)))
                .toArray(CompletableFuture[]::new)).join();
        log.info("Every broker restarted: {}", cluster.brokerIds());
        if (loadedBefore > 0) {
            // A broker-side assignor holds a topic while its store loads, and a held group gets
            // its full assignment only at the group's next change (docs/server-assignor.md, Held
            // topics): growing the topic before the coordinator's store has loaded would leave
            // the new partitions unassigned, which is that documented limit, not what this
            // interruption tests. So, as an operator would watch the brokers' logs, wait for
            // every broker's store.
            ExpansionScenario.await(() -> taskCountStoreLoads(cluster) >= loadedBefore + cluster.brokerCount(), TIMEOUT,
                    () -> "the task count store of every restarted broker to load");
        }
    }

    /** @return how often the brokers' logs say a task count store loaded */
    private static long taskCountStoreLoads(KafkaCluster cluster) {
        String text = cluster.brokerLogText();
        long loads = 0;
        String loaded = ServerAssignorPlugin.STORE_LOADED_LINE;
        for (int at = text.indexOf(loaded); at >= 0; at = text.indexOf(loaded, at + 1)) {
            loads++;
        }
        return loads;
    }

    private static void recreateTopic(Admin admin, String topic, int partitions)
            throws InterruptedException, ExecutionException, TimeoutException {
        admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        ExpansionScenario.await(() -> !topics(admin).contains(topic), TIMEOUT, () -> "topic " + topic + " to be deleted");
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            try {
                ExpansionScenario.createTopic(admin, topic, partitions);
                return;
            } catch (ExecutionException e) {
                // The controller may still be removing the old topic's partitions.
                if (!(e.getCause() instanceof TopicExistsException) || System.nanoTime() > deadline) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    private static Set<String> topics(Admin admin) {
        try {
            return admin.listTopics().names().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return Set.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Set.of();
        }
    }

    /** Records acknowledged per key since {@code baseline}. */
    private static Map<String, Long> since(Map<String, Long> baseline, Map<String, Long> now) {
        Map<String, Long> delta = new HashMap<>();
        now.forEach((key, count) -> {
            long since = count - baseline.getOrDefault(key, 0L);
            if (since > 0) {
                delta.put(key, since);
            }
        });
        return delta;
    }
}
