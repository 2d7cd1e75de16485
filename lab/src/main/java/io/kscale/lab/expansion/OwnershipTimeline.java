package io.kscale.lab.expansion;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * When each member of a group gained and lost each partition, as its client's rebalance callbacks
 * said, on one clock (members in this JVM): to find the moments when one task's partitions were
 * on two members at once, which a check of the settled group cannot see. Under KIP-848 the
 * coordinator hands each partition over on its own, so a task whose new child partition goes to
 * one member while its parent is still revoked by another is split for that window; under the
 * classic protocol a task split within one assignment shows the same way.
 *
 * <p>A member's hold on a partition runs from the callback that assigned it to the one that
 * revoked or lost it, or to the end of the run. Two holds of one task overlap when they are on
 * different members and each began before the other ended. Thread-safe.
 */
final class OwnershipTimeline {

    private static final long STILL_HELD = Long.MAX_VALUE;

    /** One member's hold on one partition. */
    private static final class Hold {
        final String member;
        final TopicPartition partition;
        final long fromNanos;
        long untilNanos = STILL_HELD;

        Hold(String member, TopicPartition partition, long fromNanos) {
            this.member = member;
            this.partition = partition;
            this.fromNanos = fromNanos;
        }
    }

    private final List<Hold> holds = new ArrayList<>();
    private final Map<String, Hold> open = new HashMap<>();
    private final long startNanos = System.nanoTime();

    synchronized void gained(String member, Collection<TopicPartition> partitions) {
        long now = System.nanoTime();
        for (TopicPartition partition : partitions) {
            open.computeIfAbsent(member + "/" + partition, key -> {
                Hold hold = new Hold(member, partition, now);
                holds.add(hold);
                return hold;
            });
        }
    }

    synchronized void lost(String member, Collection<TopicPartition> partitions) {
        long now = System.nanoTime();
        for (TopicPartition partition : partitions) {
            Hold hold = open.remove(member + "/" + partition);
            if (hold != null) {
                hold.untilNanos = now;
            }
        }
    }

    /**
     * @param taskCount T: partition p is in task p % T
     * @return one line per pair of members that held partitions of one task at once (the same
     *     partition included), with when and how long; empty if none did
     */
    synchronized List<String> splitTasks(int taskCount) {
        List<String> splits = new ArrayList<>();
        for (int i = 0; i < holds.size(); i++) {
            Hold a = holds.get(i);
            for (int j = i + 1; j < holds.size(); j++) {
                Hold b = holds.get(j);
                if (a.member.equals(b.member) || !a.partition.topic().equals(b.partition.topic())
                        || a.partition.partition() % taskCount != b.partition.partition() % taskCount) {
                    continue;
                }
                long from = Math.max(a.fromNanos, b.fromNanos);
                long until = Math.min(a.untilNanos, b.untilNanos);
                if (from < until) {
                    splits.add(String.format(Locale.ROOT, "task %d: %s on %s and %s on %s at once, from %.3f s for %s",
                            a.partition.partition() % taskCount, a.partition, a.member, b.partition, b.member,
                            (from - startNanos) / 1e9, until == STILL_HELD ? "the rest of the run"
                                    : String.format(Locale.ROOT, "%.3f s", (until - from) / 1e9)));
                }
            }
        }
        return splits;
    }
}
