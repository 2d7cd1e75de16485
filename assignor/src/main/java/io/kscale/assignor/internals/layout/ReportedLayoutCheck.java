package io.kscale.assignor.internals.layout;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether the leader may use a layout a member reported. A report is untrusted input: a broken or
 * hostile member, or one configured for another group, may send any T, partition count and epoch
 * that the codec accepts (each within 1..2<sup>20</sup>), and the merge lets the highest epoch
 * win, then the most partitions ({@link LayoutMerge}). Unchecked, one report of T = 2<sup>20</sup>
 * for a 4-partition topic made every partition its own task, so that after 4 -> 8 keys split
 * across members; an epoch of {@code Long.MAX_VALUE} then stuck for good (only higher epochs
 * replace, in the merge and in the store); and an inflated partition count made every later
 * expansion look {@link LayoutChange.Kind#SHRUNK}, so affinity breaks went uncounted (issue 25).
 *
 * <p>What the leader trusts: the task counts declared in its settings, the layout it knows the
 * store holds, and its own layout (what its last assignment said). The rules, per report:
 * <ol>
 *   <li>Its epoch is at most one past the newest trusted epoch: a leader that took part in the last
 *       rebalance knows the epoch every honest member reports, and the store lags by a save at
 *       most. With nothing trusted (a leader that knows no layout and no store), at most
 *       {@link #MAX_EPOCH}, so that no report can make the epoch stick at {@code Long.MAX_VALUE}.</li>
 *   <li>Per topic, the partition count is at most the metadata's or the trusted layout's,
 *       whichever is larger (the leader's metadata may lag behind an expansion the last leader
 *       saw; the trusted layout then has the count).</li>
 *   <li>Per topic, T is the declared one; or the trusted one (the store's before the leader's own:
 *       the store wins a disagreement) of the same topic id; or, if nothing trusted knows the topic
 *       or the report is newer than all that is trusted, consistent with its count: T is at most
 *       the count and divides it. Under {@link ExpansionPolicy#KEEP} T need not divide it: that
 *       policy keeps T when a topic grows to a count that is not a multiple (T=4 with 6
 *       partitions), and no other rule accepts such a layout at a leader that knows nothing.</li>
 * </ol>
 * A report that breaks a rule is rejected whole: a member that is wrong about one topic is not
 * believed about the others. The leader then merges the other reports; if no one else knew a
 * topic, the store is read, or the topic starts afresh.
 *
 * <p>What this cannot tell: a T at most the count that divides it, at an epoch one past the
 * trusted one, from a member when the leader trusts nothing else about the topic. Such a report
 * is the same as an honest one.
 *
 * <p>Example: the leader's own layout is epoch 7 with {@code orders} T=4 and 8 partitions, the
 * metadata says 8. A report of epoch 8 with T=8, 8 partitions is newer and consistent: accepted
 * (a REBASE the leader has not seen looks the same). Epoch 7 with T=8: the trusted T=4 wins,
 * rejected. Epoch 8 with T=2<sup>20</sup>: above the count, rejected. Epoch 8 with T=4 and
 * 2<sup>20</sup> partitions: more than the metadata and the trusted layout have, rejected. Epoch
 * {@code Long.MAX_VALUE}: more than one past 7, rejected.
 */
public final class ReportedLayoutCheck {

    /**
     * The highest epoch a report may carry, trusted layouts or not: a group that changed its layout
     * every millisecond would reach it after 8,900 years. Far below {@code Long.MAX_VALUE}, at which
     * the epoch would stop growing, so that a report can never freeze it (every later layout at the
     * same epoch, and the store never replaced).
     */
    public static final long MAX_EPOCH = 1L << 48;

    private final Map<String, Integer> declared;
    private final Optional<GroupLayout> stored;
    private final GroupLayout own;
    private final Map<String, Integer> counts;
    private final ExpansionPolicy policy;
    private final long trustedEpoch;

    /**
     * @param declared the task counts declared in the leader's settings
     * @param stored the layout the leader knows the store holds, if it knows
     * @param own the leader's own layout, from its last assignment; empty if it knows none
     * @param counts the partition counts of the leader's metadata
     * @param policy the leader's expansion policy
     */
    public ReportedLayoutCheck(Map<String, Integer> declared, Optional<GroupLayout> stored, GroupLayout own,
                               Map<String, Integer> counts, ExpansionPolicy policy) {
        this.declared = Objects.requireNonNull(declared, "declared");
        this.stored = Objects.requireNonNull(stored, "stored");
        this.own = Objects.requireNonNull(own, "own");
        this.counts = Objects.requireNonNull(counts, "counts");
        this.policy = Objects.requireNonNull(policy, "policy");
        long epoch = own.isEmpty() ? -1 : own.epoch();
        if (stored.isPresent() && !stored.get().isEmpty()) {
            epoch = Math.max(epoch, stored.get().epoch());
        }
        this.trustedEpoch = epoch;
    }

    /** @return whether the leader trusts any layout (else only declared counts and the metadata check reports) */
    public boolean trustsAny() {
        return trustedEpoch >= 0;
    }

    /**
     * @param reported a layout a member reported
     * @return why it is rejected; empty if the leader may use it
     */
    public Optional<String> rejection(GroupLayout reported) {
        if (reported.isEmpty()) {
            return Optional.empty();
        }
        if (reported.epoch() > MAX_EPOCH) {
            return Optional.of(String.format("its epoch %d is beyond %d, more than any group reaches", reported.epoch(),
                    MAX_EPOCH));
        }
        if (trustedEpoch >= 0 && reported.epoch() > trustedEpoch + 1) {
            return Optional.of(String.format("its epoch %d is more than one past %d, the newest the leader knows",
                    reported.epoch(), trustedEpoch));
        }
        for (TopicLayout topic : reported.topics()) {
            Optional<String> rejection = rejection(topic, reported.epoch() > trustedEpoch);
            if (rejection.isPresent()) {
                return rejection;
            }
        }
        return Optional.empty();
    }

    private Optional<String> rejection(TopicLayout topic, boolean newer) {
        String name = topic.topic();
        TopicLayout trusted = trusted(topic);
        Integer count = counts.get(name);
        if (count != null || trusted != null) {
            int bound = Math.max(count == null ? 0 : count, trusted == null ? 0 : trusted.partitionCount());
            if (topic.partitionCount() > bound) {
                return Optional.of(String.format("topic '%s' has %d partitions in it, more than the %d the metadata "
                        + "or the leader's layout has", name, topic.partitionCount(), bound));
            }
        }
        int tasks = topic.taskCount();
        if (Integer.valueOf(tasks).equals(declared.get(name)) || trusted != null && trusted.taskCount() == tasks) {
            return Optional.empty();
        }
        if (trusted != null && !newer) {
            return Optional.of(String.format("topic '%s' has T=%d in it, where the %s holds T=%d", name, tasks,
                    trustedFromStore(topic) ? "layout store" : "leader's layout", trusted.taskCount()));
        }
        boolean divides = topic.partitionCount() % tasks == 0;
        if (tasks > topic.partitionCount() || !divides && policy != ExpansionPolicy.KEEP) {
            return Optional.of(String.format("topic '%s' has T=%d with %d partitions in it: T is neither declared, nor "
                    + "the one the leader knows, nor %s", name, tasks, topic.partitionCount(),
                    policy == ExpansionPolicy.KEEP ? "at most the partition count"
                            : "at most the partition count and a divisor of it"));
        }
        return Optional.empty();
    }

    /** The trusted layout of the topic, of the same topic id: the store's, else the leader's own; null for none. */
    private TopicLayout trusted(TopicLayout topic) {
        TopicLayout fromStore = stored.flatMap(layout -> layout.topic(topic.topic())).filter(t -> sameId(t, topic))
                .orElse(null);
        return fromStore != null ? fromStore
                : own.topic(topic.topic()).filter(t -> sameId(t, topic)).orElse(null);
    }

    private boolean trustedFromStore(TopicLayout topic) {
        return stored.flatMap(layout -> layout.topic(topic.topic())).filter(t -> sameId(t, topic)).isPresent();
    }

    /** Whether two layouts may be of one topic: their ids are equal, or one has none (made before ids). */
    private static boolean sameId(TopicLayout a, TopicLayout b) {
        return a.topicId().isEmpty() || b.topicId().isEmpty() || a.topicId().equals(b.topicId());
    }
}
