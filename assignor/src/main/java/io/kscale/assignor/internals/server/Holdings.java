package io.kscale.assignor.internals.server;

import java.util.Arrays;

/**
 * A member's units of one class by weight, those placed this time (free to move) apart from
 * those kept, for the evenings of {@link UnitPlacer} and {@link SpreadNarrower}. Of each weight,
 * the unit added last is taken first.
 *
 * <p>Sorted arrays of the weights held, each with a stack of units: a class's units differ in
 * weight only where its topics' partition counts are not multiples of T, so a member holds units
 * of one or two weights, and looking one up is a short binary search. A tree map of deques, what
 * this replaced, boxed every unit and cost a map and a deque per member and class: building the
 * holdings of 10,000 units was most of a member change of a group with mixed subscriptions.
 */
final class Holdings {

    private final UnitsByWeight placed = new UnitsByWeight();
    private final UnitsByWeight kept = new UnitsByWeight();

    /**
     * Keeps units of one weight, in holdings that keep none yet (placed ones they may hold).
     *
     * @param ascending units of one weight, ascending, all kept: adopted as they are (the caller
     *                  hands the array over), what adding them one by one in this order makes
     */
    void keepAll(int[] ascending, long weight) {
        if (ascending.length > 0) {
            kept.adopt(ascending, weight);
        }
    }

    void add(int unit, long weight, boolean isKept) {
        (isKept ? kept : placed).push(unit, weight);
    }

    void remove(int unit, long weight, boolean isKept) {
        (isKept ? kept : placed).remove(unit, weight);
    }

    boolean has(long weight) {
        return placed.has(weight) || kept.has(weight);
    }

    /** @return whether it holds a unit of this weight that moving costs nothing (not on its prior owner) */
    boolean hasFree(long weight) {
        return placed.has(weight);
    }

    /** @return a unit of this weight, a free one first; the caller moves it (see {@link #remove}) */
    int take(long weight) {
        int unit = placed.last(weight);
        return unit >= 0 ? unit : kept.last(weight);
    }

    /** @return a unit with weight in [1, gap), placed ones first, the weight closest to gap / 2; -1 if none */
    int pick(long gap) {
        int unit = placed.closest(gap);
        return unit >= 0 ? unit : kept.closest(gap);
    }

    /** Stacks of units by weight; the weights ascending, each with at least one unit. */
    private static final class UnitsByWeight {
        private static final long[] NO_WEIGHTS = {};
        private static final int[][] NO_STACKS = {};

        private long[] weights = NO_WEIGHTS;
        private int[][] stacks = NO_STACKS;
        private int[] sizes;
        private int count;

        /** Makes {@code units} (non-empty) the stack of {@code weight}, in an instance holding nothing yet. */
        void adopt(int[] units, long weight) {
            insert(0, weight);
            stacks[0] = units;
            sizes[0] = units.length;
        }

        void push(int unit, long weight) {
            // Most units of a member weigh the same: the heaviest weight held so far, looked up first.
            int i = count > 0 && weights[count - 1] == weight ? count - 1 : Arrays.binarySearch(weights, 0, count, weight);
            if (i < 0) {
                i = insert(-i - 1, weight);
            }
            if (sizes[i] == stacks[i].length) {
                stacks[i] = Arrays.copyOf(stacks[i], stacks[i].length * 2);
            }
            stacks[i][sizes[i]++] = unit;
        }

        /** Removes the unit's last occurrence; the caller knows it holds it. */
        void remove(int unit, long weight) {
            int i = Arrays.binarySearch(weights, 0, count, weight);
            int[] stack = stacks[i];
            int at = sizes[i] - 1;
            while (stack[at] != unit) {
                at--; // usually the top: a move takes the unit added last
            }
            System.arraycopy(stack, at + 1, stack, at, sizes[i] - at - 1);
            if (--sizes[i] == 0) {
                delete(i);
            }
        }

        boolean has(long weight) {
            return Arrays.binarySearch(weights, 0, count, weight) >= 0;
        }

        /** @return the unit of this weight added last, or -1 if none */
        int last(long weight) {
            int i = Arrays.binarySearch(weights, 0, count, weight);
            return i >= 0 ? stacks[i][sizes[i] - 1] : -1;
        }

        /** @return of the weights in [1, gap), a unit of the one closest to gap / 2 (the lower on a tie); -1 if none */
        int closest(long gap) {
            long half = gap / 2;
            int i = Arrays.binarySearch(weights, 0, count, half);
            if (i >= 0) {
                return last(i);
            }
            int above = -i - 1;
            int below = above - 1;
            boolean aboveFits = above < count && weights[above] < gap;
            if (below >= 0 && (!aboveFits || half - weights[below] <= weights[above] - half)) {
                return last(below);
            }
            return aboveFits ? last(above) : -1;
        }

        private int last(int i) {
            return stacks[i][sizes[i] - 1];
        }

        private int insert(int i, long weight) {
            if (count == weights.length) {
                int capacity = Math.max(1, count * 2);
                weights = Arrays.copyOf(weights, capacity);
                stacks = Arrays.copyOf(stacks, capacity);
                sizes = sizes == null ? new int[capacity] : Arrays.copyOf(sizes, capacity);
            }
            System.arraycopy(weights, i, weights, i + 1, count - i);
            System.arraycopy(stacks, i, stacks, i + 1, count - i);
            System.arraycopy(sizes, i, sizes, i + 1, count - i);
            weights[i] = weight;
            stacks[i] = new int[2];
            sizes[i] = 0;
            count++;
            return i;
        }

        private void delete(int i) {
            System.arraycopy(weights, i + 1, weights, i, count - i - 1);
            System.arraycopy(stacks, i + 1, stacks, i, count - i - 1);
            System.arraycopy(sizes, i + 1, sizes, i, count - i - 1);
            count--;
            stacks[count] = null;
        }
    }
}
