package io.kscale.lab.batching;

import java.util.Locale;

/**
 * Whether one partitioner's rounds in a cell differ from another's by more than rounds of the same
 * partitioner differ among themselves: an exact two-sided Mann-Whitney rank-sum test on the
 * rounds' values. Records per request at a low rate follow the request round trip more than the
 * partitioner, so they move from round to round with the latency; a ratio of means below or above
 * 1.0x is then no finding by itself. The test asks only how the rounds rank: if the two partitioners were
 * alike, every way of splitting all their rounds into two sets of those sizes would be equally
 * likely, and p is the share of splits at least as lopsided as the one measured.
 *
 * <p>With 4 rounds each there are 70 splits: only complete separation (every round of one above
 * every round of the other) gives p = 2/70 = 0.029 below 0.05; with 2 rounds each no outcome
 * does (p is at least 1/3), so the default of 2 rounds can show no difference.
 */
final class RoundsDifference {

    /** Below this p, the cell shows a difference. */
    static final double SIGNIFICANCE = 0.05;

    /** Up to this many rounds in all, the count of splits (C(60, 30) < 2^57) fits in a long; no realistic run has more. */
    private static final int MAX_ROUNDS = 60;

    private final double p;
    private final boolean firstHigher;

    private RoundsDifference(double p, boolean firstHigher) {
        this.p = p;
        this.firstHigher = firstHigher;
    }

    /**
     * @param first  the rounds of one partitioner, e.g. kscale's records per request
     * @param second the rounds of the other, e.g. the built-in's
     * @return the comparison, or null if either has no rounds or there are more than 60 in all
     */
    static RoundsDifference of(double[] first, double[] second) {
        int n = first.length;
        int m = second.length;
        if (n == 0 || m == 0 || n + m > MAX_ROUNDS) {
            return null;
        }
        // U counts the pairs (first, second) in which first's round is higher, a tie as half: in halves, to stay integral.
        int halves = 0;
        for (double a : first) {
            for (double b : second) {
                halves += a > b ? 2 : a == b ? 1 : 0;
            }
        }
        long[] ways = splitsByU(n, m);
        long all = 0;
        for (long w : ways) {
            all += w;
        }
        // Two-sided: the splits whose U is at least as far from its middle (n x m / 2) as the one measured.
        double distance = Math.abs(halves - n * m);
        long asFar = 0;
        for (int u = 0; u < ways.length; u++) {
            if (Math.abs(2 * u - n * m) >= distance) {
                asFar += ways[u];
            }
        }
        return new RoundsDifference((double) asFar / all, halves > n * m);
    }

    /**
     * @return by U = 0..n x m, how many of the C(n + m, n) splits of n + m distinct values into sets
     *         of n and m give that U: the count of (a, b) pairs with a higher, by the recurrence on
     *         whether the highest value is in the first set (it beats all m) or the second
     */
    private static long[] splitsByU(int n, int m) {
        // ways[i][j][u]: splits of i + j values into i and j; built up from i = 0 or j = 0, which have one split with U = 0.
        long[][][] ways = new long[n + 1][m + 1][];
        for (int i = 0; i <= n; i++) {
            for (int j = 0; j <= m; j++) {
                ways[i][j] = new long[i * j + 1];
                if (i == 0 || j == 0) {
                    ways[i][j][0] = 1;
                    continue;
                }
                for (int u = 0; u <= i * j; u++) {
                    long highestFirst = u >= j ? ways[i - 1][j][u - j] : 0;
                    long highestSecond = u < ways[i][j - 1].length ? ways[i][j - 1][u] : 0;
                    ways[i][j][u] = highestFirst + highestSecond;
                }
            }
        }
        return ways[n][m];
    }

    /** @return the share of splits at least as lopsided as the measured one */
    double p() {
        return p;
    }

    /** @return "ahead", "behind" (of the first against the second) or "no difference shown", with p */
    String verdict() {
        String word = p >= SIGNIFICANCE ? "no difference shown" : firstHigher ? "ahead" : "behind";
        return String.format(Locale.ROOT, "%s (p = %.2f)", word, p);
    }
}
