package io.kscale.assignor;

import io.kscale.assignor.layout.GroupLayout;
import io.kscale.assignor.layout.LayoutCodec;
import io.kscale.assignor.layout.Varints;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a member tells the leader in its subscription userData: the layout it knows, the
 * generation of its last assignment, and the tasks it owned then. The tasks matter under the
 * EAGER protocol, where members revoke everything before joining and {@code ownedPartitions}
 * arrive empty; under COOPERATIVE the leader uses {@code ownedPartitions} instead.
 *
 * <p>Format, version 0 (see {@link UserDataEnvelope} for the header; varints from {@link Varints}):
 * <pre>
 *   header   6      magic 0x4D ('M'), version 0, CRC32C
 *   1-5             generation + 1, varint (0: the member has no generation yet)
 *   1-5             layout length, varint; then the layout ({@link LayoutCodec})
 *   1-3             number of topics with owned tasks, varint
 *   per topic       index of the topic in the layout above (name order), varint, ascending;
 *                   task count, varint (at least 1); then each task index, varint, ascending
 * </pre>
 * Tasks are named by topic, not by task count: two topics with the same T in different
 * subscriptions are separate tasks. A member owning 100 tasks of one topic reports about 100
 * bytes plus its layout (a few bytes per topic).
 */
final class MemberReport {

    static final byte MAGIC = 0x4D;

    private final int generation;
    private final SortedMap<String, SortedSet<Integer>> ownedTasks;
    private final GroupLayout layout;

    /**
     * @param ownedTasks task indexes per topic; topics without a layout in {@code layout} are left out
     */
    MemberReport(int generation, Map<String, ? extends Collection<Integer>> ownedTasks, GroupLayout layout) {
        this.generation = generation;
        this.layout = Objects.requireNonNull(layout, "layout");
        this.ownedTasks = new TreeMap<>();
        ownedTasks.forEach((topic, tasks) -> {
            if (layout.topic(topic).isPresent() && !tasks.isEmpty()) {
                this.ownedTasks.put(topic, new TreeSet<>(tasks));
            }
        });
    }

    /** @return the generation of the member's last assignment, or -1 if it has none */
    int generation() {
        return generation;
    }

    /** @return whether the member owned task {@code task} of {@code topic} */
    boolean owned(String topic, int task) {
        SortedSet<Integer> tasks = ownedTasks.get(topic);
        return tasks != null && tasks.contains(task);
    }

    /** @return the tasks the member owned, per topic */
    SortedMap<String, SortedSet<Integer>> ownedTasks() {
        return Collections.unmodifiableSortedMap(ownedTasks);
    }

    GroupLayout layout() {
        return layout;
    }

    ByteBuffer encode() {
        ByteArrayOutputStream out = UserDataEnvelope.start(MAGIC);
        Varints.write(out, Math.max(0, generation + 1L));
        UserDataEnvelope.writeNested(out, LayoutCodec.encode(layout));
        List<String> topics = topicNames(layout);
        Varints.write(out, ownedTasks.size());
        ownedTasks.forEach((topic, tasks) -> {
            Varints.write(out, Collections.binarySearch(topics, topic));
            Varints.write(out, tasks.size());
            tasks.forEach(task -> Varints.write(out, task));
        });
        return UserDataEnvelope.finish(out);
    }

    /**
     * Decodes userData from any member: this version, a later one, another assignor, garbage.
     *
     * @param buffer the userData; may be null; not modified
     * @return the report, or empty if the bytes are not a well-formed report; never throws
     */
    static Optional<MemberReport> decode(ByteBuffer buffer) {
        return decode(buffer, new HashMap<>());
    }

    /**
     * Decodes as {@link #decode(ByteBuffer)}, decoding each distinct layout only once: in a group
     * every member reports the same layout, a few bytes per topic, so a leader of 2,000 members
     * and 1,000 topics would otherwise decode the same 7 KB 2,000 times.
     *
     * @param layouts layouts decoded so far by their bytes, shared across the calls of one rebalance
     */
    static Optional<MemberReport> decode(ByteBuffer buffer, Map<ByteBuffer, Optional<GroupLayout>> layouts) {
        Optional<UserDataEnvelope.Body> opened = UserDataEnvelope.open(buffer, MAGIC);
        if (opened.isEmpty()) {
            return Optional.empty();
        }
        UserDataEnvelope.Body body = opened.get();
        ByteBuffer in = body.in;
        long generation = Varints.read(in, Integer.MAX_VALUE);
        ByteBuffer layoutBytes = generation < 0 ? null : body.readNested();
        Optional<GroupLayout> layout = layoutBytes == null ? Optional.empty()
                : layouts.computeIfAbsent(layoutBytes, LayoutCodec::decode);
        if (layout.isEmpty()) {
            return Optional.empty();
        }
        int layoutTopics = layout.get().topicCount();
        long topicCount = Varints.read(in, layoutTopics);
        if (topicCount < 0) {
            return Optional.empty();
        }
        // Most members of a large group own few topics' tasks: list the names only when needed.
        List<String> topics = topicCount == 0 ? List.of() : topicNames(layout.get());
        Map<String, List<Integer>> owned = new TreeMap<>();
        long previousTopic = -1;
        for (long i = 0; i < topicCount; i++) {
            long topic = Varints.read(in, layoutTopics - 1L);
            long taskCount = Varints.read(in, in.remaining());
            if (topic <= previousTopic || taskCount < 1) {
                return Optional.empty();
            }
            int taskLimit = layout.get().topic(topics.get((int) topic)).orElseThrow().taskCount();
            List<Integer> tasks = new ArrayList<>((int) taskCount);
            long previousTask = -1;
            for (long j = 0; j < taskCount; j++) {
                long task = Varints.read(in, taskLimit - 1L);
                if (task <= previousTask) {
                    return Optional.empty();
                }
                tasks.add((int) task);
                previousTask = task;
            }
            owned.put(topics.get((int) topic), tasks);
            previousTopic = topic;
        }
        if (!body.endsWell()) {
            return Optional.empty();
        }
        return Optional.of(new MemberReport((int) generation - 1, owned, layout.get()));
    }

    private static List<String> topicNames(GroupLayout layout) {
        List<String> names = new ArrayList<>();
        layout.topics().forEach(topic -> names.add(topic.topic()));
        return names;
    }

    @Override
    public String toString() {
        return "MemberReport(generation " + generation + ", owned " + ownedTasks + ", " + layout + ")";
    }
}
