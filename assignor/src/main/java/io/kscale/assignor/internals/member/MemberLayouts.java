package io.kscale.assignor.internals.member;

import io.kscale.assignor.ExpansionBarrier;
import io.kscale.assignor.FollowUpRebalance;
import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.TaskStateListener;
import io.kscale.assignor.internals.layout.GroupLayout;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What each consumer in this JVM received with its latest assignment, by group and member id:
 * the layout, so that member-side helpers ({@link ExpansionBarrier}) can tell which partitions
 * share a task, and the follow-up deadline and a stateful member's {@link EarlyFollowUp}, for
 * {@link FollowUpRebalance}; neither helper has access to the assignor instance (the consumer
 * creates it and keeps it private).
 *
 * <p>Keyed by group id and member id, which {@code consumer.groupMetadata()} also returns. Member
 * ids change when a consumer rejoins as new: the assignor then removes its previous entry, and
 * all of its entries when its consumer closes ({@link KeyPreservingAssignor}); as a bound besides,
 * the map keeps only the most recently updated {@value #MAX_MEMBERS} entries.
 */
public final class MemberLayouts {

    static final int MAX_MEMBERS = 1024;

    private static final Map<String, Latest> LATEST = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Latest> eldest) {
            return size() > MAX_MEMBERS;
        }
    };

    private MemberLayouts() {
    }

    public static void publish(String groupId, String memberId, GroupLayout layout) {
        publish(groupId, memberId, layout, OptionalLong.empty(), Optional.empty());
    }

    /**
     * @param followUpDeadline epoch ms after which the member should rebalance, if the leader asked for it
     * @param earlyFollowUp when a stateful member may ask before the deadline; empty for a stateless member
     */
    public static void publish(String groupId, String memberId, GroupLayout layout, OptionalLong followUpDeadline,
            Optional<EarlyFollowUp> earlyFollowUp) {
        synchronized (LATEST) {
            LATEST.put(key(groupId, memberId), new Latest(layout, followUpDeadline, earlyFollowUp));
        }
    }

    public static Optional<GroupLayout> latest(String groupId, String memberId) {
        synchronized (LATEST) {
            Latest latest = LATEST.get(key(groupId, memberId));
            return latest == null ? Optional.empty() : Optional.of(latest.layout);
        }
    }

    /** @return the member's follow-up deadline, unless none was set or it was claimed */
    public static OptionalLong followUpDeadline(String groupId, String memberId) {
        synchronized (LATEST) {
            Latest latest = LATEST.get(key(groupId, memberId));
            return latest == null || latest.claimed ? OptionalLong.empty() : latest.followUpDeadline;
        }
    }

    /**
     * @return the member's early follow-up check, if it is stateful; its own guards say when it
     *         fires (call it outside this registry's lock: it asks the application for lags)
     */
    public static Optional<EarlyFollowUp> earlyFollowUp(String groupId, String memberId) {
        synchronized (LATEST) {
            Latest latest = LATEST.get(key(groupId, memberId));
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
        synchronized (LATEST) {
            Latest latest = LATEST.get(key(groupId, memberId));
            if (latest == null || latest.claimed || latest.followUpDeadline.isEmpty()
                    || nowMs < latest.followUpDeadline.getAsLong()) {
                return false;
            }
            latest.claimed = true;
            return true;
        }
    }

    /**
     * Forgets what a member received: its consumer closed, or it rejoined under a new member id.
     * The entry holds the member's {@link EarlyFollowUp}, and through it the application's
     * {@link TaskStateListener}: kept, it would keep them reachable for the life of the JVM.
     */
    public static void remove(String groupId, String memberId) {
        synchronized (LATEST) {
            LATEST.remove(key(groupId, memberId));
        }
    }

    private static String key(String groupId, String memberId) {
        return groupId + '\u0000' + memberId;
    }

    /** One member's latest assignment; {@code claimed} is guarded by the map's lock. */
    private static final class Latest {
        final GroupLayout layout;
        final OptionalLong followUpDeadline;
        final Optional<EarlyFollowUp> earlyFollowUp;
        boolean claimed;

        public Latest(GroupLayout layout, OptionalLong followUpDeadline, Optional<EarlyFollowUp> earlyFollowUp) {
            this.layout = layout;
            this.followUpDeadline = followUpDeadline;
            this.earlyFollowUp = Objects.requireNonNull(earlyFollowUp, "earlyFollowUp");
        }
    }
}
