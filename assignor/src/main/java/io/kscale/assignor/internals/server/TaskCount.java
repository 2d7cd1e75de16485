package io.kscale.assignor.internals.server;

/**
 * One answer of {@link TaskCountStore#lookup}: a known task count T, none stored (the topic is
 * new to kscale), or not known yet (the store has not answered). Immutable.
 */
public final class TaskCount {

    private static final TaskCount NONE_STORED = new TaskCount(0);
    private static final TaskCount NOT_YET_KNOWN = new TaskCount(-1);

    private final int taskCount;

    private TaskCount(int taskCount) {
        this.taskCount = taskCount;
    }

    /**
     * @param taskCount the stored T, at least 1
     * @throws IllegalArgumentException if it is below 1
     */
    public static TaskCount known(int taskCount) {
        if (taskCount < 1) {
            throw new IllegalArgumentException("a task count is at least 1, got " + taskCount);
        }
        return new TaskCount(taskCount);
    }

    /** The store has been read and holds no T for the topic: T may come from its partition count. */
    public static TaskCount noneStored() {
        return NONE_STORED;
    }

    /** The store has not answered (not loaded yet, or failing): T may be stored, so it must not be derived. */
    public static TaskCount notYetKnown() {
        return NOT_YET_KNOWN;
    }

    public boolean isKnown() {
        return taskCount > 0;
    }

    public boolean isNoneStored() {
        return this == NONE_STORED;
    }

    public boolean isNotYetKnown() {
        return this == NOT_YET_KNOWN;
    }

    /**
     * @return T
     * @throws IllegalStateException unless {@link #isKnown()}
     */
    public int taskCount() {
        if (!isKnown()) {
            throw new IllegalStateException("no task count: " + this);
        }
        return taskCount;
    }

    @Override
    public String toString() {
        return isKnown() ? "TaskCount(" + taskCount + ")" : isNoneStored() ? "TaskCount(none stored)" : "TaskCount(not yet known)";
    }
}
