package io.kscale.partitioner;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Sticky partitioning by bytes for one topic: picks the partition of each record that is not
 * partitioned by key. Safe for concurrent use by every thread that sends to the topic; no locks,
 * and no allocation per record (only per switch, and per round).
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
 * </ul>
 *
 * <h2>Design</h2>
 * The state is one volatile reference, {@link #current}, to an immutable {@link Stint} holding the
 * partition and the target, plus the stint's admitted-bytes counter. A record is one
 * compare-and-set on that counter (KIP-794's "produced bytes" idea, made exact): it succeeds only
 * while the stint is open, and the thread whose record reaches the target switches. A thread that
 * finds the stint closed but still current does not wait for the switching thread: after a short
 * spin (to let it finish alone, which saves duplicate allocation) it helps, computing the same
 * successor from installed decisions (see {@link StickyRound}) and racing to swing
 * {@code current}. Hence the algorithm is lock-free: a thread is delayed only by other threads'
 * successful steps.
 *
 * <p>Worked example, N = 100, three threads, current stint p2 with target 100 and 90 admitted:
 * <pre>
 *   T1 admits 20: CAS 90 -&gt; 110 succeeds, 110 &gt;= 100, T1 returns 2 and switches
 *   T2 admits 15: reads 110 &gt;= 100, the stint is closed; current is still p2's stint:
 *                 T2 spins, then helps: decides slot (round, next index) -&gt; p0 target 100,
 *                 installed by CAS; CAS current p2-stint -&gt; p0-stint
 *   T1 (switching) finds the slot installed by T2, uses that same p0 stint, its CAS on current
 *                 fails because T2's succeeded: nothing to undo
 *   T2 retries: CAS 0 -&gt; 15 on p0's stint, returns 0
 * </pre>
 * p2's stint admitted exactly 110 bytes, its carry 10 shortens p2's next stint to 90.
 *
 * @see <a href="https://cwiki.apache.org/confluence/display/KAFKA/KIP-794%3A+Strictly+Uniform+Sticky+Partitioner">KIP-794</a>
 */
final class TopicStickiness {

    /** Called by the thread whose compare-and-set moved {@code current} on. Test hook and metrics. */
    interface SwitchListener {
        SwitchListener NONE = (closed, next) -> { };

        void onSwitch(Stint closed, Stint next);
    }

    /**
     * How often a thread that finds the stint closed checks whether the switching thread finished
     * before it helps. About a microsecond: far longer than a switch normally takes, far shorter
     * than a scheduler time slice (which is what a preempted switching thread would cost others).
     */
    private static final int SPINS_BEFORE_HELPING = 64;

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
        this.current = (Stint) StickyRound.first(view, seed).decide(0, null, view, stickyBytes);
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
                // rather than queue records for a partition that cannot take them.
                stint.closeEarly();
                advance(stint, view, true);
                continue;
            }
            switch (stint.tryAdmit(recordBytes)) {
                case Stint.ADMITTED:
                    return stint.partition;
                case Stint.ADMITTED_AND_CLOSED:
                    advance(stint, view, true);
                    return stint.partition;
                case Stint.REJECTED:
                    advance(stint, view, false);
                    break;
                default:
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

    /** The open stint (for tests). */
    Stint current() {
        return current;
    }

    long stickyBytes() {
        return stickyBytes;
    }

    /**
     * Moves {@code current} from the closed {@code stint} to its successor, unless another thread
     * did already. The switching thread calls it with {@code eager}; others spin briefly first.
     */
    private void advance(Stint stint, PartitionView view, boolean eager) {
        if (!eager) {
            for (int i = 0; i < SPINS_BEFORE_HELPING && current == stint; i++) {
                Thread.onSpinWait();
            }
        }
        while (current == stint) {
            Stint next = successor(stint, view);
            if (CURRENT.compareAndSet(this, stint, next)) {
                listener.onSwitch(stint, next);
                return;
            }
        }
    }

    /**
     * The next PRODUCE stint after {@code stint}: walks the installed decisions of its round (and
     * the rounds that follow), installing missing ones, past visits that skip or find no leader.
     * Terminates: every new full round is built so that a partition of the caller's view takes its
     * first stint.
     */
    private Stint successor(Stint stint, PartitionView view) {
        StickyRound round = stint.round;
        int index = stint.position + 1;
        for (;;) {
            Object decision = round.decide(index, stint, view, stickyBytes);
            if (decision instanceof StickyRound) {
                round = (StickyRound) decision;
                index = 0;
                continue;
            }
            Stint visit = (Stint) decision;
            if (visit.kind == Stint.Kind.PRODUCE) {
                return visit;
            }
            index++;
        }
    }
}
