package io.kscale.lab.expansion;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the expansion did to per-key state. A key is split when more than one member counted its
 * records; its final count is the count of the member that saw its last record (that member's
 * state is the key's state now), and it is wrong when that differs from the records sent.
 */
public final class KeyOutcome {

    private final int keys;
    private final int splitKeys;
    private final int wrongCounts;

    KeyOutcome(int keys, int splitKeys, int wrongCounts) {
        this.keys = keys;
        this.splitKeys = splitKeys;
        this.wrongCounts = wrongCounts;
    }

    static KeyOutcome of(List<CountingMember> members, Map<String, Long> sentPerKey) {
        Map<String, Integer> countedBy = new HashMap<>();
        Map<String, Long> finalCount = new HashMap<>();
        Map<String, Long> highest = new HashMap<>();
        for (CountingMember member : members) {
            Map<String, Long> counts = member.counts();
            Map<String, Long> last = member.lastSequences();
            counts.forEach((key, count) -> {
                countedBy.merge(key, 1, Integer::sum);
                long sequence = last.get(key);
                if (sequence >= highest.getOrDefault(key, -1L)) {
                    highest.put(key, sequence);
                    finalCount.put(key, count);
                }
            });
        }
        int split = (int) countedBy.values().stream().filter(n -> n > 1).count();
        int wrong = 0;
        for (Map.Entry<String, Long> sent : sentPerKey.entrySet()) {
            if (!sent.getValue().equals(finalCount.get(sent.getKey()))) {
                wrong++;
            }
        }
        return new KeyOutcome(sentPerKey.size(), split, wrong);
    }

    public int keys() {
        return keys;
    }

    /** @return keys whose records were counted by more than one member */
    public int splitKeys() {
        return splitKeys;
    }

    /** @return keys whose final count differs from the records sent */
    public int wrongCounts() {
        return wrongCounts;
    }

    public double splitShare() {
        return keys == 0 ? 0 : (double) splitKeys / keys;
    }

    @Override
    public String toString() {
        return String.format("%d keys, %d split (%.1f%%), %d wrong counts", keys, splitKeys, 100 * splitShare(), wrongCounts);
    }
}
