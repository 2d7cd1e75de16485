package io.kscale.assignor.internals.server;

import org.apache.kafka.common.Uuid;

/**
 * A store that never loads: every lookup answers {@link TaskCount#notYetKnown()}, so the assignor
 * holds every topic (members keep their current partitions, nothing new is assigned). What the
 * assignor uses while its real store has not started (or failed to start), and after
 * {@code close()}.
 */
// Used while the store has not started (or failed to start) and after close().
public final class NeverLoadedTaskCountStore implements TaskCountStore {

    /** Creates the placeholder. */
    public NeverLoadedTaskCountStore() {
    }

    @Override
    public TaskCount lookup(Uuid topicId) {
        return TaskCount.notYetKnown();
    }

    /** Never called by the assignor (no lookup answers "none stored"); records nothing. */
    @Override
    public int propose(Uuid topicId, int proposed, int partitionCount) {
        return proposed;
    }

    @Override
    public void close() {
    }
}
