package io.kscale.lab.scaleout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StandbyUpdateListener;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.TaskId;

/**
 * The restorations of every instance of one run, from each instance's global
 * {@link StateRestoreListener} and {@link StandbyUpdateListener}. Thread-safe: Streams calls the
 * listeners from its state updater threads.
 *
 * <p>Since Kafka 3.5 (KIP-869 / KIP-988) the {@code StateRestoreListener} hears about active
 * tasks only ({@code StoreChangelogReader} calls {@code onRestoreStart} for active changelogs,
 * and {@code StandbyUpdateListener.onUpdateStart} for standby ones), so every restoration here is
 * an active task that is not processing: downtime. A standby (a warmup here) recycled into an
 * active task starts an active restoration of the records it had not read yet.
 */
final class RestoreLog {

    private final Map<String, Open> open = new ConcurrentHashMap<>();
    private final List<Closed> closed = new CopyOnWriteArrayList<>();
    private final List<Long> standbyStarts = new CopyOnWriteArrayList<>();

    /** @return a listener that records the active restorations of the named instance */
    StateRestoreListener activeListener(String instance) {
        return new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition partition, String store, long startOffset, long endOffset) {
                open.put(key(instance, partition, store),
                        new Open(instance, partition.partition(), System.nanoTime(), Math.max(0, endOffset - startOffset)));
            }

            @Override
            public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {
                Open restoring = open.get(key(instance, partition, store));
                if (restoring != null) {
                    restoring.restored.addAndGet(numRestored);
                }
            }

            @Override
            public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
                close(key(instance, partition, store), ActiveRestore.End.RESTORED);
            }

            @Override
            public void onRestoreSuspended(TopicPartition partition, String store, long totalRestored) {
                close(key(instance, partition, store), ActiveRestore.End.SUSPENDED);
            }
        };
    }

    /** @return a listener that counts the standby copies the named instance starts updating */
    StandbyUpdateListener standbyListener(String instance) {
        return new StandbyUpdateListener() {
            @Override
            public void onUpdateStart(TopicPartition partition, String store, long startingOffset) {
                standbyStarts.add(System.nanoTime());
            }

            @Override
            public void onBatchLoaded(TopicPartition partition, String store, TaskId task, long batchEndOffset,
                                      long batchSize, long currentEndOffset) {
                // only starts are counted
            }

            @Override
            public void onUpdateSuspended(TopicPartition partition, String store, long storeOffset,
                                          long currentEndOffset, SuspendReason reason) {
                // only starts are counted
            }
        };
    }

    private void close(String key, ActiveRestore.End end) {
        Open restoring = open.remove(key);
        if (restoring != null) {
            closed.add(new Closed(restoring, System.nanoTime(), end));
        }
    }

    /** @return active tasks of the named instance restoring now */
    int restoring(String instance) {
        return (int) open.values().stream().filter(o -> o.instance.equals(instance)).count();
    }

    /** @return active tasks restoring now, over all instances */
    int restoring() {
        return open.size();
    }

    /**
     * The active restorations that started at or after {@code originNanos}, finished or not.
     *
     * @param originNanos the scale-out, as {@link System#nanoTime()}
     * @param nowNanos the end of an unfinished restoration
     * @return the restorations, with times in seconds since the origin
     */
    List<ActiveRestore> since(long originNanos, long nowNanos) {
        List<ActiveRestore> restores = new ArrayList<>();
        for (Closed c : closed) {
            if (c.open.startNanos >= originNanos) {
                restores.add(c.open.toRestore(originNanos, c.endNanos, c.end));
            }
        }
        for (Open o : open.values()) {
            if (o.startNanos >= originNanos) {
                restores.add(o.toRestore(originNanos, nowNanos, ActiveRestore.End.UNFINISHED));
            }
        }
        return restores;
    }

    /** @return standby copies that started updating at or after {@code originNanos} */
    int standbyStartsSince(long originNanos) {
        return (int) standbyStarts.stream().filter(start -> start >= originNanos).count();
    }

    private static String key(String instance, TopicPartition partition, String store) {
        return instance + "/" + partition + "/" + store;
    }

    private static double seconds(long fromNanos, long toNanos) {
        return (toNanos - fromNanos) / 1e9;
    }

    private static final class Open {
        final String instance;
        final int partition;
        final long startNanos;
        final long toRestore;
        final AtomicLong restored = new AtomicLong();

        Open(String instance, int partition, long startNanos, long toRestore) {
            this.instance = instance;
            this.partition = partition;
            this.startNanos = startNanos;
            this.toRestore = toRestore;
        }

        ActiveRestore toRestore(long originNanos, long endNanos, ActiveRestore.End end) {
            return new ActiveRestore(instance, partition, seconds(originNanos, startNanos),
                    seconds(originNanos, Math.max(startNanos, endNanos)), toRestore, restored.get(), end);
        }
    }

    private static final class Closed {
        final Open open;
        final long endNanos;
        final ActiveRestore.End end;

        Closed(Open open, long endNanos, ActiveRestore.End end) {
            this.open = open;
            this.endNanos = endNanos;
            this.end = end;
        }
    }
}
