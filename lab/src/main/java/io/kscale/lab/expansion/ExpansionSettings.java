package io.kscale.lab.expansion;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.GroupProtocol;

/**
 * What the expansion scenario does: the partition counts the topic goes through, the group's size,
 * the keys and the producer's pace. Defaults: the classic protocol's peers, 4 -> 8 -> 16 partitions,
 * 3 members, 200 keys, 2,000 records/s, 4,000 records per step, members on Java's
 * {@code KafkaConsumer} in this JVM.
 */
public final class ExpansionSettings {

    private final List<ExpansionPeer> peers;
    private final List<Integer> partitionSteps;
    private final int members;
    private final int keys;
    private final int recordsPerSecond;
    private final long recordsPerStep;
    private final Optional<MemberCommand> memberCommand;
    private final Optional<Duration> barrierGrace;
    private final boolean joinAtGrowth;

    public ExpansionSettings(List<ExpansionPeer> peers, List<Integer> partitionSteps, int members, int keys,
                             int recordsPerSecond, long recordsPerStep) {
        this(peers, partitionSteps, members, keys, recordsPerSecond, recordsPerStep, Optional.empty(), Optional.empty(),
                false);
    }

    private ExpansionSettings(List<ExpansionPeer> peers, List<Integer> partitionSteps, int members, int keys,
                              int recordsPerSecond, long recordsPerStep, Optional<MemberCommand> memberCommand,
                              Optional<Duration> barrierGrace, boolean joinAtGrowth) {
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
        this.memberCommand = memberCommand;
        this.barrierGrace = barrierGrace;
        this.joinAtGrowth = joinAtGrowth;
    }

    /** The defaults, with the classic protocol's peers. */
    public static ExpansionSettings defaults() {
        return defaults(GroupProtocol.CLASSIC);
    }

    /** The defaults, with every peer of {@code protocol} ({@link ExpansionPeer#of}). */
    public static ExpansionSettings defaults(GroupProtocol protocol) {
        return new ExpansionSettings(ExpansionPeer.of(protocol), List.of(4, 8, 16), 3, 200, 2_000, 4_000);
    }

    /** These settings with other peers. */
    public ExpansionSettings withPeers(List<ExpansionPeer> otherPeers) {
        return new ExpansionSettings(otherPeers, partitionSteps, members, keys, recordsPerSecond, recordsPerStep,
                memberCommand, barrierGrace, joinAtGrowth);
    }

    /** These settings with other partition counts. */
    public ExpansionSettings withPartitionSteps(List<Integer> steps) {
        return new ExpansionSettings(peers, steps, members, keys, recordsPerSecond, recordsPerStep, memberCommand,
                barrierGrace, joinAtGrowth);
    }

    /** These settings with another producer pace and step size. */
    public ExpansionSettings withRecords(int otherRecordsPerSecond, long otherRecordsPerStep) {
        return new ExpansionSettings(peers, partitionSteps, members, keys, otherRecordsPerSecond, otherRecordsPerStep,
                memberCommand, barrierGrace, joinAtGrowth);
    }

    /**
     * These settings with members that run another client in child processes, one per member
     * (consumer-protocol peers only, on plaintext clusters).
     */
    public ExpansionSettings withMemberCommand(MemberCommand command) {
        return new ExpansionSettings(peers, partitionSteps, members, keys, recordsPerSecond, recordsPerStep,
                Optional.of(command), barrierGrace, joinAtGrowth);
    }

    /** @return whether some peer needs the broker-side assignors ({@link ExpansionPeer#isServerSide()}) */
    public boolean needsServerAssignors() {
        return peers.stream().anyMatch(ExpansionPeer::isServerSide);
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

    /**
     * These settings with the members' {@code kscale.barrier.grace.ms} (and a max hold of at
     * least it), for the scenarios whose members poll through {@code ExpansionBarrier}.
     */
    public ExpansionSettings withBarrierGrace(Duration grace) {
        return new ExpansionSettings(peers, partitionSteps, members, keys, recordsPerSecond, recordsPerStep,
                memberCommand, Optional.of(grace), joinAtGrowth);
    }

    /**
     * These settings with a member joining right after the last growth, so that the growth and
     * the join can land in one rebalance (the expansion scenario).
     */
    public ExpansionSettings withJoinAtGrowth() {
        return new ExpansionSettings(peers, partitionSteps, members, keys, recordsPerSecond, recordsPerStep,
                memberCommand, barrierGrace, true);
    }

    /** @return whether a member joins right after the last growth */
    public boolean joinAtGrowth() {
        return joinAtGrowth;
    }

    /** @return the barrier's grace for the members, or empty for the barrier's default */
    public Optional<Duration> barrierGrace() {
        return barrierGrace;
    }

    /** @return the client the members run in child processes, or empty for Java's consumer here */
    public Optional<MemberCommand> memberCommand() {
        return memberCommand;
    }
}
