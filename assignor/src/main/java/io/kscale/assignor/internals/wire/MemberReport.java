package io.kscale.assignor.internals.wire;

import io.kscale.assignor.TaskStateListener;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.layout.MessageFrame;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.layout.Varints;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What a member tells the leader in its subscription userData: the layout it knows, the
 * generation of its last assignment, the tasks it owned then and, from version 1, whether it
 * keeps task state ({@link TaskStateListener}) and how far behind that state is. The owned tasks
 * matter under the EAGER protocol, where members revoke everything before joining and
 * {@code ownedPartitions} arrive empty; under COOPERATIVE the leader uses {@code ownedPartitions}.
 *
 * <p>Format (see {@link MessageFrame} for the header; varints from {@link Varints}):
 * <pre>
 *   header   6      magic 0x4D ('M'), version (0 or 1), CRC32C
 *   version 0 body:
 *   1-5             generation + 1, varint (0: the member has no generation yet)
 *   1-5             layout length, varint; then the layout ({@link LayoutCodec})
 *   1-3             number of topics with owned tasks, varint
 *   per topic       index of the topic in the layout above (name order), varint, ascending;
 *                   task count, varint (at least 1); then each task index, varint, ascending
 *   version 1 appends:
 *   1               flags, varint: 1 if the member has a task state listener, else 0
 *   1-3             number of layout topics with lags, varint
 *   per topic       index of the topic in the layout, varint, ascending; task count, varint (at
 *                   least 1); then per task its index, varint, ascending, and its lag, varint
 *   1-3             number of named topics with lags, varint: topics the layout above lacks
 *   per topic       name length, varint, and the name (ASCII, ascending, not in the layout); T,
 *                   varint; then task count and tasks with lags as above
 * </pre>
 * Tasks are named by topic, not by task count: two topics with the same T in different
 * subscriptions are separate tasks. A task of co-partitioned topics reports its lag under its
 * first topic in the layout. Named topics serve a member that does not know the layout yet (just
 * restarted, with state on disk): its tasks are named by their first topic and T, and the leader
 * takes a lag only if T is still the topic's T. A member owning 100 tasks of one topic reports
 * about 100 bytes plus its layout (a few bytes per topic); lags for 1,000 tasks of one topic take
 * 2 bytes per index past 127 and 1 to 3 bytes per lag below 2 million: 4.8 KB for lags up to
 * 200,000 (see the size test).
 *
 * <p>Compatibility: a version 0 reader (kscale before task state) reads the version 1 prefix and
 * ignores the rest, so a mixed group during a rolling upgrade still shares layouts and owned
 * tasks; the leader treats a version 0 member as one without a listener.
 */
public final class MemberReport {

    public static final byte MAGIC = 0x4D;
    /** The version this class writes and the newest it reads in full. */
    static final int VERSION = MessageFrame.VERSION_1;

    private final int generation;
    /**
     * Task indexes per topic, in topic name order (a linked map: a leader decodes thousands of
     * these per rebalance, and sorted-map inserts were a fifth of it), each array ascending and
     * without repeats; topics in the layout only.
     */
    private final Map<String, TaskList> ownedTasks;
    private final GroupLayout layout;
    private final boolean stateful;
    private final SortedMap<String, TopicLags> lags;

    /**
     * A report of a member without task state.
     *
     * @param ownedTasks task indexes per topic; topics without a layout in {@code layout} are left out
     */
    public MemberReport(int generation, Map<String, ? extends Collection<Integer>> ownedTasks, GroupLayout layout) {
        this(generation, ownedTasks, layout, false, Map.of());
    }

    /**
     * @param ownedTasks task indexes per topic; topics without a layout in {@code layout} are left out
     * @param stateful whether the member has a {@link TaskStateListener}
     * @param lags records behind per topic, of tasks named by the topic and its T; a topic whose
     *             layout in {@code layout} has another T is left out
     */
    public MemberReport(int generation, Map<String, ? extends Collection<Integer>> ownedTasks, GroupLayout layout,
                 boolean stateful, Map<String, TopicLags> lags) {
        this(generation, layout, stateful, ascending(ownedTasks, layout), validLags(lags, layout));
    }

    /** The decoder's way in: it has checked everything the public constructor checks. */
    private MemberReport(int generation, GroupLayout layout, boolean stateful, Map<String, TaskList> ownedTasks,
                         SortedMap<String, TopicLags> lags) {
        this.generation = generation;
        this.layout = Objects.requireNonNull(layout, "layout");
        this.stateful = stateful;
        this.ownedTasks = ownedTasks;
        this.lags = lags;
    }

    private static Map<String, TaskList> ascending(Map<String, ? extends Collection<Integer>> ownedTasks,
                                                   GroupLayout layout) {
        Map<String, TaskList> ascending = new LinkedHashMap<>();
        new TreeMap<>(ownedTasks).forEach((topic, tasks) -> {
            if (layout.topic(topic).isPresent() && !tasks.isEmpty()) {
                ascending.put(topic, new TaskList(new TreeSet<>(tasks).stream().mapToInt(Integer::intValue).toArray()));
            }
        });
        return ascending;
    }

    private static SortedMap<String, TopicLags> validLags(Map<String, TopicLags> lags, GroupLayout layout) {
        SortedMap<String, TopicLags> valid = new TreeMap<>();
        lags.forEach((topic, topicLags) -> {
            boolean sameTaskCount = layout.topic(topic).map(t -> t.taskCount() == topicLags.taskCount).orElse(true);
            if (sameTaskCount && TopicLayout.isLegalName(topic) && !topicLags.lags.isEmpty()) {
                valid.put(topic, topicLags);
            }
        });
        return valid;
    }

    /** @return the generation of the member's last assignment, or -1 if it has none */
    public int generation() {
        return generation;
    }

    /** @return whether the member owned task {@code task} of {@code topic} */
    public boolean owned(String topic, int task) {
        TaskList tasks = ownedTasks.get(topic);
        return tasks != null && Arrays.binarySearch(tasks.tasks, task) >= 0;
    }

    /**
     * @return the tasks the member owned, per topic (a copy: the leader reads them only under
     *         EAGER, so a report keeps them compact until then)
     */
    public SortedMap<String, SortedSet<Integer>> ownedTasks() {
        SortedMap<String, SortedSet<Integer>> copy = new TreeMap<>();
        ownedTasks.forEach((topic, tasks) -> copy.put(topic,
                Arrays.stream(tasks.tasks).boxed().collect(Collectors.toCollection(TreeSet::new))));
        return Collections.unmodifiableSortedMap(copy);
    }

    public GroupLayout layout() {
        return layout;
    }

    /** @return whether the member has a {@link TaskStateListener}; false for a version 0 report */
    public boolean stateful() {
        return stateful;
    }

    /** @return records behind per topic, for the tasks the member has state of */
    public SortedMap<String, TopicLags> lags() {
        return Collections.unmodifiableSortedMap(lags);
    }

    public ByteBuffer encode() {
        return encode(VERSION);
    }

    /** @param version {@link MessageFrame#VERSION_0} writes what kscale wrote before task state (tests) */
    public ByteBuffer encode(int version) {
        ByteArrayOutputStream out = MessageFrame.start(MAGIC, version);
        Varints.write(out, Math.max(0, generation + 1L));
        MessageFrame.writeNested(out, LayoutCodec.encode(layout));
        List<String> topics = topicNames(layout);
        Varints.write(out, ownedTasks.size());
        ownedTasks.forEach((topic, tasks) -> {
            Varints.write(out, Collections.binarySearch(topics, topic));
            Varints.write(out, tasks.tasks.length);
            for (int task : tasks.tasks) {
                Varints.write(out, task);
            }
        });
        if (version >= MessageFrame.VERSION_1) {
            Varints.write(out, stateful ? 1 : 0);
            SortedMap<String, TopicLags> inLayout = new TreeMap<>();
            SortedMap<String, TopicLags> named = new TreeMap<>();
            lags.forEach((topic, topicLags) -> (layout.topic(topic).isPresent() ? inLayout : named).put(topic, topicLags));
            Varints.write(out, inLayout.size());
            inLayout.forEach((topic, topicLags) -> {
                Varints.write(out, Collections.binarySearch(topics, topic));
                topicLags.write(out);
            });
            Varints.write(out, named.size());
            named.forEach((topic, topicLags) -> {
                byte[] name = topic.getBytes(StandardCharsets.US_ASCII);
                Varints.write(out, name.length);
                out.write(name, 0, name.length);
                Varints.write(out, topicLags.taskCount);
                topicLags.write(out);
            });
        }
        return MessageFrame.finish(out);
    }

    /**
     * Decodes userData from any member: this version, an older or a later one, another assignor,
     * garbage.
     *
     * @param buffer the userData; may be null; not modified
     * @return the report, or empty if the bytes are not a well-formed report; never throws
     */
    public static Optional<MemberReport> decode(ByteBuffer buffer) {
        return decode(buffer, new DecodedLayouts());
    }

    /**
     * Decodes as {@link #decode(ByteBuffer)}, decoding each distinct layout only once.
     *
     * @param layouts layouts decoded so far, shared across the calls of one rebalance
     */
    public static Optional<MemberReport> decode(ByteBuffer buffer, DecodedLayouts layouts) {
        return decode(buffer, layouts, VERSION);
    }

    /**
     * Decodes as a reader that knows the versions up to {@code readerVersion}: with
     * {@link MessageFrame#VERSION_0}, exactly as kscale did before task state (tests).
     */
    public static Optional<MemberReport> decode(ByteBuffer buffer, DecodedLayouts layouts,
                                         int readerVersion) {
        Optional<MessageFrame.Body> opened = MessageFrame.open(buffer, MAGIC);
        if (opened.isEmpty()) {
            return Optional.empty();
        }
        MessageFrame.Body body = opened.get();
        ByteBuffer in = body.in();
        long generation = Varints.read(in, Integer.MAX_VALUE);
        ByteBuffer layoutBytes = generation < 0 ? null : body.readNested();
        Optional<GroupLayout> layout = layoutBytes == null ? Optional.empty()
                : layouts.decode(layoutBytes);
        if (layout.isEmpty()) {
            return Optional.empty();
        }
        TaskSection section = new TaskSection(layout.get(), in);
        Map<String, TaskList> owned = section.read(false);
        if (owned == null) {
            return Optional.empty();
        }
        boolean stateful = false;
        Map<String, TopicLags> lags = Map.of();
        if (readerVersion >= MessageFrame.VERSION_1 && body.version() >= MessageFrame.VERSION_1) {
            // Version 1 defines one flag; a later version may define more.
            long flags = Varints.read(in, body.version() == MessageFrame.VERSION_1 ? 1 : Integer.MAX_VALUE);
            Map<String, TaskList> lagSection = flags < 0 ? null : section.read(true);
            lags = lagSection == null ? null : section.readNamed(lagSection);
            if (lags == null) {
                return Optional.empty();
            }
            stateful = (flags & 1) != 0;
        }
        if (!body.endsWell(readerVersion)) {
            return Optional.empty();
        }
        return Optional.of(new MemberReport((int) generation - 1, layout.get(), stateful, owned,
                validLags(lags, layout.get())));
    }

    /** A hash map capacity that holds {@code entries} without resizing. */
    private static int capacity(long entries) {
        return (int) (entries * 4 / 3) + 1;
    }

    private static List<String> topicNames(GroupLayout layout) {
        List<String> names = new ArrayList<>(layout.topicCount());
        layout.topics().forEach(topic -> names.add(topic.topic()));
        return names;
    }

    /**
     * Reads the per-topic task sections of a report, strictly: topics and tasks ascending and
     * within the layout, counts bounded by the bytes left before anything is allocated.
     */
    private static final class TaskSection {
        private final GroupLayout layout;
        private final ByteBuffer in;

        public TaskSection(GroupLayout layout, ByteBuffer in) {
            this.layout = layout;
            this.in = in;
        }

        /**
         * @param withLags whether each task index is followed by a lag
         * @return the tasks per topic, in topic name order, or null if malformed
         */
        public Map<String, TaskList> read(boolean withLags) {
            int layoutTopics = layout.topicCount();
            long topicCount = Varints.read(in, layoutTopics);
            if (topicCount < 0) {
                return null;
            }
            // Indexes ascend, so inserting into a linked map keeps name order.
            Map<String, TaskList> section = new LinkedHashMap<>(capacity(topicCount));
            List<TopicLayout> topics = layout.topics();
            long previousTopic = -1;
            for (long i = 0; i < topicCount; i++) {
                long topic = Varints.read(in, layoutTopics - 1L);
                long taskCount = Varints.read(in, in.remaining());
                if (topic <= previousTopic || taskCount < 1) {
                    return null;
                }
                TopicLayout named = topics.get((int) topic);
                TaskList tasks = readTasks(taskCount, named.taskCount(), withLags);
                if (tasks == null) {
                    return null;
                }
                section.put(named.topic(), tasks);
                previousTopic = topic;
            }
            return section;
        }

        /**
         * Reads the named topics of a lag section and adds the lags of the layout's topics.
         *
         * @param inLayout the lags of the layout's topics, just read
         * @return the lags by topic, or null if malformed
         */
        public Map<String, TopicLags> readNamed(Map<String, TaskList> inLayout) {
            Map<String, TopicLags> lags = new TreeMap<>();
            inLayout.forEach((topic, tasks) -> lags.put(topic, tasks.topicLags(layout.topic(topic).orElseThrow().taskCount())));
            long count = Varints.read(in, in.remaining());
            String previous = null;
            for (long i = 0; count >= 0 && i < count; i++) {
                long length = Varints.read(in, TopicLayout.MAX_NAME_LENGTH);
                if (length < 1 || length > in.remaining()) {
                    return null;
                }
                byte[] bytes = new byte[(int) length];
                in.get(bytes);
                String name = new String(bytes, StandardCharsets.US_ASCII);
                long taskCount = Varints.read(in, TopicLayout.MAX_COUNT);
                long tasks = Varints.read(in, in.remaining());
                if (!TopicLayout.isLegalName(name) || (previous != null && name.compareTo(previous) <= 0)
                        || layout.topic(name).isPresent() || taskCount < 1 || tasks < 1) {
                    return null;
                }
                TaskList read = readTasks(tasks, (int) taskCount, true);
                if (read == null) {
                    return null;
                }
                lags.put(name, read.topicLags((int) taskCount));
                previous = name;
            }
            return count < 0 ? null : lags;
        }

        /** @return {@code count} ascending tasks below {@code taskLimit}, with lags if asked, or null if malformed */
        private TaskList readTasks(long count, int taskLimit, boolean withLags) {
            TaskList tasks = new TaskList((int) count, withLags);
            long previousTask = -1;
            for (int j = 0; j < count; j++) {
                long task = Varints.read(in, taskLimit - 1L);
                long lag = withLags ? Varints.read(in, Long.MAX_VALUE) : 0;
                if (task <= previousTask || lag < 0) {
                    return null;
                }
                tasks.tasks[j] = (int) task;
                if (withLags) {
                    tasks.lags[j] = lag;
                }
                previousTask = task;
            }
            return tasks;
        }
    }

    /** One topic's task indexes, ascending and without repeats, with their lags in a lag section. */
    private static final class TaskList {
        final int[] tasks;
        public final long[] lags;

        public TaskList(int count, boolean withLags) {
            tasks = new int[count];
            lags = withLags ? new long[count] : null;
        }

        public TaskList(int[] tasks) {
            this.tasks = tasks;
            this.lags = null;
        }

        public TopicLags topicLags(int taskCount) {
            Map<Integer, Long> byTask = new TreeMap<>();
            for (int i = 0; i < tasks.length; i++) {
                byTask.put(tasks[i], lags[i]);
            }
            return new TopicLags(taskCount, byTask);
        }
    }

    /**
     * The lags a member reports for the tasks of one topic: the topic's T as the member knows it,
     * and records behind per task index. Immutable.
     */
    public static final class TopicLags {
        public final int taskCount;
        public final SortedMap<Integer, Long> lags;

        /**
         * @param taskCount T
         * @param lags records behind per task; tasks outside 0..T-1 and negative lags are left out
         */
        public TopicLags(int taskCount, Map<Integer, Long> lags) {
            this.taskCount = taskCount;
            SortedMap<Integer, Long> valid = new TreeMap<>();
            lags.forEach((task, lag) -> {
                if (task != null && task >= 0 && task < taskCount && lag != null && lag >= 0) {
                    valid.put(task, lag);
                }
            });
            this.lags = Collections.unmodifiableSortedMap(valid);
        }

        /** The lags of topics in a layout, with their T from it; other topics are left out (tests). */
        public static Map<String, TopicLags> inLayout(GroupLayout layout, Map<String, ? extends Map<Integer, Long>> lags) {
            Map<String, TopicLags> byTopic = new TreeMap<>();
            lags.forEach((topic, byTask) -> layout.topic(topic).ifPresent(topicLayout ->
                    byTopic.put(topic, new TopicLags(topicLayout.taskCount(), byTask))));
            return byTopic;
        }

        private void write(ByteArrayOutputStream out) {
            Varints.write(out, lags.size());
            lags.forEach((task, lag) -> {
                Varints.write(out, task);
                Varints.write(out, lag);
            });
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof TopicLags && taskCount == ((TopicLags) o).taskCount && lags.equals(((TopicLags) o).lags);
        }

        @Override
        public int hashCode() {
            return 31 * taskCount + lags.hashCode();
        }

        @Override
        public String toString() {
            return "T=" + taskCount + " " + lags;
        }
    }

    @Override
    public String toString() {
        return "MemberReport(generation " + generation + ", owned " + ownedTasks + ", " + layout
                + (stateful ? ", stateful, lags " + lags : "") + ")";
    }
}
