package io.kscale.lab.expansion;

import java.util.List;
import java.util.stream.Collectors;

/** The outcome of the expansion scenario for one assignor. */
public final class ExpansionRun {

    private final ExpansionPeer peer;
    private final List<Integer> partitionSteps;
    private final KeyOutcome keys;
    private final long sent;
    private final long received;
    private final long missing;
    private final OrderOutcome tailingOrder;
    private final OrderOutcome catchUpOrder;
    private final List<String> ownershipProblems;
    private final List<String> transientSplits;
    private final long rebalances;

    ExpansionRun(ExpansionPeer peer, List<Integer> partitionSteps, KeyOutcome keys, long sent, long received,
                 long missing, OrderOutcome tailingOrder, OrderOutcome catchUpOrder, List<String> ownershipProblems,
                 List<String> transientSplits, long rebalances) {
        this.peer = peer;
        this.partitionSteps = List.copyOf(partitionSteps);
        this.keys = keys;
        this.sent = sent;
        this.received = received;
        this.missing = missing;
        this.tailingOrder = tailingOrder;
        this.catchUpOrder = catchUpOrder;
        this.ownershipProblems = List.copyOf(ownershipProblems);
        this.transientSplits = List.copyOf(transientSplits);
        this.rebalances = rebalances;
    }

    public ExpansionPeer peer() {
        return peer;
    }

    public List<Integer> partitionSteps() {
        return partitionSteps;
    }

    /** @return split keys and wrong counts after the expansions, before the membership changes */
    public KeyOutcome keys() {
        return keys;
    }

    /** @return records the producer had acknowledged at the end */
    public long sent() {
        return sent;
    }

    /** @return distinct records the group received */
    public long received() {
        return received;
    }

    /** @return records sent but never received */
    public long missing() {
        return missing;
    }

    /** @return per-key order seen by the group that consumed live while the topic grew */
    public OrderOutcome tailingOrder() {
        return tailingOrder;
    }

    /** @return per-key order seen by a second group that read the whole topic afterwards */
    public OrderOutcome catchUpOrder() {
        return catchUpOrder;
    }

    /** @return partitions owned twice when the group had settled, per rebalance checked */
    public List<String> ownershipProblems() {
        return ownershipProblems;
    }

    /**
     * @return each moment at which two members held partitions of one task (T = the first
     *     partition count) at once, by their rebalance callbacks, over the whole run
     */
    public List<String> transientSplits() {
        return transientSplits;
    }

    /** @return assignments received by all members together */
    public long rebalances() {
        return rebalances;
    }

    @Override
    public String toString() {
        return String.format("%s: partitions %s; %s; sent %d, received %d, missing %d; tailing: %s; catching up: %s; "
                        + "ownership problems %s; tasks on two members at once %d %s; %d assignments", peer.label(),
                partitionSteps, keys, sent, received, missing, tailingOrder, catchUpOrder, ownershipProblems,
                transientSplits.size(), transientSplits.stream().limit(3).collect(Collectors.toList()), rebalances);
    }
}
