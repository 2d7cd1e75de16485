package io.kscale.assignor.internals.server;

import java.util.Collection;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;

/** A spec that answers as another does: tests override the one answer a coordinator could get wrong. */
class ForwardingGroupSpec implements GroupSpec {
    private final GroupSpec spec;

    ForwardingGroupSpec(GroupSpec spec) {
        this.spec = spec;
    }

    @Override
    public Collection<String> memberIds() {
        return spec.memberIds();
    }

    @Override
    public SubscriptionType subscriptionType() {
        return spec.subscriptionType();
    }

    @Override
    public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
        return spec.isPartitionAssigned(topicId, partitionId);
    }

    @Override
    public boolean isPartitionAssignable(Uuid topicId, int partitionId) {
        return spec.isPartitionAssignable(topicId, partitionId);
    }

    @Override
    public MemberSubscription memberSubscription(String memberId) {
        return spec.memberSubscription(memberId);
    }

    @Override
    public MemberAssignment memberAssignment(String memberId) {
        return spec.memberAssignment(memberId);
    }
}
