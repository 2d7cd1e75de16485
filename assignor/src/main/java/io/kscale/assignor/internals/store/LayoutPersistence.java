package io.kscale.assignor.internals.store;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.KeyPreservingAssignorConfig;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.leader.LayoutAgreement;
import io.kscale.assignor.internals.member.ConsumerCloseWatch;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's use of the {@link LayoutStore}: when to save, on which thread, within which time.
 * One per assignor, kept between rebalances.
 *
 * <p><b>Retry.</b> The store may lack the group's layout: a save failed (an ACL not granted yet, a
 * timeout), or this member has just become leader and does not know what its predecessor
 * stored. So {@link #offer} is called at every rebalance with the agreed layout, and saves it
 * unless the store is known to hold that epoch already (from a save or a load of this instance).
 * A failed save is thus retried at every rebalance until one succeeds; a new leader saves once.
 * Before issue 11 the leader saved only in a rebalance that changed the epoch, so a failed first
 * save of a topic's T was never repeated, and a full restart after an expansion took the new count
 * as T.
 *
 * <p><b>Saves run off {@code assign()}.</b> A save goes to a single writer thread, and
 * {@code assign()} returns at once; the next rebalance sees the outcome (and retries a failure).
 * Why this keeps correctness: the store is read only when no member knows a topic's layout (the
 * whole group restarted), and members carry the layout in their userData meanwhile; what the store
 * must hold is each topic's T, and an epoch that a save has not reached yet is recomputed from the
 * previous one after a restart (the same T, the metadata's counts). So a save that lands a little
 * later is as good as one inside the rebalance, except if every member stops within those
 * milliseconds, the same exposure as a save that fails. The gain: a healthy save costs the
 * rebalance nothing (with a new producer and an admin client per save, about 0.5 s before), and a
 * failing store costs it nothing either (up to the whole timeout before, twice with the load). The
 * writer thread is a daemon, started on the first save and ended after a minute idle: the consumer
 * never closes its assignor (see {@link ConsumerCloseWatch}), so nothing may stay running for
 * good. Saves are coalesced: while one runs, only the newest layout waits.
 *
 * <p><b>Loads run in {@code assign()}</b>, at most once per rebalance ({@link LayoutAgreement}),
 * as the leader needs the result to assign; the store reads only what is new since its last load.
 * Each load, closes included, and each save get one budget,
 * {@value KeyPreservingAssignorConfig#LAYOUT_STORE_TIMEOUT_MS_CONFIG}, which the settings keep
 * well below the rebalance timeouts. So the store costs one rebalance at most that budget.
 *
 * <p>Threads: {@link #load} and {@link #offer} on the consumer's thread; saves on the writer; the
 * state both share under {@link #lock}.
 */
public final class LayoutPersistence {

    /** How long the writer thread waits for more work before it ends. */
    static final Duration WRITER_IDLE = Duration.ofMinutes(1);

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingAssignor.class);
    private static final long UNKNOWN = Long.MIN_VALUE;
    private static final long NOTHING_STORED = Long.MIN_VALUE + 1;

    private final LayoutStore store;
    /** Where saves run when given; else {@link #ownWriter}, started when needed. */
    private final Executor givenWriter;
    private final String threadName;
    private final Duration budget;
    private final Time time;
    private final AssignorMetrics metrics;

    private final Object lock = new Object();
    /** The epoch the store is known to hold, {@link #NOTHING_STORED}, or {@link #UNKNOWN}. */
    private long storedEpoch = UNKNOWN;
    /** The newest layout waiting for the writer. */
    private GroupLayout pending;
    /** Whether a writer task is queued or running. */
    private boolean writing;
    private ExecutorService ownWriter;

    /**
     * @param store the store
     * @param writer where saves run; null for a thread of this instance's own
     * @param budget the longest one load or one save takes, closes included
     * @param threadName the name of the own writer thread
     */
    public LayoutPersistence(LayoutStore store, Executor writer, Duration budget, Time time, AssignorMetrics metrics,
                      String threadName) {
        this.store = store;
        this.budget = budget;
        this.time = time;
        this.metrics = metrics;
        this.givenWriter = writer;
        this.threadName = threadName;
    }

    /** A persistence that stores nothing. */
    public static LayoutPersistence disabled(AssignorMetrics metrics) {
        return new LayoutPersistence(LayoutStore.DISABLED, Runnable::run, Duration.ofMillis(1), Time.SYSTEM, metrics, "");
    }

    private static ExecutorService writerThread(String name) {
        ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, WRITER_IDLE.toMillis(), TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, name);
                    thread.setDaemon(true);
                    return thread;
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    /**
     * Reads the stored layout within one budget; counts a failure.
     *
     * @return the stored layout, if the store has one and could be read
     */
    public Optional<GroupLayout> load() {
        if (store == LayoutStore.DISABLED) {
            return Optional.empty();
        }
        LayoutStore.Loaded loaded;
        try {
            loaded = store.load(Deadline.after(time, budget));
        } catch (RuntimeException e) {
            // The contract says a store never throws; assign() must not, whatever a store does.
            log.warn("Reading the layout store failed unexpectedly; going on without the stored layout", e);
            loaded = LayoutStore.Loaded.FAILED;
        }
        if (loaded.failed()) {
            metrics.layoutStoreFailed();
            return Optional.empty();
        }
        metrics.layoutStoreLoaded();
        synchronized (lock) {
            if (!writing) {
                storedEpoch = loaded.layout().map(GroupLayout::epoch).orElse(NOTHING_STORED);
            }
        }
        return loaded.layout();
    }

    /**
     * Has the layout saved, unless the store is known to hold it: at once on the writer, after
     * the save in progress, if any.
     *
     * @param layout the layout the group agreed on in this rebalance
     */
    public void offer(GroupLayout layout) {
        if (store == LayoutStore.DISABLED) {
            return;
        }
        Executor writer;
        synchronized (lock) {
            if (isStored(layout)) {
                pending = null;
                return;
            }
            pending = layout;
            if (writing) {
                return;
            }
            writing = true;
            if (givenWriter == null && ownWriter == null) {
                ownWriter = writerThread(threadName);
            }
            writer = givenWriter == null ? ownWriter : givenWriter;
        }
        try {
            writer.execute(this::drain);
        } catch (RejectedExecutionException e) {
            synchronized (lock) {
                writing = false;
            }
            log.debug("Not storing layout epoch {}: the writer is shut down", layout.epoch());
        }
    }

    /** Whether the store holds the layout, as far as this instance knows; a group that never had a topic needs nothing. */
    private boolean isStored(GroupLayout layout) {
        if (layout.isEmpty()) {
            return layout.epoch() == 0 || storedEpoch == NOTHING_STORED || storedEpoch == layout.epoch();
        }
        return storedEpoch == layout.epoch();
    }

    /** On the writer: saves the pending layout, then any newer one offered meanwhile. */
    private void drain() {
        while (true) {
            GroupLayout next;
            synchronized (lock) {
                next = pending;
                pending = null;
                if (next == null) {
                    writing = false;
                    return;
                }
                if (isStored(next)) {
                    continue; // offered again while its save ran
                }
            }
            boolean saved = save(next);
            synchronized (lock) {
                if (saved) {
                    storedEpoch = next.isEmpty() ? NOTHING_STORED : next.epoch();
                } else if (pending == null) {
                    // The next rebalance offers the layout again.
                    writing = false;
                    return;
                }
            }
        }
    }

    private boolean save(GroupLayout layout) {
        boolean saved;
        try {
            saved = store.save(layout, Deadline.after(time, budget));
        } catch (RuntimeException e) {
            log.warn("Storing layout epoch {} failed unexpectedly; retrying at the next rebalance", layout.epoch(), e);
            saved = false;
        }
        if (saved) {
            metrics.layoutStoreSaved(time);
        } else {
            metrics.layoutStoreFailed();
        }
        return saved;
    }

    /** @return whether a save is queued or running (tests) */
    public boolean saving() {
        synchronized (lock) {
            return writing;
        }
    }

    /**
     * Drops a save that waits, stops the writer thread (a save in progress ends by its deadline)
     * and releases the store's clients. A later {@link #offer} starts anew.
     */
    public void close() {
        ExecutorService stopping;
        synchronized (lock) {
            pending = null;
            stopping = ownWriter;
            ownWriter = null;
        }
        if (stopping != null) {
            stopping.shutdown();
        }
        store.close();
    }
}
