package io.kscale.assignor.layout;

import java.util.Objects;

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

    private final String topic;
    private final int taskCount;
    private final int partitionCount;

    private TopicLayout(String topic, int taskCount, int partitionCount) {
        this.topic = topic;
        this.taskCount = taskCount;
        this.partitionCount = partitionCount;
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
        return new TopicLayout(topic, taskCount, partitionCount);
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
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
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
        return taskCount == that.taskCount && partitionCount == that.partitionCount && topic.equals(that.topic);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, taskCount, partitionCount);
    }

    @Override
    public String toString() {
        return topic + "(T=" + taskCount + ", partitions " + partitionCount + ")";
    }
}
