package io.kscale.lab.expansion;

import java.util.List;

/**
 * What the expansion scenario does: the partition counts the topic goes through, the group's size,
 * the keys and the producer's pace. Defaults: 4 -> 8 -> 16 partitions, 3 members, 200 keys,
 * 2,000 records/s, 4,000 records per step.
 */
public final class ExpansionSettings {

    private final List<ExpansionPeer> peers;
    private final List<Integer> partitionSteps;
    private final int members;
    private final int keys;
    private final int recordsPerSecond;
    private final long recordsPerStep;

    public ExpansionSettings(List<ExpansionPeer> peers, List<Integer> partitionSteps, int members, int keys,
                             int recordsPerSecond, long recordsPerStep) {
        if (peers.isEmpty() || partitionSteps.isEmpty() || members < 1 || keys < 1 || recordsPerSecond < 1
                || recordsPerStep < 1) {
            throw new IllegalArgumentException("expansion settings need peers, steps and positive sizes");
        }
        for (int i = 1; i < partitionSteps.size(); i++) {
            if (partitionSteps.get(i) <= partitionSteps.get(i - 1)) {
                throw new IllegalArgumentException("partition counts must grow: " + partitionSteps);
            }
        }
        this.peers = List.copyOf(peers);
        this.partitionSteps = List.copyOf(partitionSteps);
        this.members = members;
        this.keys = keys;
        this.recordsPerSecond = recordsPerSecond;
        this.recordsPerStep = recordsPerStep;
    }

    public static ExpansionSettings defaults() {
        return new ExpansionSettings(List.of(ExpansionPeer.values()), List.of(4, 8, 16), 3, 200, 2_000, 4_000);
    }

    public List<ExpansionPeer> peers() {
        return peers;
    }

    public List<Integer> partitionSteps() {
        return partitionSteps;
    }

    public int members() {
        return members;
    }

    public int keys() {
        return keys;
    }

    public int recordsPerSecond() {
        return recordsPerSecond;
    }

    public long recordsPerStep() {
        return recordsPerStep;
    }
}
