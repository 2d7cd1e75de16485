package io.kscale.lab.scaleout;

import java.util.Map;
import java.util.TreeMap;

/**
 * How each input partition progressed while it was watched: its committed offset (with
 * exactly-once, what the application has processed and stored), sampled about once a second.
 * For each partition: how many samples saw it advance, and its longest stall, the longest time
 * between two advances (or from the start of watching to the first advance, or from the last one
 * to the end). While a producer writes to every partition, a long stall is a task that processed
 * nothing: restoring, or waiting for a rebalance.
 */
public final class PartitionProgress {

    private final double startSeconds;
    private final Map<Integer, Long> lastOffset = new TreeMap<>();
    private final Map<Integer, Double> lastAdvance = new TreeMap<>();
    private final Map<Integer, Integer> advances = new TreeMap<>();
    private final Map<Integer, Double> longestStall = new TreeMap<>();
    private double endSeconds;

    /**
     * @param startSeconds when watching starts
     * @param committed committed offset per partition then
     */
    PartitionProgress(double startSeconds, Map<Integer, Long> committed) {
        this.startSeconds = startSeconds;
        this.endSeconds = startSeconds;
        committed.forEach((partition, offset) -> {
            lastOffset.put(partition, offset);
            lastAdvance.put(partition, startSeconds);
            advances.put(partition, 0);
            longestStall.put(partition, 0.0);
        });
    }

    /** Records one sample of the committed offsets. */
    void record(double seconds, Map<Integer, Long> committed) {
        endSeconds = seconds;
        committed.forEach((partition, offset) -> {
            if (offset > lastOffset.getOrDefault(partition, Long.MAX_VALUE)) {
                longestStall.merge(partition, seconds - lastAdvance.get(partition), Math::max);
                lastAdvance.put(partition, seconds);
                advances.merge(partition, 1, Integer::sum);
            }
            lastOffset.put(partition, offset);
        });
    }

    /** @return per partition, how many samples saw its committed offset advance */
    public Map<Integer, Integer> advances() {
        return Map.copyOf(advances);
    }

    /** @return per partition, its longest stall in seconds, the open stall at the end included */
    public Map<Integer, Double> longestStallSeconds() {
        Map<Integer, Double> stalls = new TreeMap<>(longestStall);
        lastAdvance.forEach((partition, at) -> stalls.merge(partition, endSeconds - at, Math::max));
        return stalls;
    }

    /** @return the longest stall over all partitions, in seconds */
    public double longestStallOfAnySeconds() {
        return longestStallSeconds().values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }

    /** @return seconds watched */
    public double watchedSeconds() {
        return endSeconds - startSeconds;
    }

    @Override
    public String toString() {
        Map<Integer, String> stalls = new TreeMap<>();
        longestStallSeconds().forEach((partition, stall) -> stalls.put(partition, String.format("%.1f s", stall)));
        return String.format("over %.1f s: advances per partition %s, longest stall per partition %s", watchedSeconds(),
                advances, stalls);
    }
}
