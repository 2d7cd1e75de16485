package io.kscale.partitioner;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One visit of a partition within a {@link StickyRound}: either a stint that takes records, or a
 * visit that passes (the partition is already a stint ahead, or has no leader right now).
 *
 * <p>A {@link Kind#PRODUCE} stint admits records until the bytes admitted reach its
 * {@link #target}; the record that reaches it is the last one admitted. After that the admitted
 * count never changes again, so the stint's overshoot ({@link #carryAfter()}) is frozen and any
 * thread may read it. Admission is one compare-and-set on {@link #admitted}, which makes the
 * stint's byte count exact however many threads call {@code send()}: a record is either admitted
 * (and returns this stint's partition) or sees the stint closed and retries on the next one.
 *
 * <p>Everything but {@code admitted} is final, so a stint published through a volatile write is
 * safe to read from any thread.
 */
final class Stint {

    /** What a visit does. */
    enum Kind {
        /** The partition takes records until {@link #target} bytes were admitted. */
        PRODUCE,
        /** The partition is a whole stint (N bytes) or more ahead: the visit passes, its carry drops by N. */
        SKIP,
        /** The partition had no leader (or no longer exists) at its turn: not visited, carry unchanged. */
        ABSENT
    }

    /**
     * Set in {@code admitted} when a stint ends before its target because its partition lost its
     * leader or vanished from the metadata. Far above any real byte count (2^62 bytes is 4 EiB),
     * so a flagged stint reads as full.
     */
    private static final long CLOSED_EARLY = 1L << 62;

    /** {@link #tryAdmit}: admitted, the stint stays open. */
    static final int ADMITTED = 0;
    /** {@link #tryAdmit}: admitted, and this record closed the stint: the caller switches. */
    static final int ADMITTED_AND_CLOSED = 1;
    /** {@link #tryAdmit}: not admitted, the stint was closed already. */
    static final int REJECTED = 2;
    /** {@link #tryAdmit}: not admitted, another record was admitted concurrently; try again. */
    static final int RETRY = 3;

    private static final VarHandle ADMITTED_BYTES;

    static {
        try {
            ADMITTED_BYTES = MethodHandles.lookup().findVarHandle(Stint.class, "admitted", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Kind kind;
    final int partition;
    /** Bytes this stint admits before it closes: N minus the carry it starts with. At least 1 for PRODUCE. */
    final long target;
    /** The partition's carry when the visit began (bytes it is ahead of its quota; may be negative). */
    final long carryBefore;
    /** Number of PRODUCE stints of the topic before this one; equals the topic's switch count while current. */
    final long sequence;
    final StickyRound round;
    final int position;

    private volatile long admitted;

    private Stint(Kind kind, int partition, long target, long carryBefore, long sequence, StickyRound round, int position) {
        this.kind = kind;
        this.partition = partition;
        this.target = target;
        this.carryBefore = carryBefore;
        this.sequence = sequence;
        this.round = round;
        this.position = position;
    }

    static Stint produce(int partition, long target, long carryBefore, long sequence, StickyRound round, int position) {
        return new Stint(Kind.PRODUCE, partition, target, carryBefore, sequence, round, position);
    }

    static Stint skip(int partition, long stickyBytes, long carryBefore, long sequence, StickyRound round, int position) {
        return new Stint(Kind.SKIP, partition, stickyBytes - carryBefore, carryBefore, sequence, round, position);
    }

    static Stint absent(int partition, long carryBefore, long sequence, StickyRound round, int position) {
        return new Stint(Kind.ABSENT, partition, 0, carryBefore, sequence, round, position);
    }

    /**
     * Admits {@code bytes} if the stint is open.
     *
     * @return {@link #REJECTED} if the stint was already closed, {@link #ADMITTED_AND_CLOSED} if
     *     this record reached the target (the caller must switch), {@link #ADMITTED} otherwise; a
     *     lost race with another admission returns {@link #RETRY}
     */
    int tryAdmit(long bytes) {
        long before = admitted;
        if (before >= target) {
            return REJECTED;
        }
        long after = before + bytes;
        if (!ADMITTED_BYTES.compareAndSet(this, before, after)) {
            return RETRY;
        }
        return after >= target ? ADMITTED_AND_CLOSED : ADMITTED;
    }

    boolean isClosed() {
        return admitted >= target;
    }

    /** Closes the stint now, whatever it admitted so far; a no-op if it is closed already. */
    void closeEarly() {
        long before;
        do {
            before = admitted;
            if (before >= target) {
                return;
            }
        } while (!ADMITTED_BYTES.compareAndSet(this, before, before | CLOSED_EARLY));
    }

    boolean closedEarly() {
        return (admitted & CLOSED_EARLY) != 0;
    }

    /** Bytes of the records admitted so far (all of them once the stint is closed). */
    long bytes() {
        return admitted & ~CLOSED_EARLY;
    }

    /**
     * The partition's carry after this visit: bytes by which the partition's total now exceeds its
     * quota. Only meaningful once the visit is over (a PRODUCE stint closed).
     *
     * <ul>
     *   <li>PRODUCE, reached target: the overshoot, {@code 0 <= carry < size of the last record}.
     *   <li>PRODUCE, closed early: 0. The partition lost its leader, so the bytes it still owed are
     *       forgiven; when it returns it takes an ordinary stint instead of its backlog.
     *   <li>SKIP: {@code carryBefore - N}: the partition sat out one stint's worth.
     *   <li>ABSENT: unchanged.
     * </ul>
     */
    long carryAfter() {
        switch (kind) {
            case PRODUCE:
                long bytes = admitted;
                return (bytes & CLOSED_EARLY) != 0 ? 0 : bytes - target;
            case SKIP:
                return -target;
            default:
                return carryBefore;
        }
    }

    @Override
    public String toString() {
        return "Stint(" + kind + " #" + sequence + " p" + partition + " " + bytes() + "/" + target
                + (closedEarly() ? " closed early" : "") + ")";
    }
}
