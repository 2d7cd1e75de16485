package io.kscale.assignor.internals.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class HoldingsTest {

    @Test
    void shouldTakeFreeUnitsFirstAndTheLastAddedOfAWeight() {
        Holdings holdings = new Holdings();
        holdings.add(1, 2, true);
        holdings.add(2, 2, false);
        holdings.add(3, 2, false);
        assertTrue(holdings.hasFree(2));
        assertEquals(3, holdings.take(2));
        holdings.remove(3, 2, false);
        holdings.remove(2, 2, false);
        assertFalse(holdings.hasFree(2));
        assertTrue(holdings.has(2));
        assertEquals(1, holdings.take(2));
        holdings.remove(1, 2, true);
        assertFalse(holdings.has(2));
        assertEquals(-1, holdings.take(2));
    }

    @Test
    void shouldPickTheWeightClosestToHalfTheGapBelowIt() {
        Holdings holdings = new Holdings();
        holdings.add(10, 1, false);
        holdings.add(30, 3, false);
        holdings.add(70, 7, true);
        assertEquals(10, holdings.pick(2), "half of 2 is 1");
        assertEquals(30, holdings.pick(6), "3 is half of 6");
        assertEquals(10, holdings.pick(4), "1 and 3 are as close to 2: the lower");
        assertEquals(30, holdings.pick(8), "of the placed ones 3 is closest to 4; a kept one only when no placed one fits");
        holdings.remove(10, 1, false);
        holdings.remove(30, 3, false);
        assertEquals(-1, holdings.pick(7), "the kept 7 is not below a gap of 7");
        assertEquals(70, holdings.pick(8));
    }

    /**
     * Against the tree map of deques it replaced, on seeded random operations; every other round
     * adds placed units, then kept ones handed over as an array ({@link Holdings#keepAll}).
     */
    @Test
    void shouldAnswerAsATreeMapOfDequesDoes() {
        Random random = new Random(20261206L);
        for (int round = 0; round < 200; round++) {
            Map<Boolean, TreeMap<Long, ArrayDeque<Integer>>> model = Map.of(true, new TreeMap<>(), false, new TreeMap<>());
            int next = 0;
            Holdings holdings = new Holdings();
            if (round % 2 == 1) {
                // Placed units first, then kept ones handed over as an array (a target read as its member gives).
                for (int i = random.nextInt(4); i > 0; i--) {
                    long w = 1 + random.nextInt(6);
                    holdings.add(next, w, false);
                    model.get(false).computeIfAbsent(w, k -> new ArrayDeque<>()).addLast(next++);
                }
                long weight = 1 + random.nextInt(6);
                int[] ascending = new int[random.nextInt(20)];
                for (int i = 0; i < ascending.length; i++) {
                    ascending[i] = next;
                    model.get(true).computeIfAbsent(weight, k -> new ArrayDeque<>()).addLast(next++);
                }
                holdings.keepAll(ascending, weight);
            }
            for (int op = 0; op < 300; op++) {
                long w = 1 + random.nextInt(6);
                boolean kept = random.nextBoolean();
                TreeMap<Long, ArrayDeque<Integer>> side = model.get(kept);
                if (random.nextInt(3) > 0 || !side.containsKey(w)) {
                    holdings.add(next, w, kept);
                    side.computeIfAbsent(w, k -> new ArrayDeque<>()).addLast(next++);
                } else {
                    ArrayDeque<Integer> same = side.get(w);
                    Integer unit = same.stream().skip(random.nextInt(same.size())).findFirst().orElseThrow();
                    holdings.remove(unit, w, kept);
                    same.removeLastOccurrence(unit);
                    if (same.isEmpty()) {
                        side.remove(w);
                    }
                }
                long probe = 1 + random.nextInt(6);
                TreeMap<Long, ArrayDeque<Integer>> placed = model.get(false);
                TreeMap<Long, ArrayDeque<Integer>> keptUnits = model.get(true);
                assertEquals(placed.containsKey(probe) || keptUnits.containsKey(probe), holdings.has(probe));
                assertEquals(placed.containsKey(probe), holdings.hasFree(probe));
                int expected = placed.containsKey(probe) ? placed.get(probe).peekLast()
                        : keptUnits.containsKey(probe) ? keptUnits.get(probe).peekLast() : -1;
                assertEquals(expected, holdings.take(probe));
                long gap = 2 + random.nextInt(12);
                int closest = closest(placed, gap);
                assertEquals(closest >= 0 ? closest : closest(keptUnits, gap), holdings.pick(gap), "gap " + gap);
            }
        }
    }

    private static int closest(TreeMap<Long, ArrayDeque<Integer>> byWeight, long gap) {
        long half = gap / 2;
        Long below = byWeight.floorKey(half);
        Long above = byWeight.ceilingKey(half);
        if (above != null && above >= gap) {
            above = null;
        }
        Long weight = below == null ? above : above == null ? below : half - below <= above - half ? below : above;
        return weight == null ? -1 : byWeight.get(weight).peekLast();
    }
}
