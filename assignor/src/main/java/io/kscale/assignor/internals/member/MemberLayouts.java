package io.kscale.assignor.internals.member;

import io.kscale.assignor.FollowUpRebalance;
import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.TaskStateListener;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.lifecycle.ConsumerCloseWatch;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What each consumer in this JVM received with its latest assignment, by group and member id:
 * the layout, so that member-side helpers (the expansion barrier) can tell which partitions
 * share a task, and the follow-up deadline and a stateful member's {@link EarlyFollowUp}, for
 * {@link FollowUpRebalance}; neither helper has access to the assignor instance (the consumer
 * creates it and keeps it private).
 *
 * <p>Keyed by group id and member id, which {@code consumer.groupMetadata()} also returns. Each
 * assignor publishes through its own {@link Slot}, which holds what it published; the registry
 * holds slots weakly. So an entry lives exactly as long as its consumer's assignor, with no cap
 * on how many consumers a JVM runs (issue 17: a least-recently-updated cap of 1,024 made live
 * consumers lose their layout and follow-ups in a JVM running more): a member that rejoins
 * under a new id replaces its entry, a consumer's close clears it ({@link ConsumerCloseWatch}),
 * and a consumer dropped without {@code close()} takes its slot, layout and
 * {@link TaskStateListener} with it when it is collected; the registry then drops the cleared
 * reference at its next call. Memory is bounded by the live consumers.
 */
public final class MemberLayouts {

    /** Slots by key, held weakly; guarded by its own lock, as are the slots' fields. */
    private static final Map<String, SlotReference> SLOTS = new HashMap<>();
    private static final ReferenceQueue<Slot> COLLECTED = new ReferenceQueue<>();

    private MemberLayouts() {
    }

    /** @return a new, empty slot, to be held by one assignor for its lifetime */
    public static Slot newSlot() {
        return new Slot();
    }

    public static Optional<GroupLayout> latest(String groupId, String memberId) {
        synchronized (SLOTS) {
            Latest latest = latest(key(groupId, memberId));
            return latest == null ? Optional.empty() : Optional.of(latest.layout);
        }
    }

    /** @return the member's follow-up deadline, unless none was set or it was claimed */
    public static OptionalLong followUpDeadline(String groupId, String memberId) {
        synchronized (SLOTS) {
            Latest latest = latest(key(groupId, memberId));
            return latest == null || latest.claimed ? OptionalLong.empty() : latest.followUpDeadline;
        }
    }

    /**
     * @return the member's early follow-up check, if it is stateful; its own guards say when it
     *         fires (call it outside this registry's lock: it asks the application for lags)
     */
    public static Optional<EarlyFollowUp> earlyFollowUp(String groupId, String memberId) {
        synchronized (SLOTS) {
            Latest latest = latest(key(groupId, memberId));
            return latest == null ? Optional.empty() : latest.earlyFollowUp;
        }
    }

    /**
     * Claims the member's follow-up once its deadline has passed: true for the first caller only.
     *
     * @param nowMs the time, epoch ms
     * @return whether the deadline has passed and nobody claimed it before
     */
    public static boolean claimFollowUp(String groupId, String memberId, long nowMs) {
        synchronized (SLOTS) {
            Latest latest = latest(key(groupId, memberId));
            if (latest == null || latest.claimed || latest.followUpDeadline.isEmpty()
                    || nowMs < latest.followUpDeadline.getAsLong()) {
                return false;
            }
            latest.claimed = true;
            return true;
        }
    }

    /**
     * @return how many entries of this group the registry holds, collected slots not yet purged
     *         included: what it keeps in memory (tests)
     */
    public static int entries(String groupId) {
        String prefix = key(groupId, "");
        synchronized (SLOTS) {
            purge();
            return (int) SLOTS.keySet().stream().filter(key -> key.startsWith(prefix)).count();
        }
    }

    /** Under the lock. */
    private static Latest latest(String key) {
        purge();
        SlotReference reference = SLOTS.get(key);
        Slot slot = reference == null ? null : reference.get();
        return slot == null ? null : slot.latest;
    }

    /** Drops the entries of collected slots. Under the lock. */
    private static void purge() {
        for (Reference<? extends Slot> cleared = COLLECTED.poll(); cleared != null; cleared = COLLECTED.poll()) {
            SlotReference reference = (SlotReference) cleared;
            SLOTS.remove(reference.key, reference);
        }
    }

    private static String key(String groupId, String memberId) {
        return groupId + '\u0000' + memberId;
    }

    /**
     * One assignor's entry in the registry. The assignor holds it, the registry only weakly: what
     * it published is reachable for no longer than the assignor is. Not bound to a key until it
     * publishes; publishing under another group or member id moves it.
     */
    public static final class Slot {
        /** Guarded by the registry's lock, as {@link #latest} is. */
        private SlotReference reference;
        private Latest latest;

        private Slot() {
        }

        public void publish(String groupId, String memberId, GroupLayout layout) {
            publish(groupId, memberId, layout, OptionalLong.empty(), Optional.empty());
        }

        /**
         * Publishes what the member received, replacing what this slot published before, under
         * whatever key.
         *
         * @param followUpDeadline epoch ms after which the member should rebalance, if the leader asked for it
         * @param earlyFollowUp when a stateful member may ask before the deadline; empty for a stateless member
         */
        public void publish(String groupId, String memberId, GroupLayout layout, OptionalLong followUpDeadline,
                            Optional<EarlyFollowUp> earlyFollowUp) {
            Latest published = new Latest(layout, followUpDeadline, earlyFollowUp);
            String key = key(groupId, memberId);
            synchronized (SLOTS) {
                purge();
                if (reference == null || !reference.key.equals(key)) {
                    unbind();
                    reference = new SlotReference(this, key);
                }
                SLOTS.put(key, reference); // also takes the key back from a slot that published it since
                latest = published;
            }
        }

        /**
         * Forgets what this slot published: its consumer closed. The entry holds the member's
         * {@link EarlyFollowUp}, and through it the application's {@link TaskStateListener}.
         */
        public void clear() {
            synchronized (SLOTS) {
                unbind();
                latest = null;
            }
        }

        /** Removes this slot's entry, unless another slot published under its key since. Under the lock. */
        private void unbind() {
            if (reference != null) {
                SLOTS.remove(reference.key, reference);
                reference.clear();
                reference = null;
            }
        }
    }

    /** The registry's weak reference to a slot, with the key to remove once the slot is collected. */
    private static final class SlotReference extends WeakReference<Slot> {
        final String key;

        SlotReference(Slot slot, String key) {
            super(slot, COLLECTED);
            this.key = key;
        }
    }

    /** One member's latest assignment; {@code claimed} is guarded by the registry's lock. */
    private static final class Latest {
        final GroupLayout layout;
        final OptionalLong followUpDeadline;
        final Optional<EarlyFollowUp> earlyFollowUp;
        boolean claimed;

        Latest(GroupLayout layout, OptionalLong followUpDeadline, Optional<EarlyFollowUp> earlyFollowUp) {
            this.layout = Objects.requireNonNull(layout, "layout");
            this.followUpDeadline = Objects.requireNonNull(followUpDeadline, "followUpDeadline");
            this.earlyFollowUp = Objects.requireNonNull(earlyFollowUp, "earlyFollowUp");
        }
    }
}
