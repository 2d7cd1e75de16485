package io.kscale.partitioner;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One visit of a partition within a {@link StickyRound} that takes records: a stint. It admits
 * records until the bytes admitted reach its {@link #target}; the record that reaches it is the last
 * one admitted, and closes the stint.
 *
 * <h2>Admission: one atomic add per record</h2>
 * Every record offered to a stint is one {@code getAndAdd} (x86 {@code XADD}) of its bytes on the
 * stint's counter, {@link StintCounter#offered}. Unlike a compare-and-set loop it never fails and
 * never retries, and it needs the counter's cache line once per record instead of once to read it
 * and again to write it. The value before the add decides the record's fate, in the total order
 * of adds on the counter:
 * <ul>
 *   <li>{@code before < target}: admitted; the record's bytes belong to this stint. If
 *       {@code before + bytes >= target} the record closed the stint, and {@code before + bytes}
 *       is the stint's exact total: every admitted record was added before it, every later add sees
 *       {@code before >= target}. The closing thread stores that total in {@link StintCounter#total}
 *       and switches (see {@link TopicStickiness}).
 *   <li>{@code before >= target}: rejected, the stint was closed already. The bytes stay in the
 *       counter but count nowhere: the counter is just "bytes offered", the stint's bytes are the
 *       stored total. The caller places the record in the next stint.
 * </ul>
 * Ending a stint early ({@link #closeEarly}) is an add of {@code target}: it closes the stint if no
 * record did before, with the bytes admitted so far as its total. Either way exactly one thread
 * closes a stint. So each record's bytes are counted in exactly the stint whose partition the
 * caller returns, however many threads add at once.
 *
 * <p>Worked example, target 100, 90 admitted, threads T1 and T2 on two cores:
 * <pre>
 *   T1 adds 20: before  90 &lt; 100, admitted; 110 &gt;= 100: T1 closed it, stores total 110, switches
 *   T2 adds 15: before 110 &gt;= 100, rejected; the counter reads 125, the total stays 110;
 *               T2 waits for T1's switch and adds its 15 bytes to the next stint
 * </pre>
 *
 * <h2>Memory layout</h2>
 * The counter is written by every record of every thread; the read-only fields are read by every
 * record of every thread, before its add. The counter and {@link StintCounter#total} therefore
 * sit on a cache line of their own, between two 64-byte paddings (superclass fields are laid out
 * before subclass fields, so the class hierarchy fixes the order: read-only fields, padding,
 * counter, padding). Otherwise each add would take the line away from the other cores and their
 * next read of {@link #partition} would miss. A stint is allocated once per switch, not per record,
 * so the padding costs no allocation per record.
 */
final class Stint extends StintCounter {

    /** {@link #tryAdmit}: admitted, the stint stays open. */
    static final int ADMITTED = 0;
    /** {@link #tryAdmit}: admitted, and this record closed the stint: the caller switches. */
    static final int ADMITTED_AND_CLOSED = 1;
    /** {@link #tryAdmit}: not admitted, the stint was closed already. */
    static final int REJECTED = 2;

    /** Keeps the counter's cache line away from whatever follows the stint in memory. */
    long q01, q02, q03, q04, q05, q06, q07, q08;

    Stint(int partition, long target, long carryBefore, long sequence, StickyRound round, int position) {
        super(partition, target, carryBefore, sequence, round, position);
    }

    /**
     * Offers a record of {@code bytes} to this stint: one atomic add, no retry.
     *
     * @param bytes the record's bytes, at least 0
     * @return {@link #ADMITTED}; {@link #ADMITTED_AND_CLOSED} if this record reached the target
     *     (the caller must switch); or {@link #REJECTED} if the stint was already closed (the bytes
     *     count nowhere)
     */
    int tryAdmit(long bytes) {
        long before = (long) OFFERED.getAndAdd(this, bytes);
        if (before >= target) {
            return REJECTED;
        }
        long after = before + bytes;
        if (after < target) {
            return ADMITTED;
        }
        TOTAL.setRelease(this, after);
        return ADMITTED_AND_CLOSED;
    }

    /**
     * Closes the stint now, whatever it admitted so far, unless it is closed already.
     *
     * @return true if this call closed the stint (the caller must switch), false if a record or
     *     another call had closed it
     */
    boolean closeEarly() {
        long before = (long) OFFERED.getAndAdd(this, target);
        if (before >= target) {
            return false;
        }
        TOTAL.setRelease(this, before | CLOSED_EARLY);
        return true;
    }

    /**
     * Closes the stint now, whatever it admitted so far, unless it is closed already, keeping what
     * the partition is still owed: for a caller whose metadata is older than this stint's round and
     * lacks its partition (a thread that fetched the metadata just before an expansion). The
     * partition is fine, only the caller cannot send to it, so unlike {@link #closeEarly} nothing
     * is forgiven: the partition's next stint is longer by the bytes this one did not take, at most
     * N (see {@link #carryAfter}).
     *
     * @return true if this call closed the stint (the caller must switch), false if a record or
     *     another call had closed it
     */
    boolean closeOwed() {
        long before = (long) OFFERED.getAndAdd(this, target);
        if (before >= target) {
            return false;
        }
        TOTAL.setRelease(this, before | CLOSED_OWED);
        return true;
    }

    /** True if the stint was closed before its target ({@link #closeEarly} or {@link #closeOwed}). */
    boolean closedEarly() {
        return (total & (CLOSED_EARLY | CLOSED_OWED)) != 0;
    }

    /**
     * Bytes of the records admitted so far: exact while the stint is open (no add was rejected yet)
     * and once it is closed (the total its closing thread stored).
     */
    long bytes() {
        long closed = total;
        return closed != OPEN ? closed & ~(CLOSED_EARLY | CLOSED_OWED) : offered;
    }

    /**
     * Bytes offered to this stint so far, admitted or rejected: grows with every record of at least
     * one byte, so an unchanged value means no such record came (the adapter's idle check).
     */
    long offered() {
        return offered;
    }

    /**
     * The partition's carry after this stint, once it closed: the overshoot,
     * {@code 0 <= carry < size of the last record}; or 0 if it closed early (the partition lost its
     * leader, so the bytes it still owed are forgiven: when it returns it takes an ordinary stint
     * instead of its backlog); or, if it was closed owed ({@link #closeOwed}), minus the bytes it
     * did not take, at most one stint of N: {@code -N <= carry < 0}.
     */
    long carryAfter() {
        long closed = total;
        if ((closed & CLOSED_EARLY) != 0) {
            return 0;
        }
        if ((closed & CLOSED_OWED) != 0) {
            long stickyBytes = target + carryBefore;
            return Math.max((closed & ~CLOSED_OWED) - target, -stickyBytes);
        }
        return closed - target;
    }

    /**
     * Records that the switch from this stint failed (the switching thread threw), so that a waiting
     * thread can take it over; see {@link TopicStickiness}.
     */
    void switchFailed() {
        SWITCH.setRelease(this, SWITCH_FAILED);
    }

    /**
     * Takes over a failed switch from this stint.
     *
     * @return true for the one caller that now owns the switch, false if the switch has not failed
     *     or another caller took it over
     */
    boolean takeOverFailedSwitch() {
        return switchState == SWITCH_FAILED && SWITCH.compareAndSet(this, SWITCH_FAILED, SWITCH_TAKEN_OVER);
    }

    @Override
    public String toString() {
        return "Stint(#" + sequence + " p" + partition + " " + bytes() + "/" + target
                + ((total & CLOSED_OWED) != 0 ? " closed owed" : closedEarly() ? " closed early" : "") + ")";
    }
}

/** The read-only fields of a {@link Stint}, first in its memory layout. */
abstract class StintFields {

    static final int SWITCH_PENDING = 0;
    static final int SWITCH_FAILED = 1;
    static final int SWITCH_TAKEN_OVER = 2;

    static final VarHandle SWITCH;

    static {
        try {
            SWITCH = MethodHandles.lookup().findVarHandle(StintFields.class, "switchState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final int partition;
    /** Bytes this stint admits before it closes: N minus the carry it starts with. At least 1. */
    final long target;
    /** The partition's carry when the stint began (bytes it is ahead of its quota; may be negative). */
    final long carryBefore;
    /** Number of stints of the topic before this one; equals the topic's switch count while current. */
    final long sequence;
    /** The round this stint is a visit of, and its position there. */
    final StickyRound round;
    final int position;

    /**
     * {@link #SWITCH_PENDING}; {@link #SWITCH_FAILED} if the thread switching from this stint threw;
     * {@link #SWITCH_TAKEN_OVER} once another thread took the switch over. Written only on failure,
     * so it stays a read-only field in practice.
     */
    volatile int switchState;

    StintFields(int partition, long target, long carryBefore, long sequence, StickyRound round, int position) {
        this.partition = partition;
        this.target = target;
        this.carryBefore = carryBefore;
        this.sequence = sequence;
        this.round = round;
        this.position = position;
    }
}

/** Keeps the counter's cache line away from the read-only fields. */
abstract class StintPadding extends StintFields {

    long p01, p02, p03, p04, p05, p06, p07, p08;

    StintPadding(int partition, long target, long carryBefore, long sequence, StickyRound round, int position) {
        super(partition, target, carryBefore, sequence, round, position);
    }
}

/**
 * The mutable state of a {@link Stint}, alone on its cache line: the counter of bytes offered and
 * the exact total once closed.
 */
abstract class StintCounter extends StintPadding {

    /** {@link #total} while the stint is open (a closed stint's total is at least 1, or flagged). */
    static final long OPEN = 0;

    /**
     * Set in {@link #total} when a stint ends before its target because its partition lost its
     * leader or vanished from the metadata. Far above any real byte count (2^62 bytes is 4 EiB).
     */
    static final long CLOSED_EARLY = 1L << 62;

    /**
     * Set in {@link #total} when a stint ends before its target because its caller's metadata is
     * older than the stint's round and lacks the partition; see {@link Stint#closeOwed}.
     */
    static final long CLOSED_OWED = 1L << 61;

    static final VarHandle OFFERED;
    static final VarHandle TOTAL;

    static {
        try {
            OFFERED = MethodHandles.lookup().findVarHandle(StintCounter.class, "offered", long.class);
            TOTAL = MethodHandles.lookup().findVarHandle(StintCounter.class, "total", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Bytes of every record offered, admitted or rejected: the sum of all adds. The stint is closed
     * once it reaches the target. It grows past the target by at most one rejected add per thread
     * (a rejected thread waits for the next stint before it adds again), each at most a record or a
     * target, so it cannot overflow.
     */
    volatile long offered;

    /**
     * {@link #OPEN}, then once, by the thread that closed the stint: the exact bytes admitted, with
     * {@link #CLOSED_EARLY} set if it closed early.
     */
    volatile long total;

    StintCounter(int partition, long target, long carryBefore, long sequence, StickyRound round, int position) {
        super(partition, target, carryBefore, sequence, round, position);
    }
}
