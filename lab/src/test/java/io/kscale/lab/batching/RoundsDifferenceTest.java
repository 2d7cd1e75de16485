package io.kscale.lab.batching;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RoundsDifferenceTest {

    @Test
    void shouldCallFourRoundsAllAboveTheOthersAheadAtTwoOfSeventySplits() {
        // 20,000 records/s bursty, linger.ms=5, in the four-round run of docs/measurements.md.
        RoundsDifference difference = RoundsDifference.of(new double[] {122.85, 103.63, 103.04, 107.66},
                new double[] {34.27, 33.87, 34.34, 33.82});

        assertThat(difference.p()).isCloseTo(2.0 / 70, within(1e-12));
        assertThat(difference.verdict()).isEqualTo("ahead (p = 0.03)");
    }

    @Test
    void shouldCallFourRoundsAllBelowTheOthersBehind() {
        RoundsDifference difference = RoundsDifference.of(new double[] {1, 2, 3, 4}, new double[] {5, 6, 7, 8});

        assertThat(difference.verdict()).isEqualTo("behind (p = 0.03)");
    }

    @Test
    void shouldShowNoDifferenceWhereTheRoundsOverlap() {
        // 1,000 records/s bursty, linger.ms=0: kscale 0.95x of the built-in's mean, one built-in round far above.
        RoundsDifference difference = RoundsDifference.of(new double[] {2.17, 1.97, 1.98, 2.03},
                new double[] {1.96, 1.94, 2.12, 2.58});

        // kscale's round is higher in 9 of the 16 pairs, one from the middle (8): every split but the 8 of 70
        // with U = 8 is at least as lopsided.
        assertThat(difference.p()).isCloseTo(62.0 / 70, within(1e-12));
        assertThat(difference.verdict()).isEqualTo("no difference shown (p = 0.89)");
    }

    @Test
    void shouldNeverShowADifferenceWithTwoRoundsEach() {
        RoundsDifference difference = RoundsDifference.of(new double[] {100, 101}, new double[] {1, 2});

        assertThat(difference.p()).isCloseTo(2.0 / 6, within(1e-12));
        assertThat(difference.verdict()).isEqualTo("no difference shown (p = 0.33)");
    }

    @Test
    void shouldCountATieAsHalfAPair() {
        RoundsDifference equal = RoundsDifference.of(new double[] {5, 5, 5}, new double[] {5, 5, 5});

        assertThat(equal.p()).isEqualTo(1.0);
    }

    @Test
    void shouldMatchAnEnumerationOfEverySplitOnSeededRounds() {
        SplittableRandom random = new SplittableRandom(27);
        for (int trial = 0; trial < 200; trial++) {
            double[] first = new double[1 + random.nextInt(6)];
            double[] second = new double[1 + random.nextInt(6)];
            for (int i = 0; i < first.length; i++) {
                first[i] = random.nextDouble() + (trial % 3 == 0 ? 0.5 : 0);
            }
            for (int i = 0; i < second.length; i++) {
                second[i] = random.nextDouble();
            }
            assertThat(RoundsDifference.of(first, second).p()).as("trial %d", trial)
                    .isCloseTo(countSplits(first, second), within(1e-12));
        }
    }

    @Test
    void shouldGiveNoVerdictWithoutRoundsOnBothSides() {
        assertThat(RoundsDifference.of(new double[0], new double[] {1})).isNull();
        assertThat(RoundsDifference.of(new double[] {1}, new double[0])).isNull();
    }

    /** The two-sided p by brute force: every split of all the values into sets of the two sizes (distinct values). */
    private static double countSplits(double[] first, double[] second) {
        double[] all = new double[first.length + second.length];
        System.arraycopy(first, 0, all, 0, first.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        int middle = first.length * second.length; // twice U's middle
        double measured = Math.abs(2 * pairsAbove(all, (1 << first.length) - 1) - middle);
        long splits = 0;
        long asFar = 0;
        for (int mask = 0; mask < 1 << all.length; mask++) {
            if (Integer.bitCount(mask) == first.length) {
                splits++;
                if (Math.abs(2 * pairsAbove(all, mask) - middle) >= measured) {
                    asFar++;
                }
            }
        }
        return (double) asFar / splits;
    }

    /** @return U: the pairs (a in the mask's set, b outside it) with a above b */
    private static int pairsAbove(double[] all, int mask) {
        int u = 0;
        for (int a = 0; a < all.length; a++) {
            for (int b = 0; b < all.length; b++) {
                if ((mask >> a & 1) == 1 && (mask >> b & 1) == 0 && all[a] > all[b]) {
                    u++;
                }
            }
        }
        return u;
    }
}
