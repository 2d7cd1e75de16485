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
 * which of the records at hand may go now, and where each partition stops.
 *
 * <p>Each partition brings a queue: the records fetched now, or those the barrier buffered from
 * an earlier fetch (a partition with a buffer is paused, so it never brings both). The rule: a
 * record with timestamp {@code ts} from partition {@code p} goes only when every other partition
 * {@code q} of the task has <em>passed</em> {@code ts}: the head of {@code q}'s queue or its last
 * delivered record is later than {@code ts}, or {@code q} is caught up ({@code currentLag} 0)
 * and {@code ts <= cutoff} ({@code now - grace}). At equal timestamps the lower partition goes
 * first: a key only ever moves to a higher partition ({@code c % n == p} with
 * {@code c >= n > p}), so a sibling above {@code p} has passed {@code ts} when it stands at
 * {@code ts}, one below has not. Records go in ascending {@code (timestamp, partition)} order of
 * the queues' heads; a partition whose head cannot go is stopped there (a {@link Hold}, carrying
 * the rest of its queue for the barrier to buffer), and its head still counts for its siblings.
 */
final class TaskMerge {

    /** A partition the merge stopped at a record: its undelivered records, the stopped one first. */
    static final class Hold<K, V> {
        final PartitionClock clock;
        final List<ConsumerRecord<K, V>> rest;
        final TopicPartition waitingFor;

        Hold(PartitionClock clock, List<ConsumerRecord<K, V>> rest, TopicPartition waitingFor) {
            this.clock = clock;
            this.rest = rest;
            this.waitingFor = waitingFor;
        }

        /** @return the record the partition stopped at */
        ConsumerRecord<K, V> record() {
            return rest.get(0);
        }
    }

    /** The records that may go, per partition in offset order, and the partitions stopped. */
    static final class Outcome<K, V> {
        final Map<TopicPartition, List<ConsumerRecord<K, V>>> delivered;
        final List<Hold<K, V>> holds;

        Outcome(Map<TopicPartition, List<ConsumerRecord<K, V>>> delivered, List<Hold<K, V>> holds) {
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
     * Whether {@link #merge} would deliver a record of these queues now, without any other record
     * arriving.
     *
     * @param queues the records at hand per partition (in the barrier: its buffers), in offset order
     * @param lag the consumer's {@code currentLag}
     * @param cutoff {@code now - grace}
     * @return whether the head of some queue may go
     */
    <K, V> boolean canDeliver(Map<TopicPartition, List<ConsumerRecord<K, V>>> queues,
                              Function<TopicPartition, OptionalLong> lag, long cutoff) {
        int n = clocks.size();
        boolean[] hasHead = new boolean[n];
        long[] headTimestamp = new long[n];
        for (int i = 0; i < n; i++) {
            List<ConsumerRecord<K, V>> queue = queues.getOrDefault(clocks.get(i).partition(), List.of());
            hasHead[i] = !queue.isEmpty();
            headTimestamp[i] = hasHead[i] ? queue.get(0).timestamp() : 0;
        }
        for (int i = 0; i < n; i++) {
            if (hasHead[i] && waitingFor(i, headTimestamp[i], hasHead, headTimestamp, lag, cutoff) < 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Merges the records at hand of the task's partitions.
     *
     * @param queues the records per partition, fetched now or buffered, in offset order; partitions of other tasks are ignored
     * @param lag the consumer's {@code currentLag}
     * @param cutoff {@code now - grace}: a caught-up sibling has passed every timestamp up to it
     * @return what may go and where each partition stops
     */
    <K, V> Outcome<K, V> merge(Map<TopicPartition, List<ConsumerRecord<K, V>>> queues,
                               Function<TopicPartition, OptionalLong> lag, long cutoff) {
        int n = clocks.size();
        List<List<ConsumerRecord<K, V>>> queue = new ArrayList<>(n);
        int[] next = new int[n];
        boolean[] hasHead = new boolean[n];
        boolean[] stopped = new boolean[n];
        long[] headTimestamp = new long[n];
        for (int i = 0; i < n; i++) {
            PartitionClock clock = clocks.get(i);
            List<ConsumerRecord<K, V>> records = queues.getOrDefault(clock.partition(), List.of());
            queue.add(records);
            if (!records.isEmpty()) {
                if (clock.hasDelivered() && records.get(0).offset() <= clock.deliveredOffset()) {
                    clock.rewound();
                }
                hasHead[i] = true;
                headTimestamp[i] = records.get(0).timestamp();
            }
        }
        Map<TopicPartition, List<ConsumerRecord<K, V>>> delivered = new LinkedHashMap<>();
        List<Hold<K, V>> holds = new ArrayList<>();
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
            int waitingFor = waitingFor(pick, record.timestamp(), hasHead, headTimestamp, lag, cutoff);
            if (waitingFor < 0) {
                delivered.computeIfAbsent(clock.partition(), tp -> new ArrayList<>()).add(record);
                clock.delivered(record.offset(), record.timestamp());
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
            if (hasHead[j]) {
                passed = atOrAfter(headTimestamp[j], ts, later);
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
