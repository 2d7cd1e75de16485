package io.kscale.assignor.internals.layout;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * The tasks of one topic: a fixed task count T and the partition count last seen. Task
 * {@code t} holds every partition {@code p} with {@code p % T == t}. Immutable.
 *
 * <p>Why a fixed T: a keyed record goes to partition {@code hash % n}. If {@code n = k * T}, then
 * {@code hash % n % T == hash % T}, so the record's task {@code (hash % n) % T} does not depend
 * on {@code k}: every key stays in its task, and with it on the consumer that holds its state,
 * however many times the topic is multiplied (Samza SEP-5, shipped in Samza 1.1 as
 * {@code SSPGrouperProxy}). Example, T = 4: a key with {@code hash % 4 == 1} is in partition 1
 * at 4 partitions, in partition 1 or 5 at 8, in 1, 5 or 9 at 12: task 1 every time
 * ({@code 9 % 4 == 1}).
 *
 * <p>The partition count may be lower than T (an operator declared a T ahead of an expansion):
 * tasks {@code count..T-1} then hold no partitions yet. It is "aligned" when it is a multiple of
 * T, the state in which every key is in the task {@code hash % T}.
 *
 * <p>Identity. A layout belongs to a topic id when the metadata carries one (brokers since Kafka
 * 2.8): a topic deleted and re-created under the same name is another topic, with other keys, and
 * gets a fresh layout. The layout keeps a 64-bit fingerprint of the id ({@code msb ^ lsb} of
 * Kafka's {@code Uuid}, a random 122-bit value, so the fingerprint is uniformly random): 8 bytes
 * in every member's userData instead of 16, and the chance that a re-created topic goes unnoticed
 * is 2<sup>-64</sup> per re-creation. A layout without one (made before topic ids, or from
 * metadata without them) adopts the id the metadata names.
 *
 * <p>Provisional. When no member knew the topic's layout and the layout store could not be read
 * (a full restart against a busy cluster, say), T was taken from the partition count without
 * knowing whether the store holds another: such a layout is provisional. It is never stored, it
 * travels in userData marked as such (so the next leader reads the store again), and the stored
 * T replaces it once the store is read (see {@code LayoutAgreement} and {@link ProvisionalTopics}).
 *
 * <p>Missing since. When no member subscribes to the topic and the leader's metadata lacks it,
 * the leader stamps the time it first saw that; the stamp travels with the layout (userData,
 * assignment, store), so a new leader counts the grace period from the same moment and a
 * topic is forgotten once it has passed (see {@link GroupLayout#withLiveTopics}).
 *
 * @see <a href="https://cwiki.apache.org/confluence/display/SAMZA/SEP-5%3A+Enable+partition+expansion+of+input+streams">Samza SEP-5</a>
 */
public final class TopicLayout {

    /**
     * The largest task count and partition count a layout holds. Far above any real topic (Kafka
     * tests a million partitions across 500 topics), and low enough that a corrupt or hostile
     * layout cannot make a caller allocate without bound.
     */
    public static final int MAX_COUNT = 1 << 20;

    /** Kafka's limit on topic name length ({@code org.apache.kafka.common.internals.Topic}). */
    public static final int MAX_NAME_LENGTH = 249;

    /** The fingerprint that means "no topic id" (Kafka's {@code Uuid.ZERO_UUID} has it). */
    static final long NO_ID = 0;
    /** The stamp that means "not missing". */
    static final long NOT_MISSING = -1;

    /**
     * By ASCII code: whether a topic name may hold it. A table, not a chain of comparisons: the
     * leader checks every topic name of every member (two million for 2,000 members of 1,000 topics).
     */
    private static final boolean[] LEGAL_CHARS = legalChars();

    private final String topic;
    private final int taskCount;
    private final int partitionCount;
    private final long topicId;
    private final long missingSinceMs;
    private final boolean provisional;

    private TopicLayout(String topic, int taskCount, int partitionCount, long topicId, long missingSinceMs) {
        this(topic, taskCount, partitionCount, topicId, missingSinceMs, false);
    }

    private TopicLayout(String topic, int taskCount, int partitionCount, long topicId, long missingSinceMs,
                        boolean provisional) {
        this.topic = topic;
        this.taskCount = taskCount;
        this.partitionCount = partitionCount;
        this.topicId = topicId;
        this.missingSinceMs = missingSinceMs;
        this.provisional = provisional;
    }

    /**
     * Creates the layout of a topic.
     *
     * @param topic a legal Kafka topic name (see {@link #isLegalName(String)})
     * @param taskCount T, from 1 to {@link #MAX_COUNT}
     * @param partitionCount the partition count last seen, from 1 to {@link #MAX_COUNT}
     * @return the layout
     * @throws IllegalArgumentException if an argument breaks its rule
     */
    public static TopicLayout of(String topic, int taskCount, int partitionCount) {
        Objects.requireNonNull(topic, "topic");
        if (!isLegalName(topic)) {
            throw new IllegalArgumentException("topic name '" + topic + "' is not a legal Kafka topic name: 1 to "
                    + MAX_NAME_LENGTH + " characters of [a-zA-Z0-9._-], not '.' or '..'");
        }
        if (!isLegalCount(taskCount)) {
            throw new IllegalArgumentException("topic '" + topic + "': task count " + taskCount
                    + " is outside 1.." + MAX_COUNT);
        }
        if (!isLegalCount(partitionCount)) {
            throw new IllegalArgumentException("topic '" + topic + "': partition count " + partitionCount
                    + " is outside 1.." + MAX_COUNT);
        }
        return new TopicLayout(topic, taskCount, partitionCount, NO_ID, NOT_MISSING);
    }

    /**
     * @param topicIdFingerprint the fingerprint of the topic's id, not 0 (see the class comment)
     * @return this layout, owned by that topic id
     * @throws IllegalArgumentException if the fingerprint is 0, which means "no id"
     */
    public TopicLayout withTopicId(long topicIdFingerprint) {
        if (topicIdFingerprint == NO_ID) {
            throw new IllegalArgumentException("topic '" + topic + "': topic id fingerprint 0 means no id");
        }
        return new TopicLayout(topic, taskCount, partitionCount, topicIdFingerprint, missingSinceMs, provisional);
    }

    /**
     * @param epochMs when a leader first saw no member subscribe to the topic and its metadata lack it, at least 0
     * @return this layout, stamped missing since then
     * @throws IllegalArgumentException if the time is negative
     */
    public TopicLayout withMissingSince(long epochMs) {
        if (epochMs < 0) {
            throw new IllegalArgumentException("topic '" + topic + "': missing since " + epochMs + " is negative");
        }
        return new TopicLayout(topic, taskCount, partitionCount, topicId, epochMs, provisional);
    }

    /** @return this layout without a missing-since stamp: the topic is subscribed or in the metadata again */
    public TopicLayout present() {
        return missingSinceMs == NOT_MISSING ? this
                : new TopicLayout(topic, taskCount, partitionCount, topicId, NOT_MISSING, provisional);
    }

    /**
     * @param provisional whether T came from the partition count while the layout store could not be read
     * @return this layout, marked so or not
     */
    public TopicLayout withProvisional(boolean provisional) {
        return provisional == this.provisional ? this
                : new TopicLayout(topic, taskCount, partitionCount, topicId, missingSinceMs, provisional);
    }

    /** @return whether T is provisional: taken from the partition count while the layout store could not be read */
    public boolean isProvisional() {
        return provisional;
    }

    /** The same T, partition count, id and stamp, for another count: ids carry over expansions. */
    TopicLayout withCounts(int newTaskCount, int newPartitionCount) {
        TopicLayout counted = of(topic, newTaskCount, newPartitionCount);
        return new TopicLayout(topic, counted.taskCount, counted.partitionCount, topicId, missingSinceMs, provisional);
    }

    /**
     * Whether a name is a legal Kafka topic name: 1 to 249 characters of {@code [a-zA-Z0-9._-]},
     * not {@code "."} or {@code ".."} (Kafka's own rule). ASCII only, so the codec writes one byte
     * per character.
     *
     * @param name a name, may be null
     * @return whether a layout accepts it
     */
    public static boolean isLegalName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH || name.equals(".") || name.equals("..")) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (!isLegalChar(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    static boolean isLegalChar(int c) {
        return c >= 0 && c < LEGAL_CHARS.length && LEGAL_CHARS[c]; // a decoded byte may be negative
    }

    private static boolean[] legalChars() {
        boolean[] legal = new boolean[128];
        for (int c = 0; c < legal.length; c++) {
            legal[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
                    || c == '_' || c == '-';
        }
        return legal;
    }

    static boolean isLegalCount(long count) {
        return count >= 1 && count <= MAX_COUNT;
    }

    /** @return the topic name */
    public String topic() {
        return topic;
    }

    /** @return T, the fixed number of tasks of this topic */
    public int taskCount() {
        return taskCount;
    }

    /** @return the partition count last seen; never shrinks (see {@link LayoutChange.Kind#SHRUNK}) */
    public int partitionCount() {
        return partitionCount;
    }

    /** @return the fingerprint of the topic id this layout belongs to; empty if no metadata named one yet */
    public OptionalLong topicId() {
        return topicId == NO_ID ? OptionalLong.empty() : OptionalLong.of(topicId);
    }

    /** @return when a leader first saw the topic unsubscribed and absent from its metadata, epoch ms; empty if it was not */
    public OptionalLong missingSince() {
        return missingSinceMs == NOT_MISSING ? OptionalLong.empty() : OptionalLong.of(missingSinceMs);
    }

    /** @return whether this layout and {@code other} are of the same topic, T and partition count; ids and stamps aside */
    boolean sameTasks(TopicLayout other) {
        return taskCount == other.taskCount && partitionCount == other.partitionCount && topic.equals(other.topic);
    }

    /**
     * Whether {@code other} is this layout as a reader that knows fewer fields left it: the same
     * tasks, and an id and stamp that are this one's or absent. A member on an older kscale
     * decodes a newer layout without its id, stamp and provisional mark and reports it so; that is
     * no disagreement.
     */
    boolean covers(TopicLayout other) {
        return sameTasks(other) && (other.topicId == NO_ID || other.topicId == topicId)
                && (other.missingSinceMs == NOT_MISSING || other.missingSinceMs == missingSinceMs)
                && (!other.provisional || provisional);
    }

    /** @return whether the partition count is a multiple of T, so every key is in task {@code hash % T} */
    public boolean isAligned() {
        return partitionCount % taskCount == 0;
    }

    /**
     * The task of a partition: {@code partition % T}. Defined for any partition, also one beyond
     * the last count seen.
     *
     * @param partition a partition number, at least 0
     * @return its task, from 0 to T - 1
     * @throws IllegalArgumentException if {@code partition < 0}
     */
    public int taskOf(int partition) {
        if (partition < 0) {
            throw new IllegalArgumentException("topic '" + topic + "': partition " + partition + " is negative");
        }
        return partition % taskCount;
    }

    /**
     * The partitions of a task within the partition count: {@code task, task + T, task + 2T, ...}.
     *
     * @param task a task, from 0 to T - 1
     * @return its partitions in ascending order; empty if {@code task >= partitionCount}
     * @throws IllegalArgumentException if the task is outside 0..T-1
     */
    public int[] partitionsOf(int task) {
        if (task < 0 || task >= taskCount) {
            throw new IllegalArgumentException("topic '" + topic + "': task " + task + " is outside 0.." + (taskCount - 1));
        }
        int[] partitions = new int[partitionCountOf(task)];
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = task + i * taskCount;
        }
        return partitions;
    }

    /** The number of partitions of a task in 0..T-1, without building them. */
    int partitionCountOf(int task) {
        return task < partitionCount ? (partitionCount - 1 - task) / taskCount + 1 : 0;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TopicLayout)) {
            return false;
        }
        TopicLayout that = (TopicLayout) o;
        return sameTasks(that) && topicId == that.topicId && missingSinceMs == that.missingSinceMs
                && provisional == that.provisional;
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, taskCount, partitionCount, topicId, missingSinceMs, provisional);
    }

    @Override
    public String toString() {
        return topic + "(T=" + taskCount + ", partitions " + partitionCount
                + (topicId == NO_ID ? "" : ", id " + idString(topicId))
                + (missingSinceMs == NOT_MISSING ? "" : ", missing since " + missingSinceMs)
                + (provisional ? ", provisional" : "") + ")";
    }

    /** @return a fingerprint as 16 hex digits, as logs show it */
    static String idString(long fingerprint) {
        return String.format("%016x", fingerprint);
    }
}
