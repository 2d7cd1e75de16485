package io.kscale.assignor.internals.server;

/**
 * What a {@link TaskCountStore} reports about its own health, so that the assignor's metrics can
 * count it: an operator sees a failing store in JMX, not only in the broker's log. Called on the
 * store's threads; implementations must be thread-safe and return at once.
 */
public interface TaskCountStoreEvents {

    /** Events nobody counts (tests). */
    TaskCountStoreEvents NONE = new TaskCountStoreEvents() {
        @Override
        public void readFailed() {
        }

        @Override
        public void writeFailed() {
        }

        @Override
        public void storeTopicLost() {
        }
    };

    /** A round of the store could not reach or read its topics; it tries again after its backoff. */
    void readFailed();

    /** A T the store proposed could not be written; it tries again after its next read. */
    void writeFailed();

    /** The store's topic was found deleted, or deleted and re-created, while the broker ran. */
    void storeTopicLost();
}
