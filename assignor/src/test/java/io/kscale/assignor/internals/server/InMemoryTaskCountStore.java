package io.kscale.assignor.internals.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.Uuid;

/**
 * A {@link TaskCountStore} in memory, for tests: loaded (answers known or none stored) or not
 * (answers not yet known), switchable; the first proposal of a topic id wins, as in the store's
 * log. Thread-safe.
 */
public final class InMemoryTaskCountStore implements TaskCountStore {

    private final Map<Uuid, Integer> taskCounts = new ConcurrentHashMap<>();
    private final AtomicInteger proposals = new AtomicInteger();
    private volatile boolean loaded;
    private volatile boolean closed;

    /** @param loaded whether lookups answer from the store already */
    public InMemoryTaskCountStore(boolean loaded) {
        this.loaded = loaded;
    }

    /** A loaded store. */
    public InMemoryTaskCountStore() {
        this(true);
    }

    public InMemoryTaskCountStore loaded(boolean loaded) {
        this.loaded = loaded;
        return this;
    }

    /** Records T as if some group had recorded it earlier. */
    public InMemoryTaskCountStore stored(Uuid topicId, int taskCount) {
        taskCounts.put(topicId, taskCount);
        return this;
    }

    @Override
    public TaskCount lookup(Uuid topicId) {
        if (!loaded || closed) {
            return TaskCount.notYetKnown();
        }
        Integer taskCount = taskCounts.get(topicId);
        return taskCount == null ? TaskCount.noneStored() : TaskCount.known(taskCount);
    }

    @Override
    public int propose(Uuid topicId, int proposed, int partitionCount) {
        if (proposed < 1 || partitionCount < 1) {
            throw new IllegalArgumentException("proposed " + proposed + ", partitions " + partitionCount);
        }
        proposals.incrementAndGet();
        return taskCounts.merge(topicId, proposed, (first, later) -> first);
    }

    /** @return the T stored for a topic, or null */
    public Integer taskCountOf(Uuid topicId) {
        return taskCounts.get(topicId);
    }

    public int proposals() {
        return proposals.get();
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }
}
