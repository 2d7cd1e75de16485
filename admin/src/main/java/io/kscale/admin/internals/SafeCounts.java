package io.kscale.admin.internals;

import java.util.Collection;
import java.util.OptionalInt;

/**
 * Which partition counts keep every key of a topic in its task, given the task counts T of the
 * key-preserving groups that read it. Pure arithmetic.
 *
 * <p>A key goes to partition {@code hash % n}; a group with task count T puts it in task
 * {@code (hash % n) % T}, which equals {@code hash % T} exactly when {@code n} is a multiple of T.
 * A count keeps the keys of every group when it is a multiple of each of their Ts, that is a
 * multiple of their least common multiple. Example: Ts 4 and 6 give the step 12; at 12
 * partitions today, 24 and 36 are safe, 18 is not (18 % 4 == 2).
 */
public final class SafeCounts {

    /** The largest partition count this arithmetic answers for (Kafka allows far fewer per topic). */
    public static final int MAX_COUNT = 1 << 20;

    private final int step;

    private SafeCounts(int step) {
        this.step = step;
    }

    /**
     * @param taskCounts the Ts of the key-preserving groups, each at least 1; empty: any count is safe
     * @return the counts those Ts allow
     * @throws IllegalArgumentException if a T is below 1
     */
    public static SafeCounts of(Collection<Integer> taskCounts) {
        long step = 1;
        for (int t : taskCounts) {
            if (t < 1) {
                throw new IllegalArgumentException("a task count is at least 1, got " + t);
            }
            step = Math.min(lcm(step, t), (long) MAX_COUNT + 1);
        }
        return new SafeCounts((int) step);
    }

    /** @return the least common multiple of the Ts: every safe count is a multiple of it (above {@link #MAX_COUNT} if none is) */
    public int step() {
        return step;
    }

    /** @return whether {@code partitions} keeps every key of every group */
    public boolean keepsKeys(int partitions) {
        return partitions > 0 && partitions % step == 0;
    }

    /**
     * @param current today's partition count
     * @param requested the count asked for
     * @return the largest safe count above {@code current} and below {@code requested}, if any
     */
    public OptionalInt nearestBelow(int current, int requested) {
        long candidate = ((long) (requested - 1) / step) * step;
        return candidate > current ? OptionalInt.of((int) candidate) : OptionalInt.empty();
    }

    /**
     * @param current today's partition count
     * @param requested the count asked for
     * @return the smallest safe count above both, if one is within {@link #MAX_COUNT}
     */
    public OptionalInt nearestAbove(int current, int requested) {
        long floor = Math.max(current, requested);
        long candidate = (floor / step + 1) * step;
        return candidate <= MAX_COUNT ? OptionalInt.of((int) candidate) : OptionalInt.empty();
    }

    private static long lcm(long a, long b) {
        return a / gcd(a, b) * b;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long r = a % b;
            a = b;
            b = r;
        }
        return a;
    }
}
