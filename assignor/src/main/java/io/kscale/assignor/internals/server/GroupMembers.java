package io.kscale.assignor.internals.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;

/**
 * The members of one {@code assign()} call, by index in member id order (so that ties break the
 * same way on every broker): their subscriptions, racks and current targets, read once from the
 * {@link GroupSpec}. Null answers from the spec count as "nothing" rather than failing.
 */
final class GroupMembers {

    final String[] ids;
    final Set<Uuid>[] subscriptions;
    /** By member: its rack, or null if it has none. */
    final String[] racks;
    final boolean anyRack;
    /**
     * Whether the coordinator says every member reads the same topics
     * ({@link SubscriptionType#HOMOGENEOUS}): {@link SubscribedTopics} then compares a member's
     * subscription with the first one by size only, not topic by topic.
     */
    final boolean homogeneous;
    /** By member: its current target, read once (a spec may look it up in a map on every call). */
    private final Map<Uuid, Set<Integer>>[] targets;

    @SuppressWarnings("unchecked")
    GroupMembers(GroupSpec spec) {
        Collection<String> memberIds = spec.memberIds();
        List<String> sorted = new ArrayList<>(memberIds == null ? List.of() : memberIds);
        sorted.removeIf(id -> id == null);
        Collections.sort(sorted);
        int distinct = 0;
        for (int i = 0; i < sorted.size(); i++) {
            if (distinct == 0 || !sorted.get(i).equals(sorted.get(distinct - 1))) {
                sorted.set(distinct++, sorted.get(i)); // sorted: a repeated id is next to its first
            }
        }
        this.ids = sorted.subList(0, distinct).toArray(new String[0]);
        this.subscriptions = new Set[ids.length];
        this.racks = new String[ids.length];
        this.targets = new Map[ids.length];
        boolean rack = false;
        for (int m = 0; m < ids.length; m++) {
            MemberSubscription subscription = spec.memberSubscription(ids[m]);
            Set<Uuid> topics = subscription == null ? null : subscription.subscribedTopicIds();
            subscriptions[m] = topics == null ? Set.of() : topics;
            Optional<String> rackId = subscription == null ? null : subscription.rackId();
            racks[m] = rackId == null ? null : rackId.orElse(null);
            rack |= racks[m] != null;
            MemberAssignment assignment = spec.memberAssignment(ids[m]);
            Map<Uuid, Set<Integer>> partitions = assignment == null ? null : assignment.partitions();
            targets[m] = partitions == null ? Map.of() : partitions;
        }
        this.anyRack = rack;
        this.homogeneous = spec.subscriptionType() == SubscriptionType.HOMOGENEOUS;
    }

    int count() {
        return ids.length;
    }

    /** @return the member's current target, partitions by topic id; empty if it has none */
    Map<Uuid, Set<Integer>> currentTarget(int member) {
        return targets[member];
    }

    /** @return member id to index */
    Map<String, Integer> index() {
        Map<String, Integer> index = new HashMap<>();
        for (int m = 0; m < ids.length; m++) {
            index.put(ids[m], m);
        }
        return index;
    }

    @Override
    public String toString() {
        return "GroupMembers" + Arrays.toString(ids);
    }
}
