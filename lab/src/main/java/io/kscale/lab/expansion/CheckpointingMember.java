package io.kscale.lab.expansion;

import io.kscale.assignor.ExpansionBarrier;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.JMException;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member of the faulted expansion's group: a stateful consumer that survives its own crash. It
 * counts records per key in the state of the key's task (task t holds the partitions p with
 * p % T == t, T the topic's first partition count) and commits each task's counts together with
 * the task's offsets, as the offset metadata of the task's first partition. One OffsetCommit
 * request is written at once, so committed counts always match committed offsets: whoever gets a
 * task next restores its counts from there and resumes at those offsets, and the records after
 * them, delivered again, are counted once. Uncommitted work goes with a member that dies: a crashed
 * member commits nothing, and a frozen one's commits are refused once the group has moved on.
 *
 * <p>Polls through {@link ExpansionBarrier}, commits after each poll that counted something (and
 * again until a commit is accepted), and in {@code onPartitionsRevoked}. Faults, each applied by
 * the member's own thread: {@link #freeze()} stops polling right after counting a batch, before
 * committing it, until {@link #resume()}; {@link #crash()} stops right after counting a batch and
 * closes the consumer without committing, asking it to remain in the group
 * ({@code CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP}), as {@code kill -9} would leave it.
 * On the classic protocol the coordinator then notices at {@code session.timeout.ms}. On the
 * consumer protocol a dynamic member cannot remain: Kafka's consumer still runs
 * {@code onPartitionsRevoked} (which does nothing here once crashed) and sends its leave heartbeat
 * (member epoch -1), so the coordinator reassigns its partitions at once; the brokers'
 * {@code group.consumer.session.timeout.ms} only bounds the case where that heartbeat is lost.
 *
 * <p>Both group protocols: the member speaks its peer's ({@link ExpansionPeer#consumerSettings()}),
 * uses no userData and no {@code enforceRebalance}, and its callbacks, commits and state work the
 * same under both. Classic only: the count of assignments it computed as the group's leader
 * ({@link #ledAtNanos()}), read from kscale's classic assignor; the consumer protocol has no
 * leader (the brokers assign), and there the member reports when it last got new partitions
 * instead ({@link #assignedAtNanos()}). On the consumer protocol a commit the coordinator refuses
 * comes as {@code CommitFailedException} too: unknown member id once the member was removed (the
 * frozen member's, after {@code max.poll.interval.ms}), or a stale member epoch.
 *
 * <p>Partitions announced by {@code onPartitionsAssigned} are restored and owned once the poll
 * returns, and only if the consumer's {@code assignment()} holds them then and no
 * {@code onPartitionsLost} came in between ({@link #staleAssignedPartitions()} counts the others):
 * on the consumer protocol, Kafka 4.4.0's consumer announces to a member that exceeded
 * {@code max.poll.interval.ms} partitions it never assigns and never revokes.
 */
final class CheckpointingMember implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CheckpointingMember.class);

    private final String id;
    private final String clientId;
    private final String topic;
    private final int taskCount;
    private final TaskLineage lineage;
    private final KafkaConsumer<String, byte[]> consumer;
    private final ExpansionBarrier<String, byte[]> barrier;
    private final Thread thread;
    private final boolean serverSide;

    // Confined to the member's thread.
    private final Map<Integer, TaskCopy> tasks = new HashMap<>();
    private final Map<TopicPartition, Long> positions = new HashMap<>();
    // Announced by onPartitionsAssigned, restored after the poll that announced them returns.
    private final Set<TopicPartition> announced = new HashSet<>();
    private int copies;
    private double assignmentsLed;

    // Read by the scenario.
    private final Set<TopicPartition> owned = ConcurrentHashMap.newKeySet();
    private volatile Set<TopicPartition> consumerAssignment = Set.of();
    private final AtomicLong lostPartitions = new AtomicLong();
    private final AtomicLong refusedCommits = new AtomicLong();
    private final AtomicLong staleAssignedPartitions = new AtomicLong();
    private volatile long lastRebalanceNanos = System.nanoTime();
    private volatile long ledAtNanos = -1;
    private volatile long assignedAtNanos = -1;
    private volatile boolean frozenOnce;
    private volatile boolean assignedOnce;
    private volatile boolean running = true;
    private volatile boolean crashRequested;
    private volatile boolean crashed;
    private volatile CountDownLatch freezeLatch;
    private volatile boolean frozen;
    private volatile Throwable failure;

    /**
     * @param consumerProperties connection settings plus the group's consumer settings
     */
    CheckpointingMember(String id, String topic, int taskCount, String groupId, ExpansionPeer peer,
                        Map<String, Object> consumerProperties, TaskLineage lineage) {
        this.id = id;
        this.clientId = groupId + "-" + id;
        this.topic = topic;
        this.taskCount = taskCount;
        this.lineage = lineage;
        this.serverSide = peer.isServerSide();
        Map<String, Object> props = new HashMap<>(consumerProperties);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.putAll(peer.consumerSettings());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 500);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
        this.consumer = new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer());
        this.barrier = ExpansionBarrier.wrap(consumer, props);
        this.thread = new Thread(this::consume, "kscale-faulted-expansion-" + id);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void consume() {
        try {
            consumer.subscribe(Set.of(topic), new Listener());
            while (running) {
                ConsumerRecords<String, byte[]> records = barrier.poll(Duration.ofMillis(100));
                takeAnnounced();
                consumerAssignment = Set.copyOf(consumer.assignment());
                for (ConsumerRecord<String, byte[]> record : records) {
                    count(record);
                }
                if (!records.isEmpty() && crashRequested) {
                    crashed = true;
                    return;
                }
                if (!records.isEmpty() && freezeLatch != null) {
                    frozen = true;
                    frozenOnce = true;
                    log.info("{} frozen with {} records counted and not committed", id, records.count());
                    freezeLatch.await();
                    frozen = false;
                    log.info("{} resumed", id);
                }
                commitDirty();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure = e;
            log.error("{} failed", id, e);
        } finally {
            // Before the consumer closes: its barrier's metrics go with it.
            lineage.barrierCounted(barrierMetric("out-of-order-records-total"));
            lineage.barrierReleasedWithoutTaskCount(barrierMetric("unknown-task-count-releases-total"));
            if (crashed) {
                // No LeaveGroup, no commit (the listener does nothing once crashed).
                consumer.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                        .withTimeout(Duration.ZERO));
            } else {
                consumer.close(Duration.ofSeconds(30));
            }
            barrier.close();
        }
    }

    /**
     * One of the barrier's metrics ({@code out-of-order-records-total},
     * {@code unknown-task-count-releases-total}), read as an operator would, from JMX
     * ({@code kscale.assignor:type=expansion-barrier,client-id=...}); 0 if it is not there.
     */
    private long barrierMetric(String metric) {
        try {
            ObjectName name = new ObjectName("kscale.assignor:type=expansion-barrier,client-id=" + clientId);
            Object value = ManagementFactory.getPlatformMBeanServer().getAttribute(name, metric);
            return value instanceof Number ? ((Number) value).longValue() : 0;
        } catch (JMException e) {
            log.warn("{}: the barrier's {} could not be read from JMX: {}", id, metric, e.toString());
            return 0;
        }
    }

    private void count(ConsumerRecord<String, byte[]> record) {
        int task = record.partition() % taskCount;
        TaskCopy copy = tasks.get(task);
        if (copy == null) {
            lineage.problem(id + " got " + record.topic() + "-" + record.partition() + " of task " + task
                    + ", which it does not hold");
            return;
        }
        long sequence = ByteBuffer.wrap(record.value()).getLong();
        long[] state = copy.counts.computeIfAbsent(record.key(), k -> new long[] {0, -1});
        boolean inOrder = sequence == state[1] + 1;
        state[0]++;
        state[1] = Math.max(state[1], sequence);
        copy.dirty = true;
        positions.put(new TopicPartition(record.topic(), record.partition()), record.offset() + 1);
        lineage.delivered(record.key(), sequence, inOrder);
    }

    private void commitDirty() {
        Set<Integer> dirty = new HashSet<>();
        tasks.forEach((task, copy) -> {
            if (copy.dirty) {
                dirty.add(task);
            }
        });
        if (!dirty.isEmpty()) {
            commit(dirty);
        }
    }

    /**
     * Commits the tasks' counts with the offsets of their partitions that this member owns. A
     * refused commit leaves the counts dirty: retried after the next poll, or dropped with the
     * partitions if they were lost.
     */
    private void commit(Set<Integer> taskIds) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int task : taskIds) {
            TaskCopy copy = tasks.get(task);
            TopicPartition first = new TopicPartition(topic, task);
            if (!positions.containsKey(first)) {
                // Another member has the task's first partition: the task is split, and this copy's
                // counts have nowhere to go; its offsets are committed all the same.
                lineage.splitTask(task, id + " holds task " + task + " without its partition " + first);
            }
            for (Map.Entry<TopicPartition, Long> position : positions.entrySet()) {
                TopicPartition partition = position.getKey();
                if (partition.partition() % taskCount == task) {
                    String metadata = partition.equals(first) ? new TaskSnapshot(copy.name, copy.counts).encode() : "";
                    offsets.put(partition, new OffsetAndMetadata(position.getValue(), metadata));
                }
            }
        }
        if (offsets.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(offsets);
            for (int task : taskIds) {
                TaskCopy copy = tasks.get(task);
                copy.dirty = false;
                lineage.committed(task, copy.name);
            }
        } catch (RebalanceInProgressException e) {
            // Cooperative: the member keeps its partitions through the rebalance and commits after it.
            log.debug("{}: commit of tasks {} waits for the rebalance", id, taskIds);
        } catch (CommitFailedException | RetriableException e) {
            if (frozenOnce) {
                refusedCommits.incrementAndGet();
            }
            log.info("{}: commit of tasks {} refused: {}", id, taskIds, e.toString());
        }
    }

    /**
     * Takes the partitions that {@code onPartitionsAssigned} announced during the last poll and
     * that the consumer's {@code assignment()} still holds now that the poll returned: restores
     * their tasks and owns them. The others are dropped (see {@link Listener#onPartitionsAssigned}).
     */
    private void takeAnnounced() {
        if (announced.isEmpty()) {
            return;
        }
        Set<TopicPartition> assignment = consumer.assignment();
        Set<TopicPartition> kept = new HashSet<>();
        Set<TopicPartition> dropped = new HashSet<>();
        for (TopicPartition partition : announced) {
            (assignment.contains(partition) ? kept : dropped).add(partition);
        }
        announced.clear();
        dropStale(dropped, "the consumer's assignment() " + sorted(assignment) + " does not have them after the poll");
        restore(kept);
        owned.addAll(kept);
    }

    private void dropStale(Set<TopicPartition> dropped, String why) {
        if (!dropped.isEmpty()) {
            staleAssignedPartitions.addAndGet(dropped.size());
            log.warn("{}: onPartitionsAssigned announced {} and the consumer did not assign them ({}); ignored",
                    id, sorted(dropped), why);
        }
    }

    /** Reads the committed offsets and counts of newly owned partitions and tasks. */
    private void restore(Collection<TopicPartition> partitions) {
        Set<TopicPartition> toRead = new HashSet<>(partitions);
        Set<Integer> newTasks = new HashSet<>();
        for (TopicPartition partition : partitions) {
            int task = partition.partition() % taskCount;
            if (!tasks.containsKey(task)) {
                newTasks.add(task);
                toRead.add(new TopicPartition(topic, task));
            }
        }
        Map<TopicPartition, OffsetAndMetadata> committed = committed(toRead);
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata offset = committed.get(partition);
            positions.put(partition, offset == null ? 0L : offset.offset());
        }
        for (int task : newTasks) {
            OffsetAndMetadata first = committed.get(new TopicPartition(topic, task));
            TaskSnapshot snapshot = TaskSnapshot.decode(first == null ? null : first.metadata());
            TaskCopy copy = new TaskCopy(id + "#" + ++copies, snapshot.counts());
            tasks.put(task, copy);
            lineage.restored(task, copy.name, snapshot.writer());
            log.info("{}: task {} restored as {} from {} ({} keys)", id, task, copy.name,
                    snapshot.writer().orElse("nothing"), copy.counts.size());
        }
    }

    /** Committed offsets, asked again while a broker that the request needs is down. */
    private Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
        for (int attempt = 1; ; attempt++) {
            try {
                return consumer.committed(partitions, Duration.ofSeconds(30));
            } catch (TimeoutException e) {
                if (attempt == 4) {
                    throw e;
                }
                log.info("{}: reading committed offsets timed out, again", id);
            }
        }
    }

    /** Forgets partitions, and the state of each task of which it owns no partition any more. */
    private void forget(Collection<TopicPartition> partitions) {
        owned.removeAll(partitions);
        partitions.forEach(positions::remove);
        tasks.keySet().removeIf(task -> positions.keySet().stream().noneMatch(p -> p.partition() % taskCount == task));
    }

    private static String sorted(Collection<TopicPartition> partitions) {
        return partitions.stream().sorted(Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition)).map(TopicPartition::toString).toList().toString();
    }

    /** Reads this member's {@code assignments-total} from JMX: it grows with each assignment it computes as leader. */
    private double assignmentsLed() {
        try {
            // The client id has only letters, digits and dashes, which JMX takes unquoted.
            ObjectName name = new ObjectName("kscale.assignor:type=key-preserving-assignor,client-id=" + clientId);
            return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(name, "assignments-total")).doubleValue();
        } catch (JMException e) {
            return 0; // not registered: this member never led
        }
    }

    String id() {
        return id;
    }

    Set<TopicPartition> owned() {
        return Set.copyOf(owned);
    }

    /** @return the consumer's own {@code assignment()} after its last poll, beside what its callbacks said ({@link #owned()}) */
    Set<TopicPartition> consumerAssignment() {
        return consumerAssignment;
    }

    /** Assigned at least once, not frozen, and no rebalance callback for a second. */
    boolean isSettled() {
        checkFailure();
        return assignedOnce && !frozen && System.nanoTime() - lastRebalanceNanos > 1_000_000_000L;
    }

    /**
     * @return when this member last computed an assignment as the group's leader (nanoTime), or -1;
     *     classic protocol with kscale's assignor only (always -1 on the consumer protocol)
     */
    long ledAtNanos() {
        return ledAtNanos;
    }

    /** @return when this member was last given partitions it did not have (nanoTime), or -1 */
    long assignedAtNanos() {
        return assignedAtNanos;
    }

    long lostPartitions() {
        return lostPartitions.get();
    }

    /**
     * @return partitions {@code onPartitionsAssigned} announced that the consumer did not assign:
     *     not in its {@code assignment()} during the callback or after the poll, or followed by an
     *     {@code onPartitionsLost} that did not name them; this member ignored them
     */
    long staleAssignedPartitions() {
        return staleAssignedPartitions.get();
    }

    /** @return commits the group refused this member since it first froze (0 if it never froze) */
    long refusedCommits() {
        return refusedCommits.get();
    }

    boolean isFrozen() {
        return frozen;
    }

    /** Asks the member to stop polling after its next batch, before committing it. */
    void freeze() {
        freezeLatch = new CountDownLatch(1);
    }

    void resume() {
        CountDownLatch latch = freezeLatch;
        freezeLatch = null;
        if (latch != null) {
            latch.countDown();
        }
    }

    /** Asks the member to die after its next batch: no commit, no LeaveGroup. */
    void crash() {
        crashRequested = true;
    }

    boolean hasCrashed() {
        return crashed && !thread.isAlive();
    }

    void checkFailure() {
        if (failure != null) {
            throw new IllegalStateException("member " + id + " failed: " + failure, failure);
        }
    }

    @Override
    public void close() {
        running = false;
        resume();
        try {
            thread.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One copy of a task's state: the counts, and whether some are not committed yet. */
    private static final class TaskCopy {
        final String name;
        final Map<String, long[]> counts;
        boolean dirty;

        TaskCopy(String name, Map<String, long[]> counts) {
            this.name = name;
            this.counts = counts;
        }
    }

    private final class Listener implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (crashed || partitions.isEmpty()) {
                return;
            }
            Set<Integer> revokedTasks = new HashSet<>();
            partitions.forEach(p -> revokedTasks.add(p.partition() % taskCount));
            revokedTasks.retainAll(tasks.keySet());
            announced.removeAll(partitions);
            commit(revokedTasks);
            forget(partitions);
            touched();
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (crashed) {
                return;
            }
            // The member takes announced partitions only once the poll returns, and only those that
            // are then in the consumer's assignment() and were not lost in between: the consumer's
            // own record of what it owns. Kafka 4.4.0's consumer on group.protocol=consumer breaks
            // the callbacks' account for a member that exceeded max.poll.interval.ms: partitions
            // the coordinator gave it while it was not polling still come to onPartitionsAssigned
            // when it polls again (the consumer logs "Interrupting reconciliation that is not
            // relevant anymore because the member already transitioned out of the reconciling state
            // into STALE"), with the consumer's assignment() holding them while the callback runs;
            // then onPartitionsLost comes for the partitions it had before only, the consumer
            // drops them all from assignment(), and no onPartitionsRevoked or onPartitionsLost ever
            // comes for the announced ones. Restored in the callback, they would leave this member
            // holding a task that another member owns and counts. In a normal reconciliation, on
            // either protocol, the added partitions are in assignment() when this callback runs
            // and after the poll.
            Set<TopicPartition> assignment = consumer.assignment();
            Set<TopicPartition> notAssigned = new HashSet<>();
            for (TopicPartition partition : partitions) {
                (assignment.contains(partition) ? announced : notAssigned).add(partition);
            }
            dropStale(notAssigned, "not in the consumer's assignment() " + sorted(assignment) + " during the callback");
            if (!partitions.isEmpty()) {
                assignedAtNanos = System.nanoTime();
            }
            if (!serverSide) {
                double led = assignmentsLed();
                if (led > assignmentsLed) {
                    assignmentsLed = led;
                    ledAtNanos = System.nanoTime();
                }
            }
            assignedOnce = true;
            touched();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            if (crashed) {
                return;
            }
            lostPartitions.addAndGet(partitions.size());
            log.info("{} lost {}", id, partitions);
            // The member lost its membership, and with it whatever was announced and not taken yet.
            Set<TopicPartition> stale = new HashSet<>(announced);
            announced.clear();
            stale.removeAll(partitions);
            dropStale(stale, "onPartitionsLost came for " + sorted(partitions) + " only");
            forget(partitions);
            touched();
        }

        private void touched() {
            lastRebalanceNanos = System.nanoTime();
        }
    }
}
