package io.kscale.assignor.internals.server;

import io.kscale.assignor.KeyPreservingServerAssignor;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs what the assignor learns about topics' task counts, once per topic rather than once per
 * {@code assign()} call: INFO when a topic's T is decided, WARN when a topic is first held
 * because its T is not known yet, INFO when a held topic's T becomes known. Shared by every
 * group's {@code assign()} on the broker; thread-safe, without a lock.
 *
 * <p>The held topics are remembered until their T is known, at most {@value #MAX_REMEMBERED}
 * of them (a store that never loads on a cluster with more topics than that would otherwise
 * grow this set without bound); beyond that, further held topics are logged at DEBUG only. Their
 * number is the gauge {@code held-topics}.
 */
public final class TaskCountLog {

    static final int MAX_REMEMBERED = 100_000;

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingServerAssignor.class);

    private final Set<Uuid> held = ConcurrentHashMap.newKeySet();

    /** Creates an empty log. */
    public TaskCountLog() {
    }

    /** A topic whose T the store did not know yet. */
    void held(Uuid topicId, int partitions) {
        if (held.contains(topicId)) {
            return;
        }
        if (held.size() >= MAX_REMEMBERED) {
            log.debug("Topic id {} ({} partitions) is held: its task count T is not known yet", topicId, partitions);
            return;
        }
        if (held.add(topicId)) {
            log.warn("Topic id {} ({} partitions) is held: the task count store has not answered yet, and T must "
                    + "never come from today's partition count while it may be stored. Members keep the partitions of it "
                    + "they have; partitions nobody has stay unassigned. The coordinator asks for a new assignment only "
                    + "when the group changes (a member joins or leaves, a subscription or partition count changes): once "
                    + "the store has loaded, the group gets a full assignment at its next such change; to have it sooner, "
                    + "restart one member. Gauge: kscale.server:type=key-preserving-server-assignor,held-topics",
                    topicId, partitions);
        }
    }

    /** A topic whose T the store knows. */
    void known(Uuid topicId, int taskCount) {
        if (!held.isEmpty() && held.remove(topicId)) {
            log.info("Topic id {} is no longer held: its task count T is {}", topicId, taskCount);
        }
    }

    /** A topic new to the store: its T was just recorded, {@code taskCount} by whoever recorded it first. */
    void decided(Uuid topicId, int proposed, int taskCount, int partitions) {
        known(topicId, taskCount);
        if (taskCount == proposed) {
            log.info("Topic id {} gets task count T = {} (its partition count): partition p belongs to task p % {} "
                    + "from now on, for every group on this cluster", topicId, taskCount, taskCount);
        } else {
            log.info("Topic id {} ({} partitions) has task count T = {}, recorded first by another group or broker, or seeded from the classic assignor's layouts; "
                    + "partition p belongs to task p % {}", topicId, partitions, taskCount, taskCount);
        }
    }

    /** @return the number of topic ids held right now (remembered ones only) */
    public int heldTopics() {
        return held.size();
    }
}
