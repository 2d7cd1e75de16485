package io.kscale.assignor.internals.leader;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's check of what members sent besides userData (which {@code MemberReport} checks):
 * every field of a {@link Subscription} is untrusted, and is held against the leader's metadata
 * before anything is sized or looked up by it. Entries that contradict it are counted
 * ({@code invalid-subscription-entries-total}), logged in one WARN per rebalance with counts, and
 * left out; the rest of the subscription stands. Used once, for one {@code assign()}.
 *
 * <ul>
 *   <li><b>Topics</b>: a null or illegal name is dropped. A legal name the metadata lacks stays:
 *       the topic may not be created yet.</li>
 *   <li><b>Owned partitions</b>: a claim of a topic the metadata lacks, or of a partition outside
 *       {@code 0 <= p < count}, is dropped (it can never be assigned, so Kafka's COOPERATIVE check
 *       cannot trip on it). A claim of a partition that exists, of a topic outside the member's own
 *       subscription, is counted but kept: Kafka's consumer revokes such partitions before it
 *       joins, yet Kafka's COOPERATIVE check on the leader still counts the claim, so the leader
 *       must not hand the partition to another member in this rebalance. The leader never keeps
 *       it with its claimant (see {@link LeaderAssignment}).</li>
 * </ul>
 * Generations need no check here: Kafka's {@code Subscription} turns a negative one into none, and
 * {@code MemberReport} decodes -1 or more. Any other value may be real (the leader cannot know the
 * group's generation in {@code assign()}); it only decides which of two claims of a partition is
 * the prior owner, never whether the assignment is valid.
 *
 * <p>Example: metadata {@code orders} with 6 partitions; member {@code a} subscribes to
 * {@code [orders, null]} and owns {@code orders-1, orders--1, orders-1073741824, gone-0}. The
 * leader sees {@code [orders]} and owned {@code orders-1}, and logs one WARN: 4 invalid entries of
 * 1 member (1 topic name, 1 claim of an unknown topic, 2 out of range).
 *
 * <p>Cost: one hash lookup per owned partition (a million for a million-partition group), one
 * check of the names of each distinct topic list (members usually send equal lists), and a copy
 * of a subscription only when it had something to drop.
 */
public final class MemberInputs {

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingAssignor.class);
    /** Members named in the WARN, at most. */
    private static final int NAMED_MEMBERS = 10;

    private final Cluster metadata;
    private int badTopics;
    private int unknownTopicClaims;
    private int outOfRangeClaims;
    private int unsubscribedClaims;
    private final SortedMap<String, Integer> invalidByMember = new TreeMap<>();
    /** By topic list as sent (null included): that list checked. */
    private final Map<List<String>, CheckedTopics> checkedTopics = new HashMap<>();

    private MemberInputs(Cluster metadata) {
        this.metadata = metadata;
    }

    /**
     * Checks every member's subscription against the metadata.
     *
     * @param subscriptions what the members sent
     * @param metadata the leader's view of the cluster
     * @param metrics where invalid entries are counted
     * @return the subscriptions without their invalid entries: the same instance when every one was valid
     */
    public static GroupSubscription validate(GroupSubscription subscriptions, Cluster metadata, AssignorMetrics metrics) {
        MemberInputs inputs = new MemberInputs(metadata);
        Map<String, Subscription> valid = null;
        for (Map.Entry<String, Subscription> entry : subscriptions.groupSubscription().entrySet()) {
            Subscription checked = inputs.check(entry.getKey(), entry.getValue());
            if (checked != entry.getValue() && valid == null) {
                valid = new HashMap<>(subscriptions.groupSubscription());
            }
            if (valid != null) {
                valid.put(entry.getKey(), checked);
            }
        }
        inputs.report(metrics);
        return valid == null ? subscriptions : new GroupSubscription(valid);
    }

    private Subscription check(String member, Subscription subscription) {
        int before = invalid();
        CheckedTopics checked = checkedTopics.computeIfAbsent(subscription.topics(), CheckedTopics::new);
        badTopics += checked.dropped;
        // The member's own list when nothing was dropped (so a valid subscription stays the same instance), else a copy.
        List<String> topics = checked.valid == checked.sent ? subscription.topics() : new ArrayList<>(checked.valid);
        List<TopicPartition> owned = validClaims(subscription.ownedPartitions(), checked.subscribed);
        int invalid = invalid() - before;
        if (invalid > 0) {
            invalidByMember.put(member, invalid);
        }
        if (topics == subscription.topics() && owned == subscription.ownedPartitions()) {
            return subscription; // valid, or only claims counted and kept (outside the member's subscription)
        }
        Subscription copy = new Subscription(topics, subscription.userData(), owned,
                subscription.generationId().orElse(-1), subscription.rackId());
        copy.setGroupInstanceId(subscription.groupInstanceId());
        return copy;
    }

    /**
     * A topic list as some member sent it, checked once: members of a group mostly send equal
     * lists, and checking each name of each member was a tenth of a fresh assignment's time for
     * 2,000 members of 1,000 topics. Looking a list up costs a hash and, on a hit, an equality
     * check of its names, which grouping members by subscription pays anyway.
     */
    private static final class CheckedTopics {
        /** The list first sent (its first sender's instance), or null. */
        final List<String> sent;
        /** The topics without null and illegal names: {@link #sent} itself when none was dropped; none for null. */
        final List<String> valid;
        final Set<String> subscribed;
        /** How many names were dropped: 1 for a null list. */
        final int dropped;

        CheckedTopics(List<String> sent) {
            this.sent = sent;
            if (sent == null) {
                valid = List.of();
                dropped = 1;
            } else {
                List<String> copy = null;
                for (int i = 0; i < sent.size(); i++) {
                    String topic = sent.get(i);
                    boolean legal = topic != null && TopicLayout.isLegalName(topic);
                    if (!legal && copy == null) {
                        copy = new ArrayList<>(sent.subList(0, i));
                    }
                    if (legal && copy != null) {
                        copy.add(topic);
                    }
                }
                valid = copy == null ? sent : copy;
                dropped = sent.size() - valid.size();
            }
            subscribed = new HashSet<>(valid);
        }
    }

    /** @return the claims, or a copy without those of partitions the metadata lacks; none for null */
    private List<TopicPartition> validClaims(List<TopicPartition> owned, Set<String> subscribed) {
        if (owned == null) {
            return List.of();
        }
        List<TopicPartition> valid = null;
        String lastTopic = null;
        Integer lastCount = null;
        boolean lastSubscribed = false;
        for (int i = 0; i < owned.size(); i++) {
            TopicPartition partition = owned.get(i);
            String topic = partition == null ? null : partition.topic();
            if (topic == null || !topic.equals(lastTopic)) {
                // Members list their partitions topic by topic: look each run's topic up once.
                lastTopic = topic;
                lastCount = topic == null ? null : metadata.partitionCountForTopic(topic);
                lastSubscribed = subscribed.contains(topic);
            }
            boolean exists = lastCount != null && partition.partition() >= 0 && partition.partition() < lastCount;
            if (!exists) {
                if (lastCount == null) {
                    unknownTopicClaims++;
                } else {
                    outOfRangeClaims++;
                }
                if (valid == null) {
                    valid = new ArrayList<>(owned.subList(0, i));
                }
                continue;
            }
            if (!lastSubscribed) {
                unsubscribedClaims++;
            }
            if (valid != null) {
                valid.add(partition);
            }
        }
        return valid == null ? owned : valid;
    }

    private int invalid() {
        return badTopics + unknownTopicClaims + outOfRangeClaims + unsubscribedClaims;
    }

    private void report(AssignorMetrics metrics) {
        int invalid = invalid();
        if (invalid == 0) {
            return;
        }
        metrics.invalidSubscriptionEntries(invalid);
        List<String> named = new ArrayList<>(NAMED_MEMBERS);
        for (String member : invalidByMember.keySet()) {
            if (named.size() == NAMED_MEMBERS) {
                break;
            }
            named.add(member + "=" + invalidByMember.get(member));
        }
        log.warn("{} subscription entries of {} members contradict the leader's metadata. Ignored: {} null or illegal "
                + "topic names, {} owned partitions of topics the metadata lacks, {} owned partitions outside their "
                + "topic's partition count. Not kept by their member: {} "
                + "owned partitions of topics outside its subscription (they move one rebalance later). The leader's "
                + "metadata may lag a member's for a moment (a topic just created, deleted or grown); otherwise a "
                + "client sends what Kafka's consumer does not. "
                + "Invalid entries per member (first {}): {}", invalid, invalidByMember.size(), badTopics,
                unknownTopicClaims, outOfRangeClaims, unsubscribedClaims, NAMED_MEMBERS, named);
    }
}
