package io.kscale.lab.expansion;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The outcome of the {@link FaultedExpansionScenario}: the state of every key as the group
 * committed it, against what the producer had acknowledged, and what the faults did.
 */
public final class FaultedExpansionRun {

    private final ExpansionPeer peer;
    private final List<Integer> partitionSteps;
    private final int keys;
    private final int splitKeys;
    private final int wrongCounts;
    private final long sent;
    private final long missing;
    private final long deliveries;
    private final long distinct;
    private final long outOfOrder;
    private final long barrierOutOfOrder;
    private final List<String> problems;
    private final List<String> faults;
    private final long barrierWithoutTaskCount;
    private final Optional<Boolean> newLeaderAfterKill;
    private final long frozenLostPartitions;
    private final long frozenRefusedCommits;
    private final long staleAssignedPartitions;
    private final double seconds;

    private FaultedExpansionRun(ExpansionPeer peer, List<Integer> partitionSteps, int keys, int splitKeys,
                                int wrongCounts, long sent, long missing, long deliveries, long distinct,
                                long outOfOrder, long barrierOutOfOrder, long barrierWithoutTaskCount,
                                List<String> problems, List<String> faults, Optional<Boolean> newLeaderAfterKill,
                                long frozenLostPartitions, long frozenRefusedCommits, long staleAssignedPartitions,
                                double seconds) {
        this.peer = peer;
        this.partitionSteps = List.copyOf(partitionSteps);
        this.keys = keys;
        this.splitKeys = splitKeys;
        this.wrongCounts = wrongCounts;
        this.sent = sent;
        this.missing = missing;
        this.deliveries = deliveries;
        this.distinct = distinct;
        this.outOfOrder = outOfOrder;
        this.barrierOutOfOrder = barrierOutOfOrder;
        this.barrierWithoutTaskCount = barrierWithoutTaskCount;
        this.problems = List.copyOf(problems);
        this.faults = List.copyOf(faults);
        this.newLeaderAfterKill = newLeaderAfterKill;
        this.frozenLostPartitions = frozenLostPartitions;
        this.frozenRefusedCommits = frozenRefusedCommits;
        this.staleAssignedPartitions = staleAssignedPartitions;
        this.seconds = seconds;
    }

    /**
     * A key is split when it is in the committed state of a split task, or of two tasks; its
     * count is wrong when its committed count differs from the records acknowledged for it.
     */
    static FaultedExpansionRun of(ExpansionPeer peer, List<Integer> steps, Map<String, Long> sentPerKey,
                                  Map<Integer, TaskSnapshot> snapshots, TaskLineage lineage, List<String> faults,
                                  Optional<Boolean> newLeaderAfterKill, long frozenLostPartitions, long frozenRefusedCommits,
                                  long staleAssignedPartitions, double seconds) {
        Map<String, Long> committed = new HashMap<>();
        Map<String, Integer> tasksOfKey = new HashMap<>();
        Set<Integer> splitTasks = lineage.splitTasks();
        Set<String> split = new HashSet<>();
        snapshots.forEach((task, snapshot) -> snapshot.counts().forEach((key, state) -> {
            committed.put(key, state[0]);
            if (tasksOfKey.merge(key, 1, Integer::sum) > 1 || splitTasks.contains(task)) {
                split.add(key);
            }
        }));
        int wrong = 0;
        long sent = 0;
        for (Map.Entry<String, Long> entry : sentPerKey.entrySet()) {
            sent += entry.getValue();
            if (!entry.getValue().equals(committed.get(entry.getKey()))) {
                wrong++;
            }
        }
        return new FaultedExpansionRun(peer, steps, sentPerKey.size(), split.size(), wrong, sent,
                lineage.missing(sentPerKey), lineage.deliveries(), lineage.distinctRecords(), lineage.outOfOrder(),
                lineage.barrierOutOfOrder(), lineage.barrierWithoutTaskCount(), lineage.problems(), faults,
                newLeaderAfterKill, frozenLostPartitions, frozenRefusedCommits, staleAssignedPartitions, seconds);
    }

    public ExpansionPeer peer() {
        return peer;
    }

    public List<Integer> partitionSteps() {
        return partitionSteps;
    }

    /** @return keys the producer wrote (and had acknowledged) */
    public int keys() {
        return keys;
    }

    /** @return keys whose task's state was counted by two members side by side */
    public int splitKeys() {
        return splitKeys;
    }

    /** @return keys whose committed count differs from the records acknowledged for them */
    public int wrongCounts() {
        return wrongCounts;
    }

    /** @return records the producer had acknowledged */
    public long sent() {
        return sent;
    }

    /** @return records acknowledged but never delivered to any member */
    public long missing() {
        return missing;
    }

    /** @return records delivered more than once (after a crash or a freeze, before their commit) */
    public long redelivered() {
        return deliveries - distinct;
    }

    /** @return records counted after a higher number of their key in their task's state */
    public long outOfOrder() {
        return outOfOrder;
    }

    /**
     * @return records the members' barriers counted as returned after a later-stamped record of
     *         a sibling partition ({@code out-of-order-records-total}, read from JMX): never fewer
     *         than {@link #outOfOrder()} if no breach of order goes uncounted
     */
    public long barrierOutOfOrder() {
        return barrierOutOfOrder;
    }

    /**
     * @return partitions whose records the members' barriers returned unmerged because their
     *         topic's T was not read from the brokers' task count topic within the max hold
     *         ({@code unknown-task-count-releases-total}, from JMX); 0 on the classic protocol
     */
    public long barrierWithoutTaskCount() {
        return barrierWithoutTaskCount;
    }

    /** @return splits, partitions owned twice, records of a task a member did not hold */
    public List<String> problems() {
        return problems;
    }

    /** @return what was done to the cluster and the group, with the time since the start */
    public List<String> faults() {
        return faults;
    }

    /**
     * @return on the classic protocol, whether another member computed an assignment after the
     *         group leader was killed; empty on the consumer protocol, which has no group leader
     */
    public Optional<Boolean> newLeaderAfterKill() {
        return newLeaderAfterKill;
    }

    /** @return partitions the frozen member learned it had lost when it resumed */
    public long frozenLostPartitions() {
        return frozenLostPartitions;
    }

    /** @return commits of the frozen member that the group refused, from its freeze on */
    public long frozenRefusedCommits() {
        return frozenRefusedCommits;
    }

    /**
     * @return partitions that {@code onPartitionsAssigned} announced to a member but that its
     *         consumer did not assign (not in its {@code assignment()} during the callback or
     *         after the poll, or followed by an {@code onPartitionsLost} that did not name them),
     *         summed over all members; the members ignored them (seen with Kafka 4.4.0's consumer on the consumer protocol, for
     *         a member that exceeded {@code max.poll.interval.ms})
     */
    public long staleAssignedPartitions() {
        return staleAssignedPartitions;
    }

    public double seconds() {
        return seconds;
    }

    @Override
    public String toString() {
        return String.format("%s, faulted: partitions %s; %d keys, %d split, %d wrong counts; sent %d, missing %d, "
                        + "delivered again %d, out of order %d (the barriers counted %d)%s; new leader after the kill %s;"
                        + " frozen member lost %d partitions, %d commits refused; partitions the consumer announced"
                        + " but did not assign %d; %.1f s%n  faults: %s%n  problems: %s",
                peer.label(), partitionSteps, keys, splitKeys, wrongCounts, sent, missing, redelivered(), outOfOrder,
                barrierOutOfOrder, peer.isServerSide()
                        ? String.format("; partitions released unmerged for want of T %d", barrierWithoutTaskCount) : "",
                newLeaderAfterKill.map(String::valueOf).orElse("not applicable (the consumer protocol has no group leader)"),
                frozenLostPartitions, frozenRefusedCommits, staleAssignedPartitions, seconds, faults, problems);
    }
}
