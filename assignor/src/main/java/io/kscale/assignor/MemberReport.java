package io.kscale.assignor;

import io.kscale.assignor.layout.GroupLayout;
import io.kscale.assignor.layout.LayoutCodec;
import io.kscale.assignor.layout.TopicLayout;
import io.kscale.assignor.layout.Varints;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
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
 *   1-3             owned task count, varint
 *   per task        T, varint; task index t &lt; T, varint   (ascending by T, then t)
 *   1-5             layout length, varint; then the layout ({@link LayoutCodec})
 * </pre>
 * A member owning 100 tasks of T = 100 reports about 200 bytes plus its layout (a few bytes per
 * topic).
 */
final class MemberReport {

    static final byte MAGIC = 0x4D;

    private final int generation;
    private final SortedSet<OwnedTask> ownedTasks;
    private final GroupLayout layout;

    MemberReport(int generation, Collection<OwnedTask> ownedTasks, GroupLayout layout) {
        this.generation = generation;
        this.ownedTasks = new TreeSet<>(ownedTasks);
        this.layout = Objects.requireNonNull(layout, "layout");
    }

    /** @return the generation of the member's last assignment, or -1 if it has none */
    int generation() {
        return generation;
    }

    SortedSet<OwnedTask> ownedTasks() {
        return ownedTasks;
    }

    GroupLayout layout() {
        return layout;
    }

    ByteBuffer encode() {
        ByteArrayOutputStream out = UserDataEnvelope.start(MAGIC);
        Varints.write(out, Math.max(0, generation + 1L));
        Varints.write(out, ownedTasks.size());
        for (OwnedTask task : ownedTasks) {
            Varints.write(out, task.taskCount);
            Varints.write(out, task.task);
        }
        UserDataEnvelope.writeNested(out, LayoutCodec.encode(layout));
        return UserDataEnvelope.finish(out);
    }

    /**
     * Decodes userData from any member: this version, a later one, another assignor, garbage.
     *
     * @param buffer the userData; may be null; not modified
     * @return the report, or empty if the bytes are not a well-formed report; never throws
     */
    static Optional<MemberReport> decode(ByteBuffer buffer) {
        Optional<UserDataEnvelope.Body> opened = UserDataEnvelope.open(buffer, MAGIC);
        if (opened.isEmpty()) {
            return Optional.empty();
        }
        UserDataEnvelope.Body body = opened.get();
        ByteBuffer in = body.in;
        long generation = Varints.read(in, Integer.MAX_VALUE);
        long count = Varints.read(in, in.remaining() / 2);
        if (generation < 0 || count < 0) {
            return Optional.empty();
        }
        List<OwnedTask> tasks = new ArrayList<>((int) count);
        for (long i = 0; i < count; i++) {
            long taskCount = Varints.read(in, TopicLayout.MAX_COUNT);
            long task = Varints.read(in, TopicLayout.MAX_COUNT);
            if (taskCount < 1 || task < 0 || task >= taskCount) {
                return Optional.empty();
            }
            tasks.add(new OwnedTask((int) taskCount, (int) task));
        }
        ByteBuffer layoutBytes = body.readNested();
        if (layoutBytes == null) {
            return Optional.empty();
        }
        Optional<GroupLayout> layout = LayoutCodec.decode(layoutBytes);
        if (layout.isEmpty() || !body.endsWell()) {
            return Optional.empty();
        }
        return Optional.of(new MemberReport((int) generation - 1, tasks, layout.get()));
    }

    @Override
    public String toString() {
        return "MemberReport(generation " + generation + ", owned " + ownedTasks + ", " + layout + ")";
    }

    /**
     * A task a member owned, named by the topic group's task count and the task index (the id of
     * its {@link io.kscale.assignor.layout.Unit}, {@code T:t}).
     */
    static final class OwnedTask implements Comparable<OwnedTask> {
        final int taskCount;
        final int task;

        OwnedTask(int taskCount, int task) {
            this.taskCount = taskCount;
            this.task = task;
        }

        @Override
        public int compareTo(OwnedTask other) {
            int byCount = Integer.compare(taskCount, other.taskCount);
            return byCount != 0 ? byCount : Integer.compare(task, other.task);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof OwnedTask && ((OwnedTask) o).taskCount == taskCount && ((OwnedTask) o).task == task;
        }

        @Override
        public int hashCode() {
            return 31 * taskCount + task;
        }

        @Override
        public String toString() {
            return taskCount + ":" + task;
        }
    }
}
