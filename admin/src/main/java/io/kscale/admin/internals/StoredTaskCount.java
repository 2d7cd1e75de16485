package io.kscale.admin.internals;

import java.util.Objects;

/**
 * What a store says of one group's task count T for one topic: a T (with where it was read), none
 * stored, or a store that could not be read (with why). Immutable.
 */
public final class StoredTaskCount {

    private final int taskCount;
    private final String source;
    private final String problem;

    private StoredTaskCount(int taskCount, String source, String problem) {
        this.taskCount = taskCount;
        this.source = source;
        this.problem = problem;
    }

    /**
     * @param taskCount T, at least 1
     * @param source where it was read, e.g. "layout topic kscale-assignor-layouts"
     */
    public static StoredTaskCount known(int taskCount, String source) {
        if (taskCount < 1) {
            throw new IllegalArgumentException("a task count is at least 1, got " + taskCount);
        }
        return new StoredTaskCount(taskCount, Objects.requireNonNull(source, "source"), null);
    }

    /** @param why what was read and found empty */
    public static StoredTaskCount noneStored(String why) {
        return new StoredTaskCount(0, null, Objects.requireNonNull(why, "why"));
    }

    /** @param why what could not be read, and why */
    public static StoredTaskCount unreadable(String why) {
        return new StoredTaskCount(-1, null, Objects.requireNonNull(why, "why"));
    }

    public boolean isKnown() {
        return taskCount > 0;
    }

    public boolean isUnreadable() {
        return taskCount < 0;
    }

    /** @return T; 0 unless {@link #isKnown()} */
    public int taskCount() {
        return Math.max(0, taskCount);
    }

    /** @return where T was read; null unless known */
    public String source() {
        return source;
    }

    /** @return why no T is known; null if it is */
    public String problem() {
        return problem;
    }

    @Override
    public String toString() {
        return isKnown() ? "T=" + taskCount + " (" + source + ")" : (isUnreadable() ? "unreadable: " : "none: ") + problem;
    }
}
