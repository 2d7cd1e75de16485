package io.kscale.lab.placement;

/**
 * A task of the simulated application: partition {@code partition} of sub-topology
 * {@code subtopology}, as Kafka Streams numbers them. A stateful task has a changelog of
 * {@code stateRecords} records when the simulation starts, which grows by {@code writesPerSecond}
 * while its active copy is processing (not while it restores). Every task is one unit of load, as
 * Streams' HighAvailabilityTaskAssignor counts them; state size matters for restore time only.
 *
 * @param subtopology the sub-topology, 0 or more
 * @param partition the partition, 0 or more
 * @param stateful whether the task has local state
 * @param stateRecords changelog records at the start; 0 for a stateless task
 * @param writesPerSecond changelog records the active copy appends per second while processing
 */
public record SimTask(int subtopology, int partition, boolean stateful, long stateRecords, long writesPerSecond) {

    public SimTask {
        if (subtopology < 0 || partition < 0 || stateRecords < 0 || writesPerSecond < 0) {
            throw new IllegalArgumentException("negative value in task " + subtopology + "_" + partition);
        }
        if (!stateful && (stateRecords != 0 || writesPerSecond != 0)) {
            throw new IllegalArgumentException("stateless task " + subtopology + "_" + partition + " has a changelog");
        }
    }

    /** A stateful task. */
    public static SimTask stateful(int subtopology, int partition, long stateRecords, long writesPerSecond) {
        return new SimTask(subtopology, partition, true, stateRecords, writesPerSecond);
    }

    /** A stateless task. */
    public static SimTask stateless(int subtopology, int partition) {
        return new SimTask(subtopology, partition, false, 0, 0);
    }

    /** @return the id as Streams prints a TaskId: {@code subtopology_partition} */
    public String id() {
        return subtopology + "_" + partition;
    }
}
