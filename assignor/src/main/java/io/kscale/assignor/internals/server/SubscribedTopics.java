package io.kscale.assignor.internals.server;

import io.kscale.assignor.internals.layout.TopicLayout;
import java.util.ArrayList;
import java.util.Arrays;
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
 * in topic id order, so that every broker breaks ties alike. A topic's subscribers are kept as
 * the distinct subscriptions that name it ({@link #readers}): two topics with the same readers
 * have the same subscribers.
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
    /** By topic: the distinct subscriptions that name it, ascending. */
    final int[][] readers;
    /** By member: the index of its distinct subscription. */
    private final int[] subscriptionOf;
    /** By distinct subscription: the members that have it, ascending. */
    private final int[][] membersOf;
    private final Map<Uuid, Integer> index;

    private SubscribedTopics(Uuid[] ids, int[] partitions, int[] taskCounts, int[][] readers, int[] subscriptionOf,
                             int[][] membersOf) {
        this.ids = ids;
        this.partitions = partitions;
        this.taskCounts = taskCounts;
        this.readers = readers;
        this.subscriptionOf = subscriptionOf;
        this.membersOf = membersOf;
        this.index = new HashMap<>(ids.length * 2);
        for (int t = 0; t < ids.length; t++) {
            index.put(ids[t], t);
        }
    }

    static SubscribedTopics resolve(GroupMembers members, SubscribedTopicDescriber describer, TaskCountStore store,
                                    TaskCountLog log) {
        // Members mostly share a subscription (often in equal sets, one per member): read each
        // distinct one once, then sort the topics once. Per member and topic, a sorted map would
        // cost members x topics x log(topics) comparisons (2,000 x 1,000 x 10 in a large group);
        // a set of subscribers per topic or per subscription, members / 8 bytes each, would cost
        // members^2 / 8 bytes with 50,000 members.
        int[] subscriptionOf = new int[members.count()];
        List<Set<Uuid>> distinct = distinctSubscriptions(members, subscriptionOf);
        Map<Uuid, int[]> named = new HashMap<>();
        for (int d = 0; d < distinct.size(); d++) {
            for (Uuid topic : distinct.get(d)) {
                if (topic != null) {
                    int[] readers = named.get(topic);
                    // d ascending: a repeat of d is at the end (a set that yields a topic twice)
                    if (readers == null || readers[readers[0]] != d) {
                        named.put(topic, appended(readers, d));
                    }
                }
            }
        }
        Uuid[] sortedIds = named.keySet().toArray(new Uuid[0]);
        Arrays.sort(sortedIds);
        int n = 0;
        Uuid[] ids = new Uuid[sortedIds.length];
        int[] partitions = new int[ids.length];
        int[] taskCounts = new int[ids.length];
        int[][] readers = new int[ids.length][];
        for (Uuid topic : sortedIds) {
            int count = describer.numPartitions(topic);
            if (count <= 0) {
                continue;
            }
            ids[n] = topic;
            partitions[n] = count;
            taskCounts[n] = taskCount(topic, count, store, log);
            int[] list = named.get(topic);
            readers[n] = Arrays.copyOfRange(list, 1, list[0] + 1);
            n++;
        }
        return new SubscribedTopics(Arrays.copyOf(ids, n), Arrays.copyOf(partitions, n),
                Arrays.copyOf(taskCounts, n), Arrays.copyOf(readers, n), subscriptionOf,
                membersOf(subscriptionOf, distinct.size()));
    }

    /** @return the list (its size in slot 0, then its elements) with {@code value} appended, grown by doubling */
    private static int[] appended(int[] list, int value) {
        if (list == null) {
            list = new int[4];
        } else if (list[0] + 1 == list.length) {
            list = Arrays.copyOf(list, list.length * 2);
        }
        list[++list[0]] = value;
        return list;
    }

    /**
     * @param subscriptionOf filled in, by member: the index of its distinct subscription
     * @return the distinct subscriptions. The coordinator gives every member its own set, so sets
     *         are first told apart by identity, then by equality; a set whose {@code hashCode} or
     *         {@code equals} throws stays on its own. When the coordinator says every member reads
     *         the same topics ({@link GroupMembers#homogeneous}), a set of the first one's size is
     *         taken as equal to it, as Kafka's own assignors take that word: comparing topic by
     *         topic would cost members x topics hash lookups (2,000 x 100 in a large group), the
     *         most of a homogeneous assignment's time.
     */
    private static List<Set<Uuid>> distinctSubscriptions(GroupMembers members, int[] subscriptionOf) {
        Map<Set<Uuid>, Integer> byInstance = new IdentityHashMap<>();
        Map<Set<Uuid>, Integer> byContent = new HashMap<>();
        List<Set<Uuid>> distinct = new ArrayList<>();
        for (int m = 0; m < members.count(); m++) {
            Set<Uuid> subscription = members.subscriptions[m];
            if (members.homogeneous && !distinct.isEmpty() && sameSize(subscription, distinct.get(0))) {
                subscriptionOf[m] = 0; // no map: two lookups per member were most of this pass
                continue;
            }
            Integer d = byInstance.get(subscription);
            if (d == null) {
                try {
                    d = byContent.putIfAbsent(subscription, distinct.size());
                } catch (RuntimeException e) {
                    d = null; // a set of its own
                }
                if (d == null) {
                    d = distinct.size();
                    distinct.add(subscription);
                }
                byInstance.put(subscription, d);
            }
            subscriptionOf[m] = d;
        }
        return distinct;
    }

    /** @return whether the sets have the same size; false if either's {@code size} throws */
    private static boolean sameSize(Set<Uuid> a, Set<Uuid> b) {
        try {
            return a.size() == b.size();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** @return by distinct subscription, its members ascending: a counting sort of the members */
    private static int[][] membersOf(int[] subscriptionOf, int distinct) {
        int[] counts = new int[distinct];
        for (int d : subscriptionOf) {
            counts[d]++;
        }
        int[][] membersOf = new int[distinct][];
        for (int d = 0; d < distinct; d++) {
            membersOf[d] = new int[counts[d]];
        }
        int[] next = new int[distinct];
        for (int m = 0; m < subscriptionOf.length; m++) {
            int d = subscriptionOf[m];
            membersOf[d][next[d]++] = m;
        }
        return membersOf;
    }

    /** @return whether the member subscribes to the topic */
    boolean subscribes(int member, int topic) {
        return Arrays.binarySearch(readers[topic], subscriptionOf[member]) >= 0;
    }

    /** @return the members that subscribe to the topic, ascending */
    int[] subscribers(int topic) {
        int count = 0;
        for (int d : readers[topic]) {
            count += membersOf[d].length;
        }
        int[] subscribers = new int[count];
        int n = 0;
        for (int d : readers[topic]) {
            System.arraycopy(membersOf[d], 0, subscribers, n, membersOf[d].length);
            n += membersOf[d].length;
        }
        Arrays.sort(subscribers);
        return subscribers;
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
