package io.kscale.assignor.internals.store;

import io.kscale.assignor.internals.layout.GroupLayout;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a group's task layout survives the whole group going down: the leader reads it when no
 * member can report the layout of a subscribed topic (every member restarted), and writes it when
 * the store may not hold the group's layout (see {@link LayoutPersistence}). Subscription userData
 * carries the layout while any member lives; this store covers the rest (for example: all members
 * stop, the topic is expanded, all members start).
 *
 * <p>Best effort by contract: no method throws, each returns by its {@link Deadline}, and a
 * failure is logged by the store and reported in the result, so that the caller can count it and
 * try again. A load runs inside {@code assign()}, where an exception fails the whole rebalance; a
 * save runs on the store's writer thread.
 *
 * <p>Threads: {@link #load} on the consumer's thread, {@link #save} on the writer thread, possibly
 * at the same time; {@link #close} on the thread that closes the consumer.
 */
public interface LayoutStore {

    /** A store that keeps nothing, for users who cannot create topics. */
    LayoutStore DISABLED = new LayoutStore() {
        @Override
        public Loaded load(Deadline deadline) {
            return Loaded.NOTHING;
        }

        @Override
        public boolean save(GroupLayout layout, Deadline deadline) {
            return true;
        }

        @Override
        public String toString() {
            return "LayoutStore.DISABLED";
        }
    };

    /**
     * Reads the group's stored layout.
     *
     * @param deadline when to give up, closing what the call opened included
     * @return the layout, nothing stored, or a failure (the store could not be read in time, or
     *     what is stored does not decode); never throws
     */
    public Loaded load(Deadline deadline);

    /**
     * Stores the group's layout, replacing the previous one (a layout without topics as a
     * deletion). Returns once stored or once the deadline passed; never throws.
     *
     * @param layout the layout to store
     * @param deadline when to give up, closing what the call opened included
     * @return whether the layout is stored
     */
    public boolean save(GroupLayout layout, Deadline deadline);

    /** Releases what the store keeps open between calls; it may be used again afterwards. */
    public default void close() {
    }

    /** What a {@link #load} found. */
    final class Loaded {

        /** The store holds no layout of the group. */
        public static final Loaded NOTHING = new Loaded(null, false);
        /** The store could not tell. */
        public static final Loaded FAILED = new Loaded(null, true);

        private final GroupLayout layout;
        private final boolean failed;

        private Loaded(GroupLayout layout, boolean failed) {
            this.layout = layout;
            this.failed = failed;
        }

        public static Loaded of(GroupLayout layout) {
            return new Loaded(Objects.requireNonNull(layout, "layout"), false);
        }

        /** @return the stored layout, if the load found one */
        public Optional<GroupLayout> layout() {
            return Optional.ofNullable(layout);
        }

        /** @return whether the load failed, so that nothing is known of what is stored */
        public boolean failed() {
            return failed;
        }

        @Override
        public String toString() {
            return failed ? "Loaded(failed)" : layout == null ? "Loaded(nothing)" : "Loaded(epoch " + layout.epoch() + ")";
        }
    }
}
