package io.kscale.assignor.internals.server;

import io.kscale.assignor.internals.layout.TopicLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
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
    /** By distinct subscription: its topics (of these, the describer knows them), each once. */
    private final int[][] topicsOf;
    private final Map<Uuid, Integer> index;

    private SubscribedTopics(Uuid[] ids, int[] partitions, int[] taskCounts, int[][] readers, int[] subscriptionOf,
                             int[][] membersOf, int[][] topicsOf) {
        this.ids = ids;
        this.partitions = partitions;
        this.taskCounts = taskCounts;
        this.readers = readers;
        this.subscriptionOf = subscriptionOf;
        this.membersOf = membersOf;
        this.topicsOf = topicsOf;
        this.index = new HashMap<>(ids.length * 2);
        for (int t = 0; t < ids.length; t++) {
            index.put(ids[t], t);
        }
    }

    static SubscribedTopics resolve(GroupMembers members, SubscribedTopicDescriber describer, TaskCountStore store,
                                    TaskCountLog log) {
        // Members mostly share a subscription (often in equal sets, one per member): each member's
        // set is read once, into its topics' indexes, and each distinct one is kept once. Per member
        // and topic, a sorted map would cost members x topics x log(topics) comparisons (2,000 x
        // 1,000 x 10 in a large group); a set of subscribers per topic or per subscription,
        // members / 8 bytes each, would cost members^2 / 8 bytes with 50,000 members.
        int[] subscriptionOf = new int[members.count()];
        TopicsSeen seen = new TopicsSeen();
        List<int[]> distinct = distinctSubscriptions(members, subscriptionOf, seen);
        Uuid[] sortedIds = seen.ids.toArray(new Uuid[0]);
        Arrays.sort(sortedIds);
        // By topic in the order first seen: its index here, or -1 if the describer does not know it.
        int[] indexOfSeen = new int[sortedIds.length];
        Arrays.fill(indexOfSeen, -1);
        int n = 0;
        Uuid[] ids = new Uuid[sortedIds.length];
        int[] partitions = new int[ids.length];
        int[] taskCounts = new int[ids.length];
        for (Uuid topic : sortedIds) {
            int count = describer.numPartitions(topic);
            if (count <= 0) {
                continue;
            }
            ids[n] = topic;
            partitions[n] = count;
            taskCounts[n] = taskCount(topic, count, store, log);
            indexOfSeen[seen.index.get(topic)] = n;
            n++;
        }
        return new SubscribedTopics(Arrays.copyOf(ids, n), Arrays.copyOf(partitions, n),
                Arrays.copyOf(taskCounts, n), readers(distinct, indexOfSeen, n), subscriptionOf,
                membersOf(subscriptionOf, distinct.size()), topicsOf(distinct, indexOfSeen));
    }

    /** @return each distinct subscription's topics as indexes here, those the describer does not know left out */
    private static int[][] topicsOf(List<int[]> distinct, int[] indexOfSeen) {
        int[][] topicsOf = new int[distinct.size()][];
        for (int d = 0; d < topicsOf.length; d++) {
            int[] seen = distinct.get(d);
            int[] topics = new int[seen.length];
            int n = 0;
            for (int s : seen) {
                if (indexOfSeen[s] >= 0) {
                    topics[n++] = indexOfSeen[s];
                }
            }
            topicsOf[d] = n == topics.length ? topics : Arrays.copyOf(topics, n);
        }
        return topicsOf;
    }

    /**
     * The topic ids the subscriptions name, indexed in the order first seen, and which of them the
     * subscription being read named already.
     */
    private static final class TopicsSeen {
        final Map<Uuid, Integer> index = new HashMap<>();
        final List<Uuid> ids = new ArrayList<>();
        /** By topic: the stamp of the last subscription that named it. */
        private int[] namedBy = new int[16];

        /**
         * @return the topic's index, or -1 if the subscription read under {@code stamp} named it
         *         before (a set that yields an element twice)
         */
        int firstNamed(Uuid topic, int stamp) {
            Integer t = index.get(topic);
            if (t == null) {
                t = ids.size();
                index.put(topic, t);
                ids.add(topic);
                if (t == namedBy.length) {
                    namedBy = Arrays.copyOf(namedBy, t * 2);
                }
            } else if (namedBy[t] == stamp) {
                return -1;
            }
            namedBy[t] = stamp;
            return t;
        }

        /** @return whether the subscription read under {@code stamp} named every one of these topics */
        boolean namedAll(int[] topics, int stamp) {
            for (int t : topics) {
                if (namedBy[t] != stamp) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * @return by topic (of {@code count}), the distinct subscriptions that name it, ascending: a
     *         counting sort of the subscriptions' topics
     */
    private static int[][] readers(List<int[]> distinct, int[] indexOfSeen, int count) {
        int[] counts = new int[count];
        for (int[] subscription : distinct) {
            for (int seen : subscription) {
                if (indexOfSeen[seen] >= 0) {
                    counts[indexOfSeen[seen]]++;
                }
            }
        }
        int[][] readers = new int[count][];
        for (int t = 0; t < count; t++) {
            readers[t] = new int[counts[t]];
        }
        int[] next = new int[count];
        for (int d = 0; d < distinct.size(); d++) {
            for (int seen : distinct.get(d)) {
                int t = indexOfSeen[seen];
                if (t >= 0) {
                    readers[t][next[t]++] = d;
                }
            }
        }
        return readers;
    }

    /**
     * @param subscriptionOf filled in, by member: the index of its distinct subscription
     * @param seen           gets every topic id the subscriptions name (nulls left out)
     * @return the distinct subscriptions, each as its topics' indexes in {@code seen}, each once.
     *         Each member's set is read once and told apart from the others by those indexes: a
     *         hash that does not depend on their order (no sort per member), checked against the
     *         subscription it matches topic by topic; on a collision of unequal ones the member's
     *         subscription is kept as one more, never merged. The sets' own {@code hashCode} and
     *         {@code equals} are not called. When the coordinator says every member reads the same
     *         topics ({@link GroupMembers#homogeneous}), a set of the first one's size is taken as
     *         equal to it, as Kafka's own assignors take that word: reading every set would cost
     *         members x topics hash lookups (2,000 x 100 in a large group), the most of a
     *         homogeneous assignment's time.
     */
    private static List<int[]> distinctSubscriptions(GroupMembers members, int[] subscriptionOf, TopicsSeen seen) {
        Map<Long, Integer> byHash = new HashMap<>();
        List<int[]> distinct = new ArrayList<>();
        Set<Uuid> first = null;
        int[] read = new int[16];
        for (int m = 0; m < members.count(); m++) {
            Set<Uuid> subscription = members.subscriptions[m];
            if (members.homogeneous && first != null && sameSize(subscription, first)) {
                subscriptionOf[m] = 0; // no map: two lookups per member were most of this pass
                continue;
            }
            int stamp = m + 1;
            int n = 0;
            long hash = 0;
            for (Uuid topic : subscription) {
                int t = topic == null ? -1 : seen.firstNamed(topic, stamp);
                if (t >= 0) {
                    if (n == read.length) {
                        read = Arrays.copyOf(read, n * 2);
                    }
                    read[n++] = t;
                    hash += mix(t);
                }
            }
            Integer d = byHash.get(hash);
            // Both without repeats: as many topics, each named by this member, is the same topics.
            if (d == null || distinct.get(d).length != n || !seen.namedAll(distinct.get(d), stamp)) {
                if (d == null) {
                    byHash.put(hash, distinct.size());
                }
                d = distinct.size();
                distinct.add(Arrays.copyOf(read, n));
                first = first == null ? subscription : first;
            }
            subscriptionOf[m] = d;
        }
        return distinct;
    }

    /** @return a topic index spread over 64 bits (SplitMix64's finalizer), for a sum over a set */
    private static long mix(int topic) {
        long z = (topic + 1L) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
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

    /** @return a fresh {@link Subscriptions}, for reading the members' targets one member at a time */
    Subscriptions subscriptions() {
        return new Subscriptions();
    }

    /**
     * Whether a member subscribes to a topic, asked entry by entry while its target is read: the
     * member's topics are marked once (as many steps as it reads topics, none when the member
     * read before has the same subscription), then each answer is one array read. A binary
     * search of the topic's readers per entry cost a quarter of a call on a million partitions
     * read by 2,000 members in as many subscriptions. Not thread-safe: one per reader.
     */
    final class Subscriptions {
        /** By topic: 1 + the distinct subscription that marked it last. */
        private final int[] markedBy = new int[ids.length];
        private int marked = -1;

        boolean subscribes(int member, int topic) {
            int d = subscriptionOf[member];
            if (d != marked) {
                // A topic outside d is never marked d + 1, so the stale marks of others cannot answer for d.
                for (int t : topicsOf[d]) {
                    markedBy[t] = d + 1;
                }
                marked = d;
            }
            return markedBy[topic] == d + 1;
        }
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
