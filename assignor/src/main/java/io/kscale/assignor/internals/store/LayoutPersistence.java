package io.kscale.assignor.internals.store;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.ProvisionalTopics;
import io.kscale.assignor.internals.lifecycle.ConsumerCloseWatch;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's use of the {@link LayoutStore}: when to save, on which thread, within which time.
 * One per assignor, kept between rebalances.
 *
 * <p><b>Retry.</b> The store may lack the group's layout: a save failed (an ACL not granted yet, a
 * timeout), or this member has just become leader and does not know what its predecessor
 * stored. So {@link #offer} is called at every rebalance with the agreed layout, and saves it
 * unless the store is known to hold that layout already (from a save or a read of this instance).
 * A failed save is thus retried at every rebalance until one succeeds; a new leader reads the
 * store once, and saves only if it holds something else.
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
 * <p><b>Loads run in {@code assign()}</b>, at most once per rebalance (the consumer leader's {@code LayoutAgreement}),
 * as the leader needs the result to assign; the store reads only what is new since its last load.
 * Each load, closes included, and each save get one budget,
 * the owner's store timeout ({@code kscale.assignor.layout.store.timeout.ms} for the consumer assignor), which the settings keep
 * well below the rebalance timeouts. So the store costs one rebalance at most that budget.
 *
 * <p><b>Read before write</b> (issue 17). A save never replaces what it has not read: the writer
 * reads the store right before each save (incrementally, see {@link LayoutTopicReader}) and
 * saves only if that read succeeds and finds nothing, an older epoch, or the same layout with
 * fewer fields (written by an older kscale). A stored layout of a higher epoch, or of the same
 * epoch with other content (another leader of the group wrote it, or another application with
 * WRITE on the topic), is not replaced: the next rebalance merges it ({@link #takeNewer}), and
 * the layout that comes out of that has a higher epoch. A layout with provisional topics (see
 * {@code TopicLayout}) is never saved: its T came from partition counts while the store could not
 * be read, and the store may hold the real one. Before issue 17 a failed load was followed by a
 * save of such a layout, which replaced the stored T for good.
 *
 * <p><b>Retrying a failed read.</b> While topics are held or provisional because the store could
 * not be read, the leader asks for a follow-up rebalance after {@link #retryDelay()}: 10 s after
 * the first failed read, doubling up to 5 minutes, back to 10 s after a read succeeds.
 *
 * <p>Threads: {@link #load}, {@link #offer}, {@link #takeNewer} and {@link #retryDelay} on the
 * consumer's thread; saves, and the reads before them, on the writer; the state both share under
 * {@link #lock}.
 */
public final class LayoutPersistence {

    /** How long the writer thread waits for more work before it ends. */
    static final Duration WRITER_IDLE = Duration.ofMinutes(1);

    /** The first delay of a follow-up rebalance that reads the store again; doubled after each failed read. */
    public static final Duration RETRY_MIN = Duration.ofSeconds(10);
    /** The longest delay between two follow-up rebalances that read the store again. */
    public static final Duration RETRY_MAX = Duration.ofMinutes(5);

    private static final Logger log = LoggerFactory.getLogger(LayoutPersistence.class);

    private final LayoutStore store;
    /** Where saves run when given; else {@link #ownWriter}, started when needed. */
    private final Executor givenWriter;
    private final String threadName;
    private final Duration budget;
    private final Clock time;
    private final AssignorMetrics metrics;
    private final StoreAdvice advice;

    private final Object lock = new Object();
    /** Whether {@link #stored} tells what the store holds (from a read or a save of this instance). */
    private boolean storeKnown;
    /** The layout the store holds, null for none; meaningful when {@link #storeKnown}. */
    private GroupLayout stored;
    /** A stored layout the writer found newer than the one offered, for the next rebalance to merge. */
    private GroupLayout newer;
    /** Reads in a row that failed inside a rebalance (the consumer's thread only). */
    private int failedReads;
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
     * @param advice how the WARNs name the owner's settings
     */
    public LayoutPersistence(LayoutStore store, Executor writer, Duration budget, Clock time, AssignorMetrics metrics,
                      String threadName, StoreAdvice advice) {
        this.store = store;
        this.budget = budget;
        this.time = time;
        this.metrics = metrics;
        this.givenWriter = writer;
        this.threadName = threadName;
        this.advice = java.util.Objects.requireNonNull(advice, "advice");
    }

    /** A persistence that stores nothing. */
    public static LayoutPersistence disabled(AssignorMetrics metrics) {
        return new LayoutPersistence(LayoutStore.DISABLED, Runnable::run, Duration.ofMillis(1), Clock.SYSTEM, metrics, "",
                new StoreAdvice("", "")); // a disabled store never warns
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
     * Reads the stored layout within one budget, inside the rebalance; counts a failure.
     *
     * @return the stored layout (provisional marks, which no kscale stores, taken as facts), nothing
     *     stored, or a failure: the store could not be read, so nothing is known of what it holds
     */
    public LayoutStore.Loaded load() {
        if (store == LayoutStore.DISABLED) {
            return LayoutStore.Loaded.NOTHING;
        }
        LayoutStore.Loaded loaded = read();
        if (loaded.failed()) {
            failedReads++;
            return loaded;
        }
        failedReads = 0;
        metrics.layoutStoreLoaded();
        synchronized (lock) {
            newer = null;
            if (!writing) {
                remember(loaded.layout().orElse(null));
            }
        }
        return loaded;
    }

    /** One read within one budget, on either thread; a failure is counted. */
    private LayoutStore.Loaded read() {
        LayoutStore.Loaded loaded;
        try {
            loaded = store.load(Deadline.after(time, budget));
        } catch (RuntimeException e) {
            // The contract says a store never throws; assign() must not, whatever a store does.
            log.warn("Reading the layout store failed unexpectedly", e);
            loaded = LayoutStore.Loaded.FAILED;
        }
        if (loaded == null || loaded.failed()) {
            metrics.layoutStoreFailed();
            return LayoutStore.Loaded.FAILED;
        }
        Optional<GroupLayout> layout = loaded.layout();
        if (layout.isPresent() && !ProvisionalTopics.of(layout.get()).isEmpty()) {
            return LayoutStore.Loaded.of(ProvisionalTopics.mark(layout.get(), ProvisionalTopics.of(layout.get()).keySet(),
                    false));
        }
        return loaded;
    }

    private void remember(GroupLayout layout) {
        storeKnown = true;
        stored = layout;
    }

    /**
     * @return the layout the store holds, as far as this instance knows from its last read or save;
     *     empty if it does not know (no read or save yet, or the store is disabled) or the store holds none
     */
    public Optional<GroupLayout> knownStored() {
        synchronized (lock) {
            return storeKnown ? Optional.ofNullable(stored) : Optional.empty();
        }
    }

    /** @return whether this instance knows what the store holds, from a read or a save; false when disabled */
    public boolean knowsStore() {
        synchronized (lock) {
            return storeKnown;
        }
    }

    /** @return whether there is a store at all */
    public boolean enabled() {
        return store != LayoutStore.DISABLED;
    }

    /**
     * @return a stored layout that the writer found newer than the one it was to save (another
     *     writer's), once: the caller merges it into the group's layout
     */
    public Optional<GroupLayout> takeNewer() {
        synchronized (lock) {
            GroupLayout taken = newer;
            newer = null;
            return Optional.ofNullable(taken);
        }
    }

    /** @return how long until the next follow-up rebalance should read the store again, after the reads that failed in a row */
    public Duration retryDelay() {
        int doublings = Math.max(0, Math.min(failedReads - 1, 16));
        Duration delay = RETRY_MIN.multipliedBy(1L << doublings);
        return delay.compareTo(RETRY_MAX) > 0 ? RETRY_MAX : delay;
    }

    /**
     * Has the layout saved, unless the store is known to hold it or it has provisional topics: at
     * once on the writer, after the save in progress, if any. The writer reads the store first.
     *
     * @param layout the layout the group agreed on in this rebalance
     */
    public void offer(GroupLayout layout) {
        if (store == LayoutStore.DISABLED) {
            return;
        }
        if (!ProvisionalTopics.of(layout).isEmpty()) {
            log.debug("Not storing layout epoch {}: topics {} are provisional", layout.epoch(),
                    ProvisionalTopics.of(layout).keySet());
            synchronized (lock) {
                pending = null;
            }
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
        if (layout.isEmpty() && layout.epoch() == 0) {
            return true;
        }
        if (!storeKnown) {
            return false;
        }
        return stored == null ? layout.isEmpty() : stored.equals(layout);
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
            boolean saved = readThenSave(next);
            synchronized (lock) {
                if (!saved && pending == null) {
                    // The next rebalance offers the layout again.
                    writing = false;
                    return;
                }
            }
        }
    }

    /**
     * On the writer: reads what the store holds, then saves the layout if that may replace it.
     *
     * @return whether the store holds the layout now
     */
    private boolean readThenSave(GroupLayout next) {
        LayoutStore.Loaded current = read();
        if (current.failed()) {
            return false; // offered again at the next rebalance, read again then
        }
        GroupLayout held = current.layout().orElse(null);
        synchronized (lock) {
            remember(held);
        }
        if (held == null ? next.isEmpty() : held.equals(next)) {
            return true;
        }
        if (held != null && !mayReplace(next, held)) {
            synchronized (lock) {
                newer = held;
            }
            log.warn("The layout store holds epoch {} of the group's layout, not older than the epoch {} this leader "
                    + "agreed on, and other: {}. Not replacing it; the next rebalance merges it. Another leader of the "
                    + "group wrote it, or another application with WRITE on the store topic (give each group a topic "
                    + "of its own with {}).", held.epoch(), next.epoch(), held,
                    advice.topicSetting());
            return false;
        }
        boolean saved = save(next);
        if (saved) {
            synchronized (lock) {
                remember(next.isEmpty() ? null : next);
            }
        }
        return saved;
    }

    /**
     * Whether {@code next} may replace {@code held}: it has a higher epoch, or the same epoch and
     * holds all of {@code held} (the same layout as an older kscale wrote it, without ids).
     */
    static boolean mayReplace(GroupLayout next, GroupLayout held) {
        if (next.epoch() != held.epoch()) {
            return next.epoch() > held.epoch();
        }
        return GroupLayout.merge(List.of(next, held)).layout().equals(next);
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
