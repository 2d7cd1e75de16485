package io.kscale.assignor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The event-time merge of one task's partitions on one consumer, for {@link ExpansionBarrier}:
 * which fetched records may go now, where to stop, and which stopped partitions may go on.
 *
 * <p>The rule: a record with timestamp {@code ts} from partition {@code p} goes only when every
 * other partition {@code q} of the task has <em>passed</em> {@code ts}: {@code q}'s next record
 * (fetched now, or held from an earlier fetch) or its last delivered record is later than
 * {@code ts}, or {@code q} is caught up ({@code currentLag} 0) and {@code ts <= cutoff}
 * ({@code now - grace}). At equal timestamps the lower partition goes first: a key only ever
 * moves to a higher partition ({@code c % n == p} with {@code c >= n > p}), so a sibling above
 * {@code p} has passed {@code ts} when it stands at {@code ts}, one below has not. Records go in
 * ascending {@code (timestamp, partition)} order of the partitions' heads; a partition whose
 * head cannot go is stopped there (a {@link Hold}) and the rest of its fetch is dropped.
 */
final class TaskMerge {

    /** A partition the merge stopped at a record: seek it back there and pause it. */
    static final class Hold {
        final PartitionClock clock;
        final ConsumerRecord<?, ?> record;
        final int notDelivered;
        final TopicPartition waitingFor;

        Hold(PartitionClock clock, ConsumerRecord<?, ?> record, int notDelivered, TopicPartition waitingFor) {
            this.clock = clock;
            this.record = record;
            this.notDelivered = notDelivered;
            this.waitingFor = waitingFor;
        }
    }

    /** The records that may go, per partition in offset order, and the partitions stopped. */
    static final class Outcome<K, V> {
        final Map<TopicPartition, List<ConsumerRecord<K, V>>> delivered;
        final List<Hold> holds;

        Outcome(Map<TopicPartition, List<ConsumerRecord<K, V>>> delivered, List<Hold> holds) {
            this.delivered = delivered;
            this.holds = holds;
        }
    }

    private final List<PartitionClock> clocks;

    /** @param clocks the task's partitions on this consumer, two or more, in ascending partition order */
    TaskMerge(List<PartitionClock> clocks) {
        this.clocks = List.copyOf(clocks);
    }

    List<PartitionClock> clocks() {
        return clocks;
    }

    /**
     * The partitions the barrier paused whose held record may go now; resume them so that the
     * next fetch returns it.
     */
    List<PartitionClock> releasable(Function<TopicPartition, OptionalLong> lag, long cutoff) {
        List<PartitionClock> ready = new ArrayList<>();
        for (int i = 0; i < clocks.size(); i++) {
            PartitionClock clock = clocks.get(i);
            if (clock.pausedByBarrier() && clock.knowsHead()
                    && waitingFor(i, clock.headTimestamp(), null, null, lag, cutoff) < 0) {
                ready.add(clock);
            }
        }
        return ready;
    }

    /**
     * Merges one fetch of the task's partitions.
     *
     * @param fetched the records fetched per partition, in offset order; partitions of other tasks are ignored
     * @param lag the consumer's {@code currentLag}
     * @param cutoff {@code now - grace}: a caught-up sibling has passed every timestamp up to it
     * @return what may go and where to stop
     */
    <K, V> Outcome<K, V> merge(Map<TopicPartition, List<ConsumerRecord<K, V>>> fetched,
                               Function<TopicPartition, OptionalLong> lag, long cutoff) {
        int n = clocks.size();
        List<List<ConsumerRecord<K, V>>> queues = new ArrayList<>(n);
        int[] next = new int[n];
        boolean[] hasHead = new boolean[n];
        long[] headTimestamp = new long[n];
        for (int i = 0; i < n; i++) {
            PartitionClock clock = clocks.get(i);
            List<ConsumerRecord<K, V>> records = fetched.getOrDefault(clock.partition(), List.of());
            queues.add(records);
            if (!records.isEmpty()) {
                clock.forgetHead();
                if (clock.hasDelivered() && records.get(0).offset() <= clock.deliveredOffset()) {
                    clock.rewound();
                }
                hasHead[i] = true;
                headTimestamp[i] = records.get(0).timestamp();
            }
        }
        Map<TopicPartition, List<ConsumerRecord<K, V>>> delivered = new LinkedHashMap<>();
        List<Hold> holds = new ArrayList<>();
        while (true) {
            int pick = -1;
            for (int i = 0; i < n; i++) {
                if (hasHead[i] && (pick < 0 || headTimestamp[i] < headTimestamp[pick])) {
                    pick = i;
                }
            }
            if (pick < 0) {
                break;
            }
            PartitionClock clock = clocks.get(pick);
            List<ConsumerRecord<K, V>> queue = queues.get(pick);
            ConsumerRecord<K, V> record = queue.get(next[pick]);
            int waitingFor = waitingFor(pick, record.timestamp(), hasHead, headTimestamp, lag, cutoff);
            if (waitingFor < 0) {
                delivered.computeIfAbsent(clock.partition(), tp -> new ArrayList<>()).add(record);
                clock.delivered(record.offset(), record.timestamp());
                next[pick]++;
                hasHead[pick] = next[pick] < queue.size();
                if (hasHead[pick]) {
                    headTimestamp[pick] = queue.get(next[pick]).timestamp();
                }
            } else {
                clock.hold(record.offset(), record.timestamp());
                holds.add(new Hold(clock, record, queue.size() - next[pick], clocks.get(waitingFor).partition()));
                hasHead[pick] = false;
            }
        }
        return new Outcome<>(delivered, holds);
    }

    /** @return the index of a sibling that has not passed {@code (ts, self)}, or -1 if all have */
    private int waitingFor(int self, long ts, boolean[] hasHead, long[] headTimestamp,
                           Function<TopicPartition, OptionalLong> lag, long cutoff) {
        int selfPartition = clocks.get(self).partition().partition();
        for (int j = 0; j < clocks.size(); j++) {
            if (j == self) {
                continue;
            }
            PartitionClock sibling = clocks.get(j);
            boolean later = sibling.partition().partition() > selfPartition;
            boolean passed;
            if (hasHead != null && hasHead[j]) {
                passed = atOrAfter(headTimestamp[j], ts, later);
            } else if (sibling.knowsHead()) {
                passed = atOrAfter(sibling.headTimestamp(), ts, later);
            } else {
                passed = sibling.hasDelivered() && atOrAfter(sibling.deliveredTimestamp(), ts, later)
                        || ts <= cutoff && caughtUp(lag.apply(sibling.partition()));
            }
            if (!passed) {
                return j;
            }
        }
        return -1;
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
