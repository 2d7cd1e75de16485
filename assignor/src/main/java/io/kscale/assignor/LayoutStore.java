package io.kscale.assignor;

import io.kscale.assignor.layout.GroupLayout;
import java.util.Optional;

/**
 * Where a group's task layout survives the whole group going down: the leader reads it when no
 * member can report the layout of a subscribed topic (every member restarted), and writes it when
 * the layout changes. Subscription userData carries the layout while any member lives; this store
 * covers the rest (for example: all members stop, the topic is expanded, all members start).
 *
 * <p>Best effort by contract: both methods log and count their failures and never throw, because
 * they run inside {@code assign()}, where an exception fails the whole rebalance.
 */
interface LayoutStore {

    /** A store that keeps nothing, for users who cannot create topics. */
    LayoutStore DISABLED = new LayoutStore() {
        @Override
        public Optional<GroupLayout> load() {
            return Optional.empty();
        }

        @Override
        public void save(GroupLayout layout) {
        }

        @Override
        public String toString() {
            return "LayoutStore.DISABLED";
        }
    };

    /**
     * Reads the group's stored layout.
     *
     * @return the layout, or empty if none is stored, the store cannot be read within its timeout,
     *     or what is stored does not decode; never throws
     */
    Optional<GroupLayout> load();

    /**
     * Stores the group's layout, replacing the previous one. Returns once stored or once the
     * timeout passed; never throws.
     *
     * @param layout the layout to store
     */
    void save(GroupLayout layout);
}
