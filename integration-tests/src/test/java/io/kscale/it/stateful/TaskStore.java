package io.kscale.it.stateful;

import java.util.HashMap;
import java.util.Map;

/**
 * One task's local state in {@link CountingMember}: a count per key, rebuilt from the task's
 * changelog partition. Written by the restore thread while it restores (a warmup, or an active task
 * not yet ready) and by the poll thread once the task is ready; the hand-over is
 * {@link #activate}/{@link #restoredTo}, under this object's lock.
 */
final class TaskStore {

    private final Map<String, Long> counts = new HashMap<>();
    /** Next changelog offset to restore. */
    private long position;
    /** While active and restoring: the changelog end when the task was assigned; -1 otherwise. */
    private long activeTarget = -1;
    private boolean ready;

    /** Applies a changelog record (restore thread); false if the task is ready and no longer restored. */
    synchronized boolean restore(String key, long count, long offset) {
        if (ready) {
            return false;
        }
        counts.put(key, count);
        position = offset + 1;
        return true;
    }

    /** The restore consumer is at {@code nextOffset} (skips compacted gaps and transaction markers). */
    synchronized void restoredTo(long nextOffset) {
        if (!ready) {
            position = Math.max(position, nextOffset);
            ready = activeTarget >= 0 && position >= activeTarget;
        }
    }

    /**
     * The task became active here (poll thread).
     *
     * @param changelogEnd the changelog's end now: the prior owner has flushed its last write
     * @return records still to restore before the task may process
     */
    synchronized long activate(long changelogEnd) {
        activeTarget = changelogEnd;
        long toRestore = Math.max(0, changelogEnd - position);
        ready = toRestore == 0;
        return toRestore;
    }

    synchronized boolean ready() {
        return ready;
    }

    synchronized long position() {
        return position;
    }

    /** Counts a record of an active, ready task (poll thread). */
    synchronized long increment(String key) {
        if (!ready) {
            throw new IllegalStateException("processing a task that is still restoring");
        }
        return counts.merge(key, 1L, Long::sum);
    }

    synchronized Map<String, Long> snapshot() {
        return new HashMap<>(counts);
    }
}
