package io.kscale.lab.placement;

/**
 * A simulated Kafka Streams instance.
 *
 * @param id the client id; clients are ordered by it (the HA assignor's process ids follow that order)
 * @param capacity stream threads, 1 or more
 * @param restoreRecordsPerSecond changelog records per second it restores, shared by every copy it is restoring at once
 */
public record SimClient(String id, int capacity, long restoreRecordsPerSecond) {

    public SimClient {
        if (capacity < 1 || restoreRecordsPerSecond < 1) {
            throw new IllegalArgumentException("client " + id + " needs capacity and restore rate of at least 1");
        }
    }
}
