package io.kscale.lab.expansion;

import io.kscale.assignor.ExpansionBarrierConfig;
import io.kscale.lab.cluster.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The expansion scenario with faults, on the lab's own cluster (it kills brokers): a producer
 * writes numbered records for 200 keys while the topic grows 4 -> 8 -> 16 partitions, and a group
 * of 3 {@link CheckpointingMember}s counts them per key, each task's counts committed with its
 * offsets. The faults, in this order:
 * <ol>
 *   <li>4 -> 8: right after the partitions are added, {@code kill -9} of the broker that leads
 *       partition 0; once the group has settled on 8 partitions without it, the broker restarts;</li>
 *   <li>8 -> 16: one member freezes (stops polling, with counted records not committed) and
 *       another crashes (no commit); then the partitions are added. On the classic protocol the
 *       one that crashes is the group's leader, the member that computes assignments, and it
 *       sends no LeaveGroup; on the consumer protocol (KIP-848) the brokers assign and there is
 *       no leader, so it is the member that most recently got new partitions, and its close
 *       still sends the leave heartbeat (a dynamic member cannot remain in the group there; see
 *       {@link CheckpointingMember}). The group goes on without both, its last member alone, once
 *       the coordinator has removed them (the crashed one: on the classic protocol at
 *       {@code session.timeout.ms}, 6 s; on the consumer protocol at once, or at the brokers'
 *       {@code group.consumer.session.timeout.ms}, 6 s with {@link #CONSUMER_PROTOCOL_BROKER_SETTINGS},
 *       if the leave is lost; the frozen one, whose heartbeat thread lives on, at
 *       {@code max.poll.interval.ms}, 15 s, after which that thread leaves the group). On the
 *       classic protocol a new leader notices the expansion; on the consumer protocol the
 *       coordinator does, and it may give the frozen member new partitions before it leaves;</li>
 *   <li>then the frozen member resumes (its commit is refused, its partitions are lost, it joins
 *       again) and a new member starts in place of the crashed one.</li>
 * </ol>
 * Every wait is for a condition, bounded generously; the keys and their order are fixed.
 *
 * <p>On the consumer protocol ({@link ExpansionPeer#isServerSide()}: {@code group.protocol=consumer}
 * and {@code group.remote.assignor}) the cluster must offer the peer's assignor
 * ({@link io.kscale.lab.cluster.ServerAssignorPlugin}) and take
 * {@link #CONSUMER_PROTOCOL_BROKER_SETTINGS}; the members set none of the classic protocol's
 * settings ({@code session.timeout.ms}, {@code heartbeat.interval.ms},
 * {@code partition.assignment.strategy}), which that protocol's consumer refuses. They poll through
 * {@link io.kscale.assignor.ExpansionBarrier} there too, which reads each topic's T from the
 * brokers' task count topic and holds a partition back until it has it; the run reports the
 * partitions it released unmerged for want of T. Whether a new leader took over is not a question
 * there ({@link FaultedExpansionRun#newLeaderAfterKill()} is empty).
 *
 * <p>What it measures: keys split (a task's state forked: two members counted it side by side;
 * or a task's partitions owned by two members once the group settled), keys whose committed count
 * differs from the records acknowledged to the producer, records never delivered, and records
 * delivered again (allowed: after a crash or freeze the uncommitted ones come again, and are
 * counted once because counts and offsets are committed together), and the partitions that
 * {@code onPartitionsAssigned} announced to a member without its consumer assigning them, which the
 * members ignore ({@link FaultedExpansionRun#staleAssignedPartitions()}).
 */
public final class FaultedExpansionScenario {

    private static final Logger log = LoggerFactory.getLogger(FaultedExpansionScenario.class);
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(120);
    private static final int SESSION_TIMEOUT_MS = 6_000;
    private static final int MAX_POLL_INTERVAL_MS = 15_000;

    /**
     * Broker settings for the scenario on the consumer protocol: a session of 6 s, as the classic
     * members set theirs ({@code group.consumer.session.timeout.ms}, and the minimum the brokers
     * allow, 45 s by default), which bounds a member that stops heartbeating without leaving; and
     * heartbeats every 500 ms ({@link io.kscale.lab.cluster.ServerAssignorPlugin#FAST_HEARTBEATS}).
     */
    public static final Map<String, String> CONSUMER_PROTOCOL_BROKER_SETTINGS = Map.of(
            "group.consumer.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS),
            "group.consumer.min.session.timeout.ms", Integer.toString(SESSION_TIMEOUT_MS),
            "group.consumer.min.heartbeat.interval.ms", "500",
            "group.consumer.heartbeat.interval.ms", "500");

    private final ExpansionSettings settings;

    /**
     * @param settings three partition steps, each a multiple of the first; the first peer is run,
     *     on its group protocol (the group's members poll through the barrier whatever the peer)
     */
    public FaultedExpansionScenario(ExpansionSettings settings) {
        if (settings.partitionSteps().size() != 3) {
            throw new IllegalArgumentException("the faulted expansion takes three partition counts, got "
                    + settings.partitionSteps());
        }
        this.settings = settings;
    }

    public FaultedExpansionRun runOn(KafkaCluster cluster) {
        ExpansionPeer peer = settings.peers().get(0);
        List<Integer> steps = settings.partitionSteps();
        int taskCount = steps.get(0);
        String topic = "kscale-faulted-expansion-" + Long.toString(System.currentTimeMillis(), 36) + "-" + peer.cliName();
        String groupId = "kscale-faulted-" + topic;
        Map<String, Object> clientProperties = cluster.clientProperties();
        Map<String, Object> consumerProperties = new HashMap<>(clientProperties);
        if (!peer.isServerSide()) {
            // The consumer protocol's session and heartbeats are the brokers' (CONSUMER_PROTOCOL_BROKER_SETTINGS).
            consumerProperties.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_TIMEOUT_MS);
            consumerProperties.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
        }
        consumerProperties.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, MAX_POLL_INTERVAL_MS);
        settings.barrierGrace().ifPresent(grace -> {
            consumerProperties.put(ExpansionBarrierConfig.GRACE_MS_CONFIG, grace.toMillis());
            consumerProperties.put(ExpansionBarrierConfig.MAX_HOLD_MS_CONFIG,
                    Math.max(ExpansionBarrierConfig.MAX_HOLD_MS_DEFAULT, grace.toMillis()));
        });
        TaskLineage lineage = new TaskLineage();
        List<CheckpointingMember> live = new ArrayList<>();
        // Every member started, the killed one too: the run sums their ignored stale partitions.
        List<CheckpointingMember> everyMember = new ArrayList<>();
        List<String> faults = new ArrayList<>();
        long started = System.nanoTime();
        int[] nextId = {0};
        Supplier<CheckpointingMember> newMember = () -> {
            CheckpointingMember member = new CheckpointingMember("member-" + nextId[0]++, topic, taskCount, groupId,
                    peer, consumerProperties, lineage);
            everyMember.add(member);
            return member;
        };
        log.info("{}: topic {} grows through {} partitions while brokers and members fail", peer.label(), topic, steps);
        try (Admin admin = Admin.create(clientProperties);
             KeyedSequenceProducer producer = new KeyedSequenceProducer(topic, settings.keys(),
                     settings.recordsPerSecond(), clientProperties)) {
            createTopic(admin, topic, steps.get(0));
            try {
                for (int i = 0; i < settings.members(); i++) {
                    live.add(newMember.get());
                }
                awaitSettled(live, topic, steps.get(0), taskCount, lineage, "at the start");
                producer.start();

                // 4 -> 8, the leader of partition 0 killed.
                producer.awaitSent(settings.recordsPerStep());
                int broker = leaderOf(admin, topic, 0);
                grow(admin, topic, steps.get(1));
                cluster.kill(broker);
                faults.add(String.format("%.1f s: kill -9 of broker %d, leader of partition 0, right after growing to %d",
                        seconds(started), broker, steps.get(1)));
                log.info("{}", faults.get(faults.size() - 1));
                producer.awaitPartitions(steps.get(1));
                awaitSettled(live, topic, steps.get(1), taskCount, lineage, "after growing to " + steps.get(1)
                        + " with broker " + broker + " down");
                producer.awaitSent(producer.sent() + settings.recordsPerStep());
                cluster.restart(broker);
                faults.add(String.format("%.1f s: broker %d restarted", seconds(started), broker));

                // 8 -> 16, a member frozen and the group leader (consumer protocol: the member last
                // given new partitions) killed.
                CheckpointingMember leader = peer.isServerSide() ? lastAssigned(live) : currentLeader(live);
                CheckpointingMember frozen = live.stream().filter(member -> member != leader).findFirst().orElseThrow();
                long leaderKilledAt = System.nanoTime();
                frozen.freeze();
                leader.crash();
                await(() -> frozen.isFrozen() && leader.hasCrashed(), SETTLE_TIMEOUT,
                        () -> "the member to freeze and the leader to crash");
                live.remove(leader);
                faults.add(String.format("%.1f s: %s (%s) killed, %s frozen with records not committed",
                        seconds(started), leader.id(), peer.isServerSide()
                                ? "the member last given new partitions; the consumer protocol has no group leader,"
                                        + " and its close still sent the leave heartbeat"
                                : "the group leader", frozen.id()));
                log.info("{}", faults.get(faults.size() - 1));
                grow(admin, topic, steps.get(2));
                producer.awaitPartitions(steps.get(2));
                List<CheckpointingMember> others = new ArrayList<>(live);
                others.remove(frozen);
                awaitSettled(others, topic, steps.get(2), taskCount, lineage, "after growing to " + steps.get(2)
                        + " without " + leader.id() + " and " + frozen.id());
                // The consumer protocol has no leader: the coordinator assigns.
                Optional<Boolean> newLeader = peer.isServerSide() ? Optional.empty()
                        : Optional.of(others.stream().anyMatch(member -> member.ledAtNanos() > leaderKilledAt));
                frozen.resume();
                faults.add(String.format("%.1f s: %s resumed", seconds(started), frozen.id()));
                live.add(newMember.get());
                awaitSettled(live, topic, steps.get(2), taskCount, lineage, "after " + frozen.id() + " resumed and a member joined");
                producer.awaitSent(producer.sent() + settings.recordsPerStep());
                producer.stop();

                try {
                    awaitCommitted(admin, groupId, topic, steps.get(2), live);
                } catch (IllegalStateException e) {
                    // Reported with the counts as they stand, which then come out wrong.
                    lineage.problem(e.getMessage());
                }
                // Closed before the run is read: each member adds its barrier's counts as it closes.
                live.forEach(CheckpointingMember::close);
                Map<Integer, TaskSnapshot> snapshots = snapshots(admin, groupId, topic, taskCount);
                return FaultedExpansionRun.of(peer, steps, producer.sentPerKey(), snapshots, lineage, faults,
                        newLeader, frozen.lostPartitions(), frozen.refusedCommits(),
                        everyMember.stream().mapToLong(CheckpointingMember::staleAssignedPartitions).sum(),
                        seconds(started));
            } finally {
                live.forEach(CheckpointingMember::close);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not run the faulted expansion for " + peer.label() + ": " + e, e);
        }
    }

    /**
     * The member that computed the latest assignment, as kscale's assignor counts it; with another
     * assignor (no such count) the first member, and the run then reports no new leader.
     */
    private static CheckpointingMember currentLeader(List<CheckpointingMember> members) {
        return members.stream().filter(member -> member.ledAtNanos() >= 0)
                .max(Comparator.comparingLong(CheckpointingMember::ledAtNanos))
                .orElseGet(() -> {
                    log.warn("No member reports leading the group (not kscale's assignor?); killing {} instead",
                            members.get(0).id());
                    return members.get(0);
                });
    }

    /**
     * On the consumer protocol, which has no group leader: the member that was most recently given
     * partitions it did not have (after the growth to 8, the last to take its new ones).
     */
    private static CheckpointingMember lastAssigned(List<CheckpointingMember> members) {
        return members.stream().max(Comparator.comparingLong(CheckpointingMember::assignedAtNanos)).orElseThrow();
    }

    private static double seconds(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1e9;
    }

    private static void createTopic(Admin admin, String topic, int partitions)
            throws InterruptedException, ExecutionException, TimeoutException {
        int brokers = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size();
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) Math.min(3, brokers))))
                .all().get(60, TimeUnit.SECONDS);
    }

    /** Grows the topic; a broker that just restarted may not count as available yet, so it asks again. */
    private static void grow(Admin admin, String topic, int partitions) throws InterruptedException {
        long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
        while (true) {
            try {
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(partitions))).all().get(60, TimeUnit.SECONDS);
                log.info("{} grew to {} partitions", topic, partitions);
                return;
            } catch (ExecutionException | TimeoutException e) {
                boolean brokersShort = e.getCause() instanceof InvalidReplicationFactorException;
                if (!brokersShort || System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not grow " + topic + " to " + partitions + ": " + e, e);
                }
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
    }

    private static int leaderOf(Admin admin, String topic, int partition)
            throws InterruptedException, ExecutionException, TimeoutException {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .partitions().get(partition).leader().id();
    }

    /**
     * Waits until the members together own every partition exactly once and none is in a
     * rebalance; records a problem for each partition owned twice and each task whose partitions
     * are owned by two members at that point.
     */
    private static void awaitSettled(List<CheckpointingMember> members, String topic, int partitions, int taskCount,
                                     TaskLineage lineage, String when) throws InterruptedException {
        Set<TopicPartition> all = new HashSet<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(topic, p));
        }
        await(() -> members.stream().allMatch(CheckpointingMember::isSettled) && owned(members).equals(all),
                SETTLE_TIMEOUT, () -> "the group to own all " + partitions + " partitions " + when + "; owns "
                        + members.stream().map(m -> m.id() + "=" + m.owned().size()).collect(Collectors.joining(", ")));
        Map<TopicPartition, String> partitionOwner = new HashMap<>();
        Map<Integer, String> taskOwner = new HashMap<>();
        for (CheckpointingMember member : members) {
            for (TopicPartition partition : member.owned()) {
                String other = partitionOwner.put(partition, member.id());
                if (other != null) {
                    CheckpointingMember first = members.stream().filter(m -> m.id().equals(other)).findFirst().orElseThrow();
                    lineage.problem(when + ": " + partition + " owned by " + other + " and " + member.id()
                            + " (in the consumer's own assignment(): " + other + " "
                            + first.consumerAssignment().contains(partition) + ", " + member.id() + " "
                            + member.consumerAssignment().contains(partition) + ")");
                }
                String taskOther = taskOwner.put(partition.partition() % taskCount, member.id());
                if (taskOther != null && !taskOther.equals(member.id())) {
                    lineage.splitTask(partition.partition() % taskCount, when + ": task " + partition.partition() % taskCount
                            + " split between " + taskOther + " and " + member.id());
                }
            }
        }
        log.info("Settled {}: {}", when, members.stream().map(m -> m.id() + "=" + m.owned().size())
                .collect(Collectors.joining(", ")));
        log.info("Settled {}: {}", when, members.stream().map(m -> m.id() + " owns " + sorted(m.owned())
                + " (its consumer's assignment() " + sorted(m.consumerAssignment()) + ")").collect(Collectors.joining("; ")));
    }

    private static List<Integer> sorted(Set<TopicPartition> partitions) {
        return partitions.stream().map(TopicPartition::partition).sorted().collect(Collectors.toList());
    }

    private static Set<TopicPartition> owned(List<CheckpointingMember> members) {
        Set<TopicPartition> owned = new HashSet<>();
        members.forEach(member -> owned.addAll(member.owned()));
        return owned;
    }

    /** Waits until the group has committed every partition to its end, so the committed counts are final. */
    private static void awaitCommitted(Admin admin, String groupId, String topic, int partitions,
                                       List<CheckpointingMember> members) throws InterruptedException {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        await(() -> {
            members.forEach(CheckpointingMember::checkFailure);
            try {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(groupId)
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                var ends = admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS);
                return latest.keySet().stream().allMatch(p -> committed.get(p) != null
                        && committed.get(p).offset() == ends.get(p).offset());
            } catch (ExecutionException | TimeoutException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return true;
            }
        }, SETTLE_TIMEOUT, () -> "the group to commit every partition of " + topic + " to its end");
    }

    private static Map<Integer, TaskSnapshot> snapshots(Admin admin, String groupId, String topic, int taskCount)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(groupId)
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
        Map<Integer, TaskSnapshot> snapshots = new HashMap<>();
        for (int task = 0; task < taskCount; task++) {
            OffsetAndMetadata first = committed.get(new TopicPartition(topic, task));
            snapshots.put(task, TaskSnapshot.decode(first == null ? null : first.metadata()));
        }
        return snapshots;
    }

    private static void await(java.util.function.BooleanSupplier condition, Duration timeout, Supplier<String> what)
            throws InterruptedException {
        ExpansionScenario.await(condition, timeout, what);
    }
}
