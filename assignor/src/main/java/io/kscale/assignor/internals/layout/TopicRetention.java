package io.kscale.assignor.internals.layout;

import io.kscale.assignor.internals.layout.LayoutChange.Kind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Forgets the layouts of topics that are gone, so that a group reading rotating topics (one a
 * day, one per tenant) does not carry every topic it ever read in each member's userData.
 *
 * <p>The rules, per topic of the layout. It is <em>live</em> when a member subscribes to it or
 * the leader's metadata has it; a live topic keeps its layout, and a missing-since stamp it had
 * is cleared ({@link Kind#RETURNED}). A topic that is not live is stamped with the leader's clock
 * ({@link Kind#MISSING}), and forgotten ({@link Kind#FORGOTTEN}) by the first leader that sees it
 * still not live once the grace period has passed since the stamp. A stamp in the future (set by
 * a leader whose clock ran ahead) counts as now, so a topic is never kept much longer than the
 * grace period on the clock of the leader that forgets it.
 *
 * <p>Why the stamp is in the layout: a leader change in the middle of the grace period goes on
 * from the same moment, because the new leader reads the stamp from the members' reports (and,
 * after a full restart, from the store); a group that is entirely down forgets nothing, since no
 * leader runs. A member on a kscale without stamps reports the layout without them; the next
 * leader stamps the topic again, so the grace period restarts at most once per such report. A
 * member that missed the rebalance that forgot a topic may report it again, and the merge keeps
 * what any layout knows: with its stamp already expired, the leader forgets it again at once.
 *
 * <p>Worked example, grace period 1 h: day topic {@code clicks.0001} is subscribed at 00:00;
 * at 24:00 the members subscribe to {@code clicks.0002} and {@code clicks.0001} is deleted. The
 * leader of that rebalance stamps {@code clicks.0001} missing since 24:00; a leader at 24:30
 * keeps it; the first rebalance from 25:00 on forgets it. The layout never holds more than the
 * topics of the last hour plus the live ones.
 */
public final class TopicRetention {

    private TopicRetention() {
    }

    static LayoutUpdate apply(GroupLayout layout, Collection<String> live, long nowMs, long forgetAfterMs) {
        if (forgetAfterMs < 0) {
            throw new IllegalArgumentException("the grace period before forgetting a topic, " + forgetAfterMs
                    + " ms, is negative");
        }
        Set<String> liveTopics = live instanceof Set ? (Set<String>) live : new HashSet<>(live);
        SortedMap<String, TopicLayout> next = null;
        List<LayoutChange> changes = new ArrayList<>();
        for (TopicLayout topic : layout.topics()) {
            LayoutChange change = liveTopics.contains(topic.topic()) ? returned(topic)
                    : missing(topic, nowMs, forgetAfterMs);
            if (change == null) {
                continue;
            }
            if (next == null) {
                next = new TreeMap<>(layout.byName());
            }
            changes.add(change);
            if (change.after().isPresent()) {
                next.put(topic.topic(), change.after().get());
            } else {
                next.remove(topic.topic());
            }
        }
        return new LayoutUpdate(next == null ? layout : GroupLayout.ofSorted(GroupLayout.nextEpoch(layout.epoch()), next),
                changes);
    }

    /** @return RETURNED if the live topic was stamped, else null */
    private static LayoutChange returned(TopicLayout topic) {
        if (topic.missingSince().isEmpty()) {
            return null;
        }
        return new LayoutChange(topic.topic(), Kind.RETURNED, topic, topic.present(), null, String.format(
                "topic '%s' is back (subscribed or in the metadata again) after it went missing at %s: it keeps its "
                        + "layout, T=%d.", topic.topic(), Instant.ofEpochMilli(topic.missingSince().getAsLong()),
                topic.taskCount()));
    }

    /** @return FORGOTTEN once the grace period has passed, MISSING when first seen gone, else null */
    private static LayoutChange missing(TopicLayout topic, long nowMs, long forgetAfterMs) {
        boolean stamped = topic.missingSince().isPresent();
        // A clock before 1970 is no clock: stamps are never negative, so that the codec can write them.
        long now = Math.max(0, nowMs);
        long since = stamped ? Math.min(topic.missingSince().getAsLong(), now) : now;
        if (now - since >= forgetAfterMs) {
            return new LayoutChange(topic.topic(), Kind.FORGOTTEN, topic, null, null, String.format(
                    "topic '%s' has been neither subscribed by a member nor in the metadata since %s, for the whole "
                            + "grace period of %d ms: its layout (T=%d, %d partitions) is forgotten. If it comes back, "
                            + "it starts afresh like a new topic.", topic.topic(), Instant.ofEpochMilli(since),
                    forgetAfterMs, topic.taskCount(), topic.partitionCount()));
        }
        if (stamped && since == topic.missingSince().getAsLong()) {
            return null; // stamped already: waiting out the grace period
        }
        return new LayoutChange(topic.topic(), Kind.MISSING, topic, topic.withMissingSince(since), null, String.format(
                "topic '%s' is neither subscribed by a member nor in the metadata: its layout (T=%d) is forgotten at %s "
                        + "unless it comes back before.", topic.topic(), topic.taskCount(),
                Instant.ofEpochMilli(Math.min(Long.MAX_VALUE - forgetAfterMs, since) + forgetAfterMs)));
    }
}
