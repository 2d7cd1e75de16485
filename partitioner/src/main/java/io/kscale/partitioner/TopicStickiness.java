package io.kscale.partitioner;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Sticky partitioning by bytes for one topic: picks the partition of each record that is not
 * partitioned by key. Safe for concurrent use by every thread that sends to the topic; a record is
 * one atomic add, with no lock, no retry loop and no allocation (only a switch allocates).
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>Records go to the current partition until at least N bytes ({@code stickyBytes}, minus the
 *       partition's carry, see {@link StickyRound}) were admitted there; the record that reaches
 *       that target is the last of the stint. Stints are exact under contention: each record's
 *       bytes are counted in exactly the stint whose partition {@link #partition} returned.
 *   <li>Uniform at every moment: let R be the largest record so far. The byte totals of any two
 *       partitions that could take records throughout differ by less than {@code N + R} when
 *       {@code R <= N}, and by less than {@code N + 2R} otherwise; so always by less than
 *       {@code 2(N + R)}.
 *   <li>Every stint that reaches its target holds more than {@code N - R} bytes.
 *   <li>The next partition differs from the current one whenever another one can take records.
 *   <li>Never returns a partition the caller's view does not offer: if the current partition lost
 *       its leader or is beyond the partition count, its stint ends before the record is placed.
 *       A partition beyond the caller's count (its metadata predates an expansion) is not skipped
 *       for that: it keeps its turn in the round, and its stint's shortfall is added to its next.
 * </ul>
 *
 * <h2>Design</h2>
 * The state is one volatile reference, {@link #current}, to the open {@link Stint}: its partition,
 * its target and its counter. A record is one atomic add on that counter (KIP-794's "produced
 * bytes" idea, made exact; see {@link Stint}). The add that reaches the target closes the stint,
 * and only the thread that made it switches: it computes the next stint from the round (see
 * {@link StickyRound}), then publishes it in {@code current}. A thread whose add finds the stint
 * closed, which happens only to records that arrive during a switch, waits until {@code current}
 * moves on, yielding its processor, and adds again there.
 *
 * <p>Worked example, N = 100, three threads, current stint p2 with target 100 and 90 admitted:
 * <pre>
 *   T1 adds 20: before 90, admitted; 110 &gt;= 100: T1 closed p2's stint (total 110) and switches:
 *               next visit p0, target 100; current := p0's stint; T1 returns 2
 *   T2 adds 15: before 110 &gt;= 100, rejected (counted nowhere); current is still p2's stint:
 *               T2 yields until T1 has published p0's stint
 *   T2 adds 15 to p0's stint: before 0, admitted; T2 returns 0
 * </pre>
 * p2's stint admitted exactly 110 bytes, its carry 10 shortens p2's next stint to 90.
 *
 * <h2>Why one switching thread, and what it costs</h2>
 * A switch is a short computation (the next visit, one allocation, once per round a new shuffled
 * round), done once per N bytes. Letting only the closing thread do it keeps the round's state
 * single-writer: no compare-and-set to agree on each decision, no duplicate stints built by
 * helpers, and rounds need no links to the rounds after them. With helpers (the earlier, lock-free
 * design), records that arrived during a switch spun and then helped; measured with
 * {@code PartitionerBenchmark} on 2 cores, yielding to the switching thread instead roughly doubled
 * throughput at 2 and 8 threads, and single-writer switching added to that.
 *
 * <p>The price is that a switch is not lock-free. If the OS preempts the switching thread before it
 * publishes the next stint, every other thread that sends an unkeyed record to this topic waits
 * (yielding, so not burning a processor the switching thread could use) until that thread runs
 * again. Records with a key, other topics, and records sent while no switch is pending never wait.
 * The window is the switch itself, once per N bytes. The producer's own send path has the same
 * exposure for every record: {@code RecordAccumulator.append} enters the partition queue's monitor.
 * If the switching thread throws (an {@code OutOfMemoryError}, say) the error reaches its caller,
 * whose record was counted in the closed stint, and a waiting thread takes the switch over
 * ({@link Stint#takeOverFailedSwitch}); a walk of the round can be repeated (see
 * {@link StickyRound}), so the topic never stays stuck on a closed stint.
 *
 * @see <a href="https://cwiki.apache.org/confluence/display/KAFKA/KIP-794%3A+Strictly+Uniform+Sticky+Partitioner">KIP-794</a>
 */
final class TopicStickiness {

    /** Told about every switch, by the switching thread. */
    interface SwitchListener {
        SwitchListener NONE = (closed, next) -> { };

        /**
         * Called just before the next stint is published. Test hook: a listener that throws makes
         * the switch fail, as an {@code OutOfMemoryError} would.
         */
        void onSwitch(Stint closed, Stint next);

        /**
         * Called once the next stint is published, so that work done here (the adapter's occasional
         * housekeeping) holds up no other thread of the topic. Must not throw: the record that
         * closed the stint is placed already.
         */
        default void afterSwitch() {
        }
    }

    private static final VarHandle CURRENT;

    static {
        try {
            CURRENT = MethodHandles.lookup().findVarHandle(TopicStickiness.class, "current", Stint.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long stickyBytes;
    private final SwitchListener listener;
    private volatile Stint current;

    /**
     * @param stickyBytes N, the bytes per stint, at least 1
     * @param seed seed of the first round's shuffle; later rounds derive theirs from it
     * @param view the partitions of the topic now
     * @param listener told about every switch, on the switching thread; must be cheap
     * @throws IllegalArgumentException if {@code stickyBytes < 1}
     */
    TopicStickiness(long stickyBytes, long seed, PartitionView view, SwitchListener listener) {
        if (stickyBytes < 1) {
            throw new IllegalArgumentException("stickyBytes must be at least 1, got " + stickyBytes);
        }
        this.stickyBytes = stickyBytes;
        this.listener = listener;
        this.current = StickyRound.firstStint(view, seed, stickyBytes);
    }

    /**
     * Places one record and returns its partition.
     *
     * @param recordBytes the bytes to count for this record, at least 0
     * @param view the caller's view of the topic's partitions
     * @return a partition that {@code view} offers (see {@link PartitionView#isAvailable})
     */
    int partition(long recordBytes, PartitionView view) {
        for (;;) {
            Stint stint = current;
            if (!view.isAvailable(stint.partition)) {
                // The leader is gone or the partition count shrank in this view: end the stint now
                // rather than queue records for a partition that cannot take them. A partition
                // beyond this view's count is one this caller's metadata does not know yet (it
                // was fetched before an expansion): the partition owes nothing, so it keeps its due.
                boolean ended = stint.partition >= view.partitionCount() ? stint.closeOwed() : stint.closeEarly();
                if (ended) {
                    switchFrom(stint, view);
                } else {
                    awaitSwitch(stint, view);
                }
                continue;
            }
            switch (stint.tryAdmit(recordBytes)) {
                case Stint.ADMITTED:
                    return stint.partition;
                case Stint.ADMITTED_AND_CLOSED:
                    switchFrom(stint, view);
                    return stint.partition;
                default: // REJECTED: the stint closed before this record; place it in the next one
                    awaitSwitch(stint, view);
                    break;
            }
        }
    }

    /** The partition records go to now. */
    int currentPartition() {
        return current.partition;
    }

    /** Number of switches since the topic was first seen. */
    long switchCount() {
        return current.sequence;
    }

    /** The open stint (for tests, and for the adapter's idle check). */
    Stint current() {
        return current;
    }

    long stickyBytes() {
        return stickyBytes;
    }

    /**
     * Publishes the stint after {@code stint}. Called by the one thread that closed it, or that took
     * over its failed switch; if this throws, the switch is marked failed for another thread to
     * take over.
     */
    private void switchFrom(Stint stint, PartitionView view) {
        Stint next;
        try {
            next = stint.round.next(stint, view, stickyBytes);
            listener.onSwitch(stint, next);
        } catch (Throwable e) {
            stint.switchFailed();
            throw e;
        }
        CURRENT.setRelease(this, next);
        listener.afterSwitch();
    }

    /**
     * Waits until the next stint after the closed {@code stint} is published, yielding the
     * processor: the switching thread is running or, with more threads than cores, may need this
     * one's processor to finish. Measured on 2 cores, spinning here instead halved throughput.
     * Takes the switch over if the switching thread failed.
     */
    private void awaitSwitch(Stint stint, PartitionView view) {
        while (current == stint) {
            if (stint.takeOverFailedSwitch()) {
                switchFrom(stint, view);
                return;
            }
            Thread.yield();
        }
    }
}
