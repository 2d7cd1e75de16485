package io.kscale.lab.expansion;

import java.util.List;

/** The outcome of {@link InterruptedExpansionScenario} for one assignor and one interruption. */
public final class InterruptedExpansionRun {

    private final ExpansionPeer peer;
    private final ExpansionPeer peerBefore;
    private final Interruption interruption;
    private final String path;
    private final KeyOutcome before;
    private final KeyOutcome after;
    private final long sent;
    private final long missing;
    private final List<String> ownershipProblems;

    InterruptedExpansionRun(ExpansionPeer peer, ExpansionPeer peerBefore, Interruption interruption, String path, KeyOutcome before,
                            KeyOutcome after, long sent, long missing, List<String> ownershipProblems) {
        this.peer = peer;
        this.peerBefore = peerBefore;
        this.interruption = interruption;
        this.path = path;
        this.before = before;
        this.after = after;
        this.sent = sent;
        this.missing = missing;
        this.ownershipProblems = List.copyOf(ownershipProblems);
    }

    public ExpansionPeer peer() {
        return peer;
    }

    /** @return the assignor of the growth before the interruption: {@link #peer()}, or the classic one migrated from */
    public ExpansionPeer peerBefore() {
        return peerBefore;
    }

    public Interruption interruption() {
        return interruption;
    }

    /** @return the partition counts and the interruption, e.g. {@code 4->8 | group restart | 8->12} */
    public String path() {
        return path;
    }

    /** @return split keys and wrong counts of the first generation, over the growth before the interruption */
    public KeyOutcome before() {
        return before;
    }

    /**
     * @return split keys and wrong counts over the growth after the interruption, of the members
     *     that counted it, against the records sent since they joined (the whole run when the
     *     members stayed, as through a broker restart)
     */
    public KeyOutcome after() {
        return after;
    }

    /** @return records acknowledged to the producers */
    public long sent() {
        return sent;
    }

    /** @return records acknowledged and never received */
    public long missing() {
        return missing;
    }

    /** @return partitions owned twice when the group had settled, per rebalance checked */
    public List<String> ownershipProblems() {
        return ownershipProblems;
    }

    @Override
    public String toString() {
        return String.format("%s, %s: %s; before: %s; after: %s; sent %d, missing %d; ownership problems %s",
                peer.label(), interruption.label(), path, before, after, sent, missing, ownershipProblems);
    }
}
