package io.kscale.assignor.internals.server;

import io.kscale.assignor.internals.layout.TopicLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;

/**
 * The topics a group subscribes to, each with its partition count, its subscribers and its task
 * count T as the {@link TaskCountStore} tells it:
 * <ul>
 *   <li>a known T: used as it is, whatever today's partition count;</li>
 *   <li>none stored: the topic is new to kscale, so T is its partition count, recorded through
 *       {@link TaskCountStore#propose} (which returns the T that won if another group or broker
 *       recorded one first);</li>
 *   <li>not known yet: the topic is <b>held</b> ({@link #isHeld}), T is not derived at all.</li>
 * </ul>
 * Topics the describer does not know (count -1, e.g. deleted) are left out. Topics are indexed
 * in topic id order, so that every broker breaks ties alike.
 *
 * <p>Example: a group reads topic ids A (8 partitions, stored T = 4), B (6 partitions, none
 * stored) and C (12 partitions, store still loading). A gets T = 4 (two partitions per task);
 * B gets T = 6, recorded; C is held.
 */
final class SubscribedTopics {

    final Uuid[] ids;
    final int[] partitions;
    /** By topic: T, or 0 if the topic is held. */
    final int[] taskCounts;
    /** By topic: the members subscribed to it. */
    final BitSet[] subscribers;
    private final Map<Uuid, Integer> index;

    private SubscribedTopics(Uuid[] ids, int[] partitions, int[] taskCounts, BitSet[] subscribers) {
        this.ids = ids;
        this.partitions = partitions;
        this.taskCounts = taskCounts;
        this.subscribers = subscribers;
        this.index = new HashMap<>(ids.length * 2);
        for (int t = 0; t < ids.length; t++) {
            index.put(ids[t], t);
        }
    }

    static SubscribedTopics resolve(GroupMembers members, SubscribedTopicDescriber describer, TaskCountStore store,
                                    TaskCountLog log) {
        // Members mostly share a subscription (often the very same set): read each distinct one
        // once, then sort the topics once. Per member and topic, a sorted map would cost
        // members x topics x log(topics) comparisons (2,000 x 1,000 x 10 in a large group).
        Map<Uuid, BitSet> subscribed = new HashMap<>();
        for (Map.Entry<Set<Uuid>, BitSet> subscription : distinctSubscriptions(members)) {
            for (Uuid topic : subscription.getKey()) {
                if (topic != null) {
                    subscribed.computeIfAbsent(topic, id -> new BitSet(members.count())).or(subscription.getValue());
                }
            }
        }
        Uuid[] sortedIds = subscribed.keySet().toArray(new Uuid[0]);
        Arrays.sort(sortedIds);
        int n = 0;
        Uuid[] ids = new Uuid[sortedIds.length];
        int[] partitions = new int[ids.length];
        int[] taskCounts = new int[ids.length];
        BitSet[] subscribers = new BitSet[ids.length];
        for (Uuid topic : sortedIds) {
            int count = describer.numPartitions(topic);
            if (count <= 0) {
                continue;
            }
            ids[n] = topic;
            partitions[n] = count;
            taskCounts[n] = taskCount(topic, count, store, log);
            subscribers[n] = subscribed.get(topic);
            n++;
        }
        return new SubscribedTopics(Arrays.copyOf(ids, n), Arrays.copyOf(partitions, n),
                Arrays.copyOf(taskCounts, n), Arrays.copyOf(subscribers, n));
    }

    /**
     * @return the distinct subscriptions, each with the members that have it. The coordinator
     *         gives every member its own set, so sets are first told apart by identity, then by
     *         equality; a set whose {@code hashCode} or {@code equals} throws stays on its own.
     */
    private static List<Map.Entry<Set<Uuid>, BitSet>> distinctSubscriptions(GroupMembers members) {
        Map<Set<Uuid>, BitSet> byInstance = new IdentityHashMap<>();
        for (int m = 0; m < members.count(); m++) {
            byInstance.computeIfAbsent(members.subscriptions[m], s -> new BitSet(members.count())).set(m);
        }
        Map<Set<Uuid>, BitSet> byContent = new HashMap<>();
        List<Map.Entry<Set<Uuid>, BitSet>> distinct = new ArrayList<>();
        byInstance.forEach((subscription, subscribers) -> {
            try {
                BitSet same = byContent.putIfAbsent(subscription, subscribers);
                if (same != null) {
                    same.or(subscribers);
                }
            } catch (RuntimeException e) {
                distinct.add(Map.entry(subscription, subscribers));
            }
        });
        distinct.addAll(byContent.entrySet());
        return distinct;
    }

    /** @return T, or 0 to hold the topic */
    private static int taskCount(Uuid topic, int partitions, TaskCountStore store, TaskCountLog log) {
        TaskCount stored = store.lookup(topic);
        if (stored != null && stored.isKnown()) {
            log.known(topic, stored.taskCount());
            return stored.taskCount();
        }
        if (stored != null && stored.isNoneStored()) {
            int proposed = Math.min(partitions, TopicLayout.MAX_COUNT);
            int taskCount = store.propose(topic, proposed, partitions);
            if (taskCount >= 1) {
                log.decided(topic, proposed, taskCount, partitions);
                return taskCount;
            }
        }
        log.held(topic, partitions);
        return 0;
    }

    int count() {
        return ids.length;
    }

    boolean isHeld(int topic) {
        return taskCounts[topic] == 0;
    }

    /** @return the topic's index, or -1 if the group does not read it or the describer does not know it */
    int indexOf(Uuid topicId) {
        Integer t = topicId == null ? null : index.get(topicId);
        return t == null ? -1 : t;
    }

    boolean anyHeld() {
        for (int t = 0; t < ids.length; t++) {
            if (isHeld(t)) {
                return true;
            }
        }
        return false;
    }
}
