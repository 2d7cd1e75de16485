package io.kscale.assignor.internals.server;

/**
 * What all instances of the broker-side assignor in a JVM share: the log of task count decisions
 * and the metrics in JMX. A broker creates an assignor for every copy of its configuration and
 * closes none, so these exist once per JVM, made when first asked for (on the first
 * {@code assign()}, which only the coordinator's instance receives), and live as long as the
 * broker. Each holds its own state: tests give an assignor fresh ones instead.
 */
public final class ServerAssignorState {

    private static final ServerAssignorState SHARED = new ServerAssignorState();

    private final TaskCountLog taskCountLog;
    private volatile ServerAssignorMetrics metrics;
    private final boolean registered;

    private ServerAssignorState() {
        this.taskCountLog = new TaskCountLog();
        this.registered = true;
    }

    private ServerAssignorState(TaskCountLog taskCountLog, ServerAssignorMetrics metrics) {
        this.taskCountLog = taskCountLog;
        this.metrics = metrics;
        this.registered = false;
    }

    /** @return the JVM's state; its metrics register in JMX on first use */
    public static ServerAssignorState shared() {
        return SHARED;
    }

    /** @return state of its own, metrics outside JMX (tests) */
    public static ServerAssignorState detached() {
        TaskCountLog log = new TaskCountLog();
        return new ServerAssignorState(log, new ServerAssignorMetrics(log::heldTopics));
    }

    public TaskCountLog taskCountLog() {
        return taskCountLog;
    }

    public ServerAssignorMetrics metrics() {
        ServerAssignorMetrics current = metrics;
        if (current == null) {
            synchronized (this) {
                if (metrics == null && registered) {
                    metrics = ServerAssignorMetrics.registered(taskCountLog::heldTopics);
                }
                current = metrics;
            }
        }
        return current;
    }
}
