package io.kscale.assignor.internals.barrier;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The event-time merge of one task's partitions on one consumer, for the expansion barrier:
 * which of the records at hand may go now, in which order, and where each partition stops.
 *
 * <p>Each partition brings a queue: the records fetched now, or those the barrier buffered from
 * an earlier fetch (a partition with a buffer is paused, so it never brings both), each queue
 * with the time it was fetched. The rule: a record with timestamp {@code ts} from partition
 * {@code p} goes only when every other partition {@code q} of the task has <em>passed</em>
 * {@code ts}: the head of {@code q}'s queue or its last delivered record is later than
 * {@code ts}, or {@code q} is caught up ({@code currentLag} 0) and {@code ts <= now - grace}. At
 * equal timestamps the lower partition goes first: a key only ever moves to a higher partition
 * ({@code c % n == p} with {@code c >= n > p}), so a sibling above {@code p} has passed
 * {@code ts} when it stands at {@code ts}, one below has not. Records go in ascending
 * {@code (timestamp, partition)} order of the queues' heads; a partition whose head cannot go is
 * stopped there (a {@link Hold}, carrying the rest of its queue for the barrier to buffer), and
 * its head still counts for its siblings.
 *
 * <p>Two bounds let a record go although a sibling {@code q} has not passed it (a
 * {@link Release}, with its {@link ReleaseCause}); a sibling with a record at hand is never
 * skipped, since its head goes first:
 * <ul>
 *   <li>{@code q} is caught up and {@code fetchedAt <= now - grace}, where {@code fetchedAt} is
 *       when the record was fetched: grace counts from {@code min(ts, fetchedAt)}, so a record
 *       stamped in the future waits grace like any other instead of until the clock reaches its
 *       stamp. For the same reason a delivered record's timestamp counts as at most its fetch
 *       time.</li>
 *   <li>{@code q} is behind (records left to read, or lag unknown) and has brought nothing to
 *       any merge for {@code maxHold} ({@link PartitionClock#observe}). A sibling that keeps
 *       bringing records is not skipped however long its backlog takes.</li>
 * </ul>
 * Worked example, grace 1 s, max hold 30 s: partition 1's leader goes offline at 10:00:00 (lag
 * unknown) and partition 5 fetches a record stamped 10:00:02. It waits: 1 may hold older
 * records. At 10:00:30, 30 s after the first merge that saw 1 behind with nothing, it goes
 * (UNKNOWN_SIBLING_LAG), and so does every later record of 5 at once, until 1 brings a record or
 * is caught up again.
 */
public final class TaskMerge {

    /** A partition the merge stopped at a record: its undelivered records, the stopped one first. */
    public static final class Hold<K, V> {
        public final PartitionClock clock;
        public final List<ConsumerRecord<K, V>> rest;
        public final TopicPartition waitingFor;

        public Hold(PartitionClock clock, List<ConsumerRecord<K, V>> rest, TopicPartition waitingFor) {
            this.clock = clock;
            this.rest = rest;
            this.waitingFor = waitingFor;
        }

        /** @return the record the partition stopped at */
        public ConsumerRecord<K, V> record() {
            return rest.get(0);
        }
    }

    /** The first record of a partition that a bound let go in one merge, and why. */
    public static final class Release {
        public final TopicPartition partition;
        public final long offset;
        public final long timestamp;
        public final long fetchedAt;
        /** A sibling that had not passed the record. */
        public final TopicPartition sibling;
        public final ReleaseCause cause;

        public Release(TopicPartition partition, long offset, long timestamp, long fetchedAt, TopicPartition sibling,
                ReleaseCause cause) {
            this.partition = partition;
            this.offset = offset;
            this.timestamp = timestamp;
            this.fetchedAt = fetchedAt;
            this.sibling = sibling;
            this.cause = cause;
        }
    }

    /**
     * Records of one partition that one merge delivered after a sibling had delivered a later
     * one: how many, the first of them, and the sibling with the latest such record.
     */
    public static final class OutOfOrder {
        public final TopicPartition partition;
        public final long records;
        public final long firstOffset;
        public final long firstTimestamp;
        public final TopicPartition sibling;
        /** The latest timestamp the sibling had delivered when the first of them went. */
        public final long siblingTimestamp;

        OutOfOrder(TopicPartition partition, long records, long firstOffset, long firstTimestamp,
                TopicPartition sibling, long siblingTimestamp) {
            this.partition = partition;
            this.records = records;
            this.firstOffset = firstOffset;
            this.firstTimestamp = firstTimestamp;
            this.sibling = sibling;
            this.siblingTimestamp = siblingTimestamp;
        }

        OutOfOrder plusOne() {
            return new OutOfOrder(partition, records + 1, firstOffset, firstTimestamp, sibling, siblingTimestamp);
        }
    }

    /**
     * The records that may go, per partition in offset order and all of them in the order the
     * merge let them go, the partitions stopped, the releases, and the records that went out of
     * order.
     */
    public static final class Outcome<K, V> {
        public final Map<TopicPartition, List<ConsumerRecord<K, V>>> delivered;
        /** The delivered records in the order the merge let them go: the order the application must see. */
        public final List<ConsumerRecord<K, V>> inOrder;
        public final List<Hold<K, V>> holds;
        /** At most one per partition: the first of its records a bound let go. */
        public final List<Release> releases;
        /** At most one per partition: its records that went after a later record of a sibling. */
        public final List<OutOfOrder> outOfOrder;

        public Outcome(Map<TopicPartition, List<ConsumerRecord<K, V>>> delivered, List<ConsumerRecord<K, V>> inOrder,
                List<Hold<K, V>> holds, List<Release> releases, List<OutOfOrder> outOfOrder) {
            this.delivered = delivered;
            this.inOrder = inOrder;
            this.holds = holds;
            this.releases = releases;
            this.outOfOrder = outOfOrder;
        }
    }

    private final List<PartitionClock> clocks;
    private final long graceMs;
    private final long maxHoldMs;

    /**
     * @param clocks the task's partitions on this consumer, two or more, in ascending partition order
     * @param graceMs how long a caught-up sibling is waited for, {@code >= 0}
     * @param maxHoldMs how long a sibling that is behind and brings nothing is waited for, {@code >= graceMs}
     */
    public TaskMerge(List<PartitionClock> clocks, long graceMs, long maxHoldMs) {
        this.clocks = List.copyOf(clocks);
        this.graceMs = graceMs;
        this.maxHoldMs = maxHoldMs;
    }

    public List<PartitionClock> clocks() {
        return clocks;
    }

    /**
     * Whether {@link #merge} would deliver a record of these queues now, without any other record
     * arriving. Changes nothing.
     *
     * @param queues the records at hand per partition (in the barrier: its buffers), in offset order
     * @param fetchedAt when each queue was fetched
     * @param lag the consumer's {@code currentLag}
     * @param nowMs the barrier's clock
     * @return whether the head of some queue may go
     */
    public <K, V> boolean canDeliver(Map<TopicPartition, List<ConsumerRecord<K, V>>> queues,
                              ToLongFunction<TopicPartition> fetchedAt,
                              Function<TopicPartition, OptionalLong> lag, long nowMs) {
        int n = clocks.size();
        boolean[] hasHead = new boolean[n];
        long[] headTimestamp = new long[n];
        for (int i = 0; i < n; i++) {
            List<ConsumerRecord<K, V>> queue = queues.getOrDefault(clocks.get(i).partition(), List.of());
            hasHead[i] = !queue.isEmpty();
            headTimestamp[i] = hasHead[i] ? queue.get(0).timestamp() : 0;
        }
        for (int i = 0; i < n; i++) {
            if (hasHead[i] && (waitingFor(i, headTimestamp[i], hasHead, headTimestamp, lag, nowMs) < 0
                    || bound(i, headTimestamp[i], fetchedAt.applyAsLong(clocks.get(i).partition()), hasHead,
                            headTimestamp, lag, nowMs) != null)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The earliest time after {@code nowMs} at which a head of these queues may go by the clock
     * alone (grace or max hold running out), or {@link Long#MAX_VALUE}; it may still not go then.
     */
    public <K, V> long nextDeadline(Map<TopicPartition, List<ConsumerRecord<K, V>>> queues,
                             ToLongFunction<TopicPartition> fetchedAt, long nowMs) {
        long deadline = Long.MAX_VALUE;
        for (PartitionClock clock : clocks) {
            List<ConsumerRecord<K, V>> queue = queues.getOrDefault(clock.partition(), List.of());
            if (!queue.isEmpty()) {
                long graceOver = Math.min(queue.get(0).timestamp(), fetchedAt.applyAsLong(clock.partition())) + graceMs;
                deadline = graceOver > nowMs ? Math.min(deadline, graceOver) : deadline;
            } else if (clock.isBehind()) {
                long holdOver = clock.behindSince() + maxHoldMs;
                deadline = holdOver > nowMs ? Math.min(deadline, holdOver) : deadline;
            }
        }
        return deadline;
    }

    /**
     * Merges the records at hand of the task's partitions.
     *
     * @param queues the records per partition, fetched now or buffered, in offset order; partitions of other tasks are ignored
     * @param fetchedAt when each queue was fetched
     * @param lag the consumer's {@code currentLag}
     * @param nowMs the barrier's clock
     * @return what may go, where each partition stops, and what the bounds let go
     */
    public <K, V> Outcome<K, V> merge(Map<TopicPartition, List<ConsumerRecord<K, V>>> queues,
                               ToLongFunction<TopicPartition> fetchedAt,
                               Function<TopicPartition, OptionalLong> lag, long nowMs) {
        int n = clocks.size();
        List<List<ConsumerRecord<K, V>>> queue = new ArrayList<>(n);
        int[] next = new int[n];
        boolean[] hasHead = new boolean[n];
        boolean[] stopped = new boolean[n];
        long[] headTimestamp = new long[n];
        long[] fetched = new long[n];
        for (int i = 0; i < n; i++) {
            PartitionClock clock = clocks.get(i);
            List<ConsumerRecord<K, V>> records = queues.getOrDefault(clock.partition(), List.of());
            queue.add(records);
            clock.observe(!records.isEmpty(), lag.apply(clock.partition()), nowMs);
            if (!records.isEmpty()) {
                if (clock.hasDelivered() && records.get(0).offset() <= clock.deliveredOffset()) {
                    clock.rewound();
                }
                hasHead[i] = true;
                headTimestamp[i] = records.get(0).timestamp();
                fetched[i] = fetchedAt.applyAsLong(clock.partition());
            }
        }
        Map<TopicPartition, List<ConsumerRecord<K, V>>> delivered = new LinkedHashMap<>();
        List<ConsumerRecord<K, V>> inOrder = new ArrayList<>();
        List<Hold<K, V>> holds = new ArrayList<>();
        List<Release> releases = new ArrayList<>();
        boolean[] released = new boolean[n];
        OutOfOrder[] late = new OutOfOrder[n];
        while (true) {
            int pick = -1;
            for (int i = 0; i < n; i++) {
                if (hasHead[i] && !stopped[i] && (pick < 0 || headTimestamp[i] < headTimestamp[pick])) {
                    pick = i;
                }
            }
            if (pick < 0) {
                break;
            }
            PartitionClock clock = clocks.get(pick);
            List<ConsumerRecord<K, V>> records = queue.get(pick);
            ConsumerRecord<K, V> record = records.get(next[pick]);
            int waitingFor = waitingFor(pick, record.timestamp(), hasHead, headTimestamp, lag, nowMs);
            Skip skip = waitingFor < 0 ? null
                    : bound(pick, record.timestamp(), fetched[pick], hasHead, headTimestamp, lag, nowMs);
            if (waitingFor < 0 || skip != null) {
                delivered.computeIfAbsent(clock.partition(), tp -> new ArrayList<>()).add(record);
                inOrder.add(record);
                late[pick] = checkOrder(pick, record, late[pick]);
                clock.delivered(record.offset(), Math.min(record.timestamp(), fetched[pick]));
                if (skip != null && !released[pick]) {
                    released[pick] = true;
                    releases.add(new Release(clock.partition(), record.offset(), record.timestamp(), fetched[pick],
                            clocks.get(skip.sibling).partition(), skip.cause));
                }
                next[pick]++;
                hasHead[pick] = next[pick] < records.size();
                if (hasHead[pick]) {
                    headTimestamp[pick] = records.get(next[pick]).timestamp();
                }
            } else {
                holds.add(new Hold<>(clock, records.subList(next[pick], records.size()), clocks.get(waitingFor).partition()));
                stopped[pick] = true;
            }
        }
        List<OutOfOrder> outOfOrder = new ArrayList<>();
        for (OutOfOrder partition : late) {
            if (partition != null) {
                outOfOrder.add(partition);
            }
        }
        return new Outcome<>(delivered, inOrder, holds, releases, outOfOrder);
    }

    /**
     * @return {@code sofar} with the record added if it goes after a later record a sibling
     *         delivered (and the application has not seen it before); {@code sofar} unchanged otherwise
     */
    private OutOfOrder checkOrder(int self, ConsumerRecord<?, ?> record, OutOfOrder sofar) {
        PartitionClock clock = clocks.get(self);
        if (!clock.isFirstDelivery(record.offset())) {
            return sofar;
        }
        int latest = -1;
        for (int j = 0; j < clocks.size(); j++) {
            if (j != self && clock.isOvertakenBy(clocks.get(j), record.timestamp())
                    && (latest < 0 || clocks.get(j).latestDeliveredTimestamp() > clocks.get(latest).latestDeliveredTimestamp())) {
                latest = j;
            }
        }
        if (latest < 0) {
            return sofar;
        }
        return sofar != null ? sofar.plusOne() : new OutOfOrder(clock.partition(), 1, record.offset(), record.timestamp(),
                clocks.get(latest).partition(), clocks.get(latest).latestDeliveredTimestamp());
    }

    /** @return the index of a sibling that has not passed {@code (ts, self)} by the rule, or -1 if all have */
    private int waitingFor(int self, long ts, boolean[] hasHead, long[] headTimestamp,
                           Function<TopicPartition, OptionalLong> lag, long nowMs) {
        for (int j = 0; j < clocks.size(); j++) {
            if (j != self && !passed(j, self, ts, hasHead, headTimestamp, lag, nowMs)) {
                return j;
            }
        }
        return -1;
    }

    private boolean passed(int sibling, int self, long ts, boolean[] hasHead, long[] headTimestamp,
                           Function<TopicPartition, OptionalLong> lag, long nowMs) {
        PartitionClock clock = clocks.get(sibling);
        boolean later = clock.partition().partition() > clocks.get(self).partition().partition();
        if (hasHead[sibling]) {
            return atOrAfter(headTimestamp[sibling], ts, later);
        }
        return clock.hasDelivered() && atOrAfter(clock.deliveredTimestamp(), ts, later)
                || ts <= nowMs - graceMs && caughtUp(lag.apply(clock.partition()));
    }

    /** Why the bounds let a record go, and the sibling that had not passed it. */
    private static final class Skip {
        public final ReleaseCause cause;
        public final int sibling;

        public Skip(ReleaseCause cause, int sibling) {
            this.cause = cause;
            this.sibling = sibling;
        }
    }

    /**
     * @return why the bounds (see the class comment) let {@code (ts, self)} go although a sibling
     *         has not passed it by the rule, or null if it must wait; of several causes the most
     *         serious, with its sibling
     */
    private Skip bound(int self, long ts, long fetchedAt, boolean[] hasHead, long[] headTimestamp,
                       Function<TopicPartition, OptionalLong> lag, long nowMs) {
        ReleaseCause strongest = null;
        int strongestSibling = -1;
        for (int j = 0; j < clocks.size(); j++) {
            if (j == self || passed(j, self, ts, hasHead, headTimestamp, lag, nowMs)) {
                continue;
            }
            if (hasHead[j]) {
                return null; // its earlier record at hand goes first
            }
            PartitionClock sibling = clocks.get(j);
            OptionalLong siblingLag = lag.apply(sibling.partition());
            ReleaseCause cause;
            if (caughtUp(siblingLag)) {
                if (Math.min(ts, fetchedAt) > nowMs - graceMs) {
                    return null;
                }
                cause = ReleaseCause.FUTURE_TIMESTAMP;
            } else if (sibling.isBehind() && nowMs - sibling.behindSince() >= maxHoldMs) {
                cause = siblingLag.isPresent() ? ReleaseCause.MAX_HOLD : ReleaseCause.UNKNOWN_SIBLING_LAG;
            } else {
                return null;
            }
            if (strongest == null || cause.compareTo(strongest) > 0) {
                strongest = cause;
                strongestSibling = j;
            }
        }
        return strongest == null ? null : new Skip(strongest, strongestSibling);
    }

    private static boolean atOrAfter(long siblingTimestamp, long ts, boolean siblingIsLater) {
        return siblingTimestamp > ts || siblingTimestamp == ts && siblingIsLater;
    }

    private static boolean caughtUp(OptionalLong lag) {
        return lag.isPresent() && lag.getAsLong() == 0;
    }

    @Override
    public String toString() {
        return "TaskMerge" + clocks;
    }
}
