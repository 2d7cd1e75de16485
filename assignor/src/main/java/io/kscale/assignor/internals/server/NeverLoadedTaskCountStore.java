package io.kscale.assignor.internals.server;

import org.apache.kafka.common.Uuid;

/**
 * A placeholder store that never loads: every lookup answers {@link TaskCount#notYetKnown()}, so
 * the assignor holds every topic (members keep their current partitions, nothing new is
 * assigned). Safe, never useful: it stands in for the durable store until that lands.
 */
// TODO(issue 18): replace with KafkaTaskCountStore as the default of KeyPreservingServerAssignor.
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
