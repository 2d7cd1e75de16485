package io.kscale.assignor.internals.placement;

/**
 * Exact comparison of fractions such as load per capacity, without floating point (two loads
 * that are equal must compare equal, or ties would not break by id and the output would flap).
 */
public final class Ratios {

    private Ratios() {
    }

    /**
     * Compares {@code n1 / d1} with {@code n2 / d2} for positive denominators, exactly: the
     * cross products are compared as 128-bit numbers, so no product overflows.
     */
    static int compare(long n1, long d1, long n2, long d2) {
        long high1 = Math.multiplyHigh(n1, d2);
        long high2 = Math.multiplyHigh(n2, d1);
        if (high1 != high2) {
            return Long.compare(high1, high2);
        }
        return Long.compareUnsigned(n1 * d2, n2 * d1);
    }
}
