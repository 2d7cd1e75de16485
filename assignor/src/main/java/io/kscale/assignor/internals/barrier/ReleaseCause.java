package io.kscale.assignor.internals.barrier;

/**
 * Why an expansion barrier let a record go before every sibling partition of its task had
 * passed it: the bounds on its waits, each with its metric and the WARN it logs. Declared from
 * the mildest to the most serious; a record released for several reasons counts under the last.
 */
public enum ReleaseCause {

    /**
     * Stamped later than the barrier fetched it, against caught-up siblings: grace counted from
     * the fetch. Keeps the order of a producer whose clock runs ahead; signals that clock.
     */
    FUTURE_TIMESTAMP("future-timestamp-releases-total",
            "Polls in which the expansion barrier returned a partition's records stamped later than it fetched them "
                    + "(a producer clock running ahead, or an event time set by the application) once grace had passed "
                    + "since the fetch, instead of once grace had passed since their timestamp.",
            "it is stamped later than this consumer fetched it (a producer clock running ahead, or an event time set "
                    + "by the application), so grace counted from the fetch; check the producers' clocks, or stamp "
                    + "records when they are sent"),

    /** A sibling with records left to read returned none for max hold: paused by the application, or not fetched. */
    MAX_HOLD("max-hold-releases-total",
            "Polls in which the expansion barrier returned a partition's records although a sibling partition of its "
                    + "task had not passed them: the sibling had records left to read but returned none for "
                    + "the max hold (kscale.barrier.max.hold.ms; paused by the application, or not fetched).",
            "the sibling has records left to read but returned none for the max hold"
                    + " (paused by the application, or its fetches fail); its records may come out of key order "
                    + "when it returns them"),

    /** A sibling whose lag is unknown returned nothing for max hold: its leader offline, or it does not exist. */
    UNKNOWN_SIBLING_LAG("unknown-lag-releases-total",
            "Polls in which the expansion barrier returned a partition's records although a sibling partition of its "
                    + "task had not passed them: the sibling's lag was unknown and it returned nothing for "
                    + "the max hold (kscale.barrier.max.hold.ms; its leader offline, or it does not exist).",
            "the sibling's lag has been unknown, and it returned nothing, for the max hold"
                    + " (its leader offline, or the partition does not exist); its records may come out of key order "
                    + "when it returns them"),

    /**
     * On the consumer protocol, a partition whose topic's T the brokers' task count topic did
     * not yield within max hold: its records went unmerged.
     */
    UNKNOWN_TASK_COUNT("unknown-task-count-releases-total",
            "Partitions whose records the expansion barrier returned unmerged on group.protocol=consumer because "
                    + "their topic's task count could not be read from the brokers' task count topic within the max "
                    + "hold (the topic missing or unreadable, or no T recorded for the topic: not assigned by "
                    + "KeyPreservingServerAssignor).",
            "its topic's task count T could not be read from the brokers' task count topic within the max hold "
                    + "(kscale.barrier.max.hold.ms): check kscale.barrier.task.count.topic, the consumer's READ and "
                    + "DESCRIBE on that topic, and group.remote.assignor; its records pass through unmerged until T is "
                    + "read");

    private final String metricName;
    private final String metricDoc;
    private final String explanation;

    ReleaseCause(String metricName, String metricDoc, String explanation) {
        this.metricName = metricName;
        this.metricDoc = metricDoc;
        this.explanation = explanation;
    }

    public String metricName() {
        return metricName;
    }

    public String metricDoc() {
        return metricDoc;
    }

    /** @return why the record went and what to check, for the WARN */
    public String explanation() {
        return explanation;
    }
}
