package io.kscale.assignor;

import io.kscale.assignor.layout.GroupLayout;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The layout each consumer in this JVM received with its latest assignment, by group and member
 * id, so that member-side helpers ({@link ExpansionBarrier}) can tell which partitions share a task
 * without access to the assignor instance (the consumer creates it and keeps it private).
 *
 * <p>Keyed by group id and member id, which {@code consumer.groupMetadata()} also returns. Member
 * ids change when a consumer rejoins as new, so the map keeps only the most recently updated
 * {@value #MAX_MEMBERS} entries.
 */
final class MemberLayouts {

    static final int MAX_MEMBERS = 1024;

    private static final Map<String, GroupLayout> LATEST = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, GroupLayout> eldest) {
            return size() > MAX_MEMBERS;
        }
    };

    private MemberLayouts() {
    }

    static void publish(String groupId, String memberId, GroupLayout layout) {
        synchronized (LATEST) {
            LATEST.put(key(groupId, memberId), layout);
        }
    }

    static Optional<GroupLayout> latest(String groupId, String memberId) {
        synchronized (LATEST) {
            return Optional.ofNullable(LATEST.get(key(groupId, memberId)));
        }
    }

    private static String key(String groupId, String memberId) {
        return groupId + '\u0000' + memberId;
    }
}
