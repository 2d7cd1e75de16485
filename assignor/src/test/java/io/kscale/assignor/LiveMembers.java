package io.kscale.assignor;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.wire.AssignmentInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;

/**
 * Many consumers in one JVM, as a Connect worker or a multi-tenant service runs them: each an
 * assignor that received an assignment, so that it published its layout for the member-side
 * helpers. Issue 17 (finding 6): past 1,024 such members the JVM-wide registry used to evict the
 * oldest, and the barrier and follow-up of a live consumer lost their entry.
 */
final class LiveMembers {

    /** More members than the registry's former cap of 1,024. */
    static final int MANY = 1_100;

    private LiveMembers() {
    }

    /**
     * @param groupId the group of every member, each with its own member id
     * @return the assignors, each assigned once; hold them to keep their consumers "live"
     */
    static List<KeyPreservingAssignor> assigned(String groupId, int count) {
        List<KeyPreservingAssignor> assignors = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            KeyPreservingAssignor assignor = new KeyPreservingAssignor();
            assignor.onAssignment(new Assignment(List.of(), AssignmentInfo.encode(GroupLayout.empty())),
                    new ConsumerGroupMetadata(groupId, 1, "live-member-" + i, Optional.empty()));
            assignors.add(assignor);
        }
        return assignors;
    }
}
