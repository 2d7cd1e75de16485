package io.kscale.assignor.internals.wire;

import io.kscale.assignor.TaskRef;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.layout.MessageFrame;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.layout.Varints;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What the leader sends a member in its assignment userData: the group's layout after this
 * rebalance, so every member carries it into its next subscription and any member can become the
 * next leader without the store; from version 1 also, for members with task state, the follow-up
 * deadline, the tasks to warm up, and the task groups that name the member's tasks.
 *
 * <p>Format (header: {@link MessageFrame}):
 * <pre>
 *   header   6      magic 0x41 ('A'), version (0 or 1), CRC32C
 *   version 0 body:
 *   1-5             layout length, varint; then the layout ({@link LayoutCodec})
 *   version 1 appends:
 *   1-9             follow-up deadline + 1, epoch ms, varint (0: no follow-up wanted)
 *   1-3             number of task groups, varint
 *   per group       number of topics, varint (at least 1); each topic's index in the layout, varint,
 *                   ascending; every topic with the same T; groups disjoint, ascending by first topic
 *   1-3             number of warmup tasks, varint
 *   per warmup      index of its group, varint; task index, varint (below T); ascending by both
 * </pre>
 * A task group holds the topics the leader places together: the topics of one T subscribed by the
 * same members, whose task {@code t} is one {@link TaskRef}. The leader lists the groups of the
 * member's assigned and warmup tasks, so the member can name them. Example: layout
 * {@code orders} (T=4) and {@code payments} (T=4), one group {@code {0, 1}}, warmup
 * {@code (0, 3)} = {@code TaskRef 4:3[orders, payments]}, deadline 1,700,000,600,000: the
 * version 1 part is {@code C1 9F BA FF BC 31 | 01 02 00 01 | 01 00 03}, 13 bytes. A member
 * without task state gets {@code 00 00 00}.
 *
 * <p>Compatibility: a version 0 reader reads the layout and ignores the rest; a member that reads
 * a version 0 assignment (from a leader before task state) warms up nothing and has no follow-up.
 */
public final class AssignmentInfo {

    public static final byte MAGIC = 0x41;
    /** The version this class writes and the newest it reads in full. */
    public static final int VERSION = MessageFrame.VERSION_1;

    private final GroupLayout layout;
    private final OptionalLong followUpDeadline;
    private final List<List<String>> taskGroups;
    private final SortedSet<TaskRef> warmups;

    private AssignmentInfo(GroupLayout layout, OptionalLong followUpDeadline, List<List<String>> taskGroups,
                           SortedSet<TaskRef> warmups) {
        this.layout = layout;
        this.followUpDeadline = followUpDeadline;
        this.taskGroups = taskGroups;
        this.warmups = warmups;
    }

    /** @return the group's layout */
    public GroupLayout layout() {
        return layout;
    }

    /** @return epoch ms after which the member should rebalance, if the leader wants a follow-up */
    public OptionalLong followUpDeadline() {
        return followUpDeadline;
    }

    /** @return the topics of each task group of the member's tasks, each in name order */
    public List<List<String>> taskGroups() {
        return taskGroups;
    }

    /** @return the tasks the member should warm up */
    public SortedSet<TaskRef> warmups() {
        return warmups;
    }

    /** @return version 1 with nothing but the layout: no follow-up, no task groups, no warmups */
    public static ByteBuffer encode(GroupLayout layout) {
        return encode(LayoutCodec.encode(layout), layout, OptionalLong.empty(), List.of(), List.of(), VERSION);
    }

    /**
     * @param layoutBytes the layout, encoded once for every member; not modified
     * @param taskGroups topic groups, each of one T (see the class comment); must hold every warmup's topics
     * @param warmups tasks of the groups, task below T
     * @param version {@link MessageFrame#VERSION_0} writes the layout only, as before task state (tests)
     * @throws IllegalArgumentException if a group or warmup does not match the layout
     */
    public static ByteBuffer encode(ByteBuffer layoutBytes, GroupLayout layout, OptionalLong followUpDeadline,
                             Collection<List<String>> taskGroups, Collection<TaskRef> warmups, int version) {
        ByteArrayOutputStream out = MessageFrame.start(MAGIC, version);
        MessageFrame.writeNested(out, layoutBytes.duplicate());
        if (version >= MessageFrame.VERSION_1) {
            Varints.write(out, followUpDeadline.isPresent() ? Math.max(0, followUpDeadline.getAsLong()) + 1 : 0);
            List<String> names = new ArrayList<>(layout.topicCount());
            layout.topics().forEach(topic -> names.add(topic.topic()));
            List<List<String>> groups = new ArrayList<>(taskGroups);
            groups.sort(Comparator.comparing(group -> group.get(0)));
            Map<String, Integer> groupOfTopic = new HashMap<>();
            Varints.write(out, groups.size());
            for (int g = 0; g < groups.size(); g++) {
                Varints.write(out, groups.get(g).size());
                for (String topic : groups.get(g)) {
                    int index = Collections.binarySearch(names, topic);
                    if (index < 0) {
                        throw new IllegalArgumentException("topic '" + topic + "' of a task group is not in the layout");
                    }
                    Varints.write(out, index);
                    groupOfTopic.put(topic, g);
                }
            }
            List<long[]> encoded = new ArrayList<>(warmups.size());
            for (TaskRef warmup : warmups) {
                Integer group = groupOfTopic.get(warmup.topics().get(0));
                if (group == null || !groups.get(group).equals(warmup.topics())) {
                    throw new IllegalArgumentException("warmup " + warmup + " is not of a task group " + groups);
                }
                encoded.add(new long[] {group, warmup.task()});
            }
            encoded.sort(Comparator.<long[]>comparingLong(w -> w[0]).thenComparingLong(w -> w[1]));
            Varints.write(out, encoded.size());
            encoded.forEach(w -> {
                Varints.write(out, w[0]);
                Varints.write(out, w[1]);
            });
        }
        return MessageFrame.finish(out);
    }

    /**
     * @param buffer assignment userData; may be null; not modified
     * @return the message, or empty if the bytes are not a well-formed one; never throws
     */
    public static Optional<AssignmentInfo> decode(ByteBuffer buffer) {
        return decode(buffer, VERSION);
    }

    /** Decodes as a reader that knows the versions up to {@code readerVersion} (tests). */
    public static Optional<AssignmentInfo> decode(ByteBuffer buffer, int readerVersion) {
        Optional<MessageFrame.Body> opened = MessageFrame.open(buffer, MAGIC);
        if (opened.isEmpty()) {
            return Optional.empty();
        }
        MessageFrame.Body body = opened.get();
        ByteBuffer layoutBytes = body.readNested();
        Optional<GroupLayout> layout = layoutBytes == null ? Optional.empty() : LayoutCodec.decode(layoutBytes);
        if (layout.isEmpty()) {
            return Optional.empty();
        }
        AssignmentInfo info = new AssignmentInfo(layout.get(), OptionalLong.empty(), List.of(), Collections.emptySortedSet());
        if (readerVersion >= MessageFrame.VERSION_1 && body.version() >= MessageFrame.VERSION_1) {
            info = readVersion1(layout.get(), body.in());
            if (info == null) {
                return Optional.empty();
            }
        }
        return body.endsWell(readerVersion) ? Optional.of(info) : Optional.empty();
    }

    /** @return the message with the version 1 fields, or null if they are malformed */
    private static AssignmentInfo readVersion1(GroupLayout layout, ByteBuffer in) {
        long deadline = Varints.read(in, Long.MAX_VALUE);
        long groupCount = Varints.read(in, layout.topicCount());
        if (deadline < 0 || groupCount < 0) {
            return null;
        }
        List<TopicLayout> topics = layout.topics();
        List<List<String>> groups = new ArrayList<>((int) groupCount);
        List<Integer> taskCounts = new ArrayList<>((int) groupCount);
        BitSet used = new BitSet();
        long previousFirst = -1;
        for (long g = 0; g < groupCount; g++) {
            long size = Varints.read(in, topics.size());
            if (size < 1) {
                return null;
            }
            List<String> names = new ArrayList<>();
            long previous = -1;
            int taskCount = -1;
            for (long i = 0; i < size; i++) {
                long index = Varints.read(in, topics.size() - 1L);
                if (index <= previous || used.get((int) index) || (i == 0 && index <= previousFirst)) {
                    return null;
                }
                TopicLayout topic = topics.get((int) index);
                if (i == 0) {
                    taskCount = topic.taskCount();
                    previousFirst = index;
                } else if (topic.taskCount() != taskCount) {
                    return null;
                }
                used.set((int) index);
                names.add(topic.topic());
                previous = index;
            }
            groups.add(List.copyOf(names));
            taskCounts.add(taskCount);
        }
        long warmupCount = Varints.read(in, in.remaining());
        if (warmupCount < 0 || (warmupCount > 0 && groupCount == 0)) {
            return null;
        }
        SortedSet<TaskRef> warmups = new TreeSet<>();
        long previousGroup = -1;
        long previousTask = -1;
        for (long w = 0; w < warmupCount; w++) {
            long group = Varints.read(in, groupCount - 1);
            long task = group < 0 ? -1 : Varints.read(in, taskCounts.get((int) group) - 1L);
            if (task < 0 || group < previousGroup || (group == previousGroup && task <= previousTask)) {
                return null;
            }
            warmups.add(TaskRef.of(groups.get((int) group), taskCounts.get((int) group), (int) task));
            previousGroup = group;
            previousTask = task;
        }
        OptionalLong followUp = deadline == 0 ? OptionalLong.empty() : OptionalLong.of(deadline - 1);
        return new AssignmentInfo(layout, followUp, Collections.unmodifiableList(groups),
                Collections.unmodifiableSortedSet(warmups));
    }

    @Override
    public String toString() {
        return "AssignmentInfo(" + layout + ", follow-up " + followUpDeadline + ", groups " + taskGroups
                + ", warmups " + warmups + ")";
    }
}
