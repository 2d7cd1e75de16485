package io.kscale.admin;

import io.kscale.admin.internals.ClassicLayoutReader;
import io.kscale.admin.internals.GroupDirectory;
import io.kscale.admin.internals.GroupSnapshot;
import io.kscale.admin.internals.SafeCounts;
import io.kscale.admin.internals.StoredTaskCount;
import io.kscale.admin.internals.TaskCountLogReader;
import io.kscale.admin.internals.TaskPlacement;
import io.kscale.assignor.ExpansionBarrierConfig;
import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.KeyPreservingAssignorConfig;
import io.kscale.assignor.KeyPreservingServerAssignorConfig;
import io.kscale.assignor.internals.store.StoreClients;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Partition expansion as one safe operation, for operators and their automation: shows which
 * task count T each consumer group keeps for a topic, refuses a partition count that would move
 * keys between tasks, grows the topic, and follows every key-preserving group until each new
 * partition is assigned with its task. The {@code kscale-admin} command is built on this class.
 * <pre>{@code
 * try (TopicExpansions expansions = TopicExpansions.connect(Map.of("bootstrap.servers", "kafka:9092"))) {
 *     TopicExpansions.TopicReport orders = expansions.describe("orders");   // groups, their T, safe counts
 *     TopicExpansions.Outcome outcome = expansions.expand("orders", 16,
 *             TopicExpansions.Options.defaults().withTimeout(Duration.ofMinutes(10)), System.out::println);
 *     if (!outcome.plan().allowed()) { ... outcome.plan().reasons() ... }   // refused: nothing changed
 *     else if (!outcome.settled()) { ... }                                  // grown, but a group did not settle
 * }
 * }</pre>
 *
 * <p><b>Why.</b> A keyed record goes to partition {@code hash % n}. A group on kscale's
 * key-preserving assignor ({@code kscale-key-preserving}, classic or broker-side) keeps a fixed
 * task count T per topic, and task {@code t} holds the partitions {@code p % T == t}: when the new
 * count is a multiple of T, every key stays in its task, and so on the consumer that holds its
 * state. Kafka cannot refuse a count (it has no policy hook on CreatePartitions), so this does.
 * Example: groups with T = 4 and T = 6 read a topic of 12 partitions; 24 and 36 keep every key,
 * 16 would move keys of the second group (16 % 6 == 4) and is refused, naming 24 as the nearest
 * safe count above.
 *
 * <p><b>Where T comes from.</b> A classic group's T is read from the layout store topics its
 * members write ({@code kscale.assignor.layout.store.topic}, by default
 * {@code kscale-assignor-layouts}, keyed by group id); a {@code group.protocol=consumer} group's
 * from the brokers' task count topic ({@code kscale.server.assignor.store.topic}, by default
 * {@code kscale-task-counts}, keyed by topic id, shared by all such groups). A T that cannot be
 * read (no stored layout, a topic the principal may not read, a value that does not decode) is
 * reported with the cause and refuses every count unless forced: the class does not guess.
 *
 * <p><b>Groups on other assignors</b> (Kafka's range, cooperative-sticky, uniform, ...) and Kafka
 * Streams applications move keys on any expansion: they are listed in every plan, never block it.
 *
 * <p>Threads: one call at a time. Every call asks the brokers afresh; nothing is cached.
 */
public final class TopicExpansions implements AutoCloseable {

    /** How long one request to the brokers, or one store topic's read, may take. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** How often {@link #expand} describes the groups while it follows them. */
    private static final Duration FOLLOW_INTERVAL = Duration.ofMillis(500);
    private static final String INTERNAL_PREFIX = "__";

    private final Admin admin;
    private final GroupDirectory groups;
    private final ClassicLayoutReader layouts;
    private final TaskCountLogReader taskCounts;
    private final Set<String> storeTopics;

    private TopicExpansions(Map<String, ?> clientSettings, List<String> layoutTopics, String taskCountTopic) {
        Map<String, Object> settings = new HashMap<>(clientSettings);
        this.admin = Admin.create(settings);
        this.groups = new GroupDirectory(admin, REQUEST_TIMEOUT);
        this.layouts = new ClassicLayoutReader(layoutTopics, settings, StoreClients.KAFKA, REQUEST_TIMEOUT);
        this.taskCounts = new TaskCountLogReader(taskCountTopic, settings, StoreClients.KAFKA, REQUEST_TIMEOUT);
        Set<String> stores = new TreeSet<>(layoutTopics);
        stores.add(taskCountTopic);
        this.storeTopics = Collections.unmodifiableSet(stores);
    }

    /**
     * Connects with the default store topics ({@code kscale-assignor-layouts},
     * {@code kscale-task-counts}).
     *
     * @param clientSettings Kafka client settings: {@code bootstrap.servers} and any security settings
     * @return the instance; close it when done
     */
    public static TopicExpansions connect(Map<String, ?> clientSettings) {
        return connect(clientSettings, List.of(KeyPreservingAssignorConfig.LAYOUT_STORE_TOPIC_DEFAULT),
                KeyPreservingServerAssignorConfig.STORE_TOPIC_DEFAULT);
    }

    /**
     * @param clientSettings Kafka client settings: {@code bootstrap.servers} and any security settings
     * @param layoutTopics the classic groups' layout store topics: the default and every group's own
     *     {@code kscale.assignor.layout.store.topic}
     * @param taskCountTopic the brokers' {@code kscale.server.assignor.store.topic}
     * @return the instance; close it when done
     * @throws IllegalArgumentException if no layout topic is given or a name is empty
     */
    public static TopicExpansions connect(Map<String, ?> clientSettings, List<String> layoutTopics,
                                          String taskCountTopic) {
        Objects.requireNonNull(clientSettings, "clientSettings");
        if (layoutTopics.isEmpty() || layoutTopics.stream().anyMatch(t -> t == null || t.isBlank())) {
            throw new IllegalArgumentException("layout topics must be one or more topic names, got " + layoutTopics);
        }
        if (taskCountTopic == null || taskCountTopic.isBlank()) {
            throw new IllegalArgumentException("the task count topic must be a topic name, got '" + taskCountTopic + "'");
        }
        return new TopicExpansions(clientSettings, layoutTopics, taskCountTopic);
    }

    /**
     * @return a report of every topic that a consumer or streams group reads (Kafka's internal
     *     topics and kscale's store topics left out), by topic name
     */
    public List<TopicReport> describe() {
        List<GroupSnapshot> all = groups.describeAll();
        Set<String> topics = new TreeSet<>();
        all.forEach(group -> topics.addAll(group.topics()));
        topics.removeIf(topic -> topic.startsWith(INTERNAL_PREFIX) || storeTopics.contains(topic));
        Map<String, TopicDescription> described = topics.isEmpty() ? Map.of()
                : GroupDirectory.Futures.get(admin.describeTopics(topics).allTopicNames(), REQUEST_TIMEOUT);
        List<TopicReport> reports = new ArrayList<>();
        for (String topic : topics) {
            TopicDescription description = described.get(topic);
            if (description != null) {
                reports.add(report(description, all));
            }
        }
        return reports;
    }

    /**
     * @param topic an existing topic
     * @return its partition count, the groups that read it with their T and tasks, and the safe counts
     * @throws org.apache.kafka.common.KafkaException if the topic does not exist or the brokers refuse
     */
    public TopicReport describe(String topic) {
        return report(describeTopic(topic), groups.describeAll());
    }

    /**
     * Checks a partition count without changing anything.
     *
     * @param topic an existing topic
     * @param partitions the count asked for
     * @return whether it is allowed, and if not why and the nearest safe counts
     */
    public Plan plan(String topic, int partitions) {
        return Plan.of(describe(topic), partitions);
    }

    /**
     * Grows the topic to {@code partitions} if {@link #plan} allows it (or {@code options} force
     * it), then follows every key-preserving group that has members until each has every partition
     * assigned and every task whole on one member, or until the options' timeout.
     *
     * @param topic an existing topic
     * @param partitions the new partition count
     * @param options dry run, force, timeout
     * @param progress told one line at a time what happens (the command prints them); may ignore them
     * @return the plan, whether the topic was grown, and how each group settled
     * @throws org.apache.kafka.common.KafkaException if the brokers refuse a request, a dry run's
     *     validation included (the partitions may have been created when it comes from following
     *     the groups)
     */
    public Outcome expand(String topic, int partitions, Options options, Consumer<String> progress) {
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(progress, "progress");
        Plan plan = plan(topic, partitions);
        if (plan.partitions() <= plan.currentPartitions()) {
            return new Outcome(plan, false, List.of()); // Kafka cannot shrink a topic: not even --force
        }
        if (!plan.allowed() && !options.force()) {
            return new Outcome(plan, false, List.of());
        }
        if (!plan.allowed()) {
            progress.accept("Forced: " + String.join("; ", plan.reasons()));
        }
        if (options.dryRun()) {
            // The brokers check the request too (the ALTER ACL, their partition limits) without acting on it.
            GroupDirectory.Futures.get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(partitions)),
                    new CreatePartitionsOptions().validateOnly(true)).all(), REQUEST_TIMEOUT);
            progress.accept("Dry run: the brokers would grow " + topic + " from " + plan.currentPartitions() + " to "
                    + partitions + " partitions; nothing changed.");
            return new Outcome(plan, false, List.of());
        }
        long started = System.nanoTime();
        GroupDirectory.Futures.get(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(partitions))).all(),
                REQUEST_TIMEOUT);
        progress.accept("Created partitions " + plan.currentPartitions() + ".." + (partitions - 1) + " of " + topic + ".");
        List<Settlement> settlements = follow(plan, options.timeout(), started, progress);
        return new Outcome(plan, true, settlements);
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }

    private TopicDescription describeTopic(String topic) {
        try {
            return GroupDirectory.Futures.get(admin.describeTopics(List.of(topic)).allTopicNames(), REQUEST_TIMEOUT)
                    .get(topic);
        } catch (UnknownTopicOrPartitionException e) {
            throw new UnknownTopicOrPartitionException("topic " + topic + " does not exist", e);
        }
    }

    private TopicReport report(TopicDescription topic, List<GroupSnapshot> all) {
        Uuid id = topic.topicId() == null || Uuid.ZERO_UUID.equals(topic.topicId()) ? null : topic.topicId();
        int partitions = topic.partitions().size();
        List<GroupReport> readers = new ArrayList<>();
        StoredTaskCount brokerSide = null;
        for (GroupSnapshot group : all) {
            if (!group.reads(topic.name())) {
                continue;
            }
            if (group.isStreams()) {
                readers.add(GroupReport.of(group, topic.name(), Kind.STREAMS, null, partitions));
                continue;
            }
            StoredTaskCount stored = null;
            if (mayPreserveKeys(group)) {
                if (GroupSnapshot.CONSUMER.equals(group.protocol())) {
                    brokerSide = brokerSide != null ? brokerSide : taskCounts.taskCount(id);
                    stored = brokerSide;
                } else {
                    stored = layouts.taskCount(group.groupId(), topic.name(), id);
                }
            }
            Kind kind = kindOf(group, stored);
            readers.add(GroupReport.of(group, topic.name(), kind, kind == Kind.KEY_PRESERVING ? stored : null, partitions));
        }
        return new TopicReport(topic.name(), id == null ? "" : id.toString(), partitions, readers);
    }

    /**
     * Whether the group may be on the key-preserving assignor: it names it, or it has no members,
     * whose assignor name says nothing (a classic group without members names none; a
     * {@code group.protocol=consumer} one names the brokers' default assignor).
     */
    static boolean mayPreserveKeys(GroupSnapshot group) {
        return KeyPreservingAssignor.NAME.equals(group.assignor()) || group.memberCount() == 0;
    }

    /**
     * A group without members counts as key-preserving when a T is stored for it (the layout
     * store has its layout; for {@code group.protocol=consumer}, the brokers' T of the topic, which
     * every such group on the assignor shares): refusing a count for a stopped group that turns
     * out not to need it costs a {@code --force}; growing past one that does costs its keys.
     */
    static Kind kindOf(GroupSnapshot group, StoredTaskCount stored) {
        if (KeyPreservingAssignor.NAME.equals(group.assignor())) {
            return Kind.KEY_PRESERVING;
        }
        if (group.memberCount() == 0) {
            return stored != null && stored.isKnown() ? Kind.KEY_PRESERVING : Kind.UNKNOWN;
        }
        return Kind.OTHER;
    }

    private List<Settlement> follow(Plan plan, Duration timeout, long started, Consumer<String> progress) {
        TopicReport before = plan.report();
        Map<String, GroupReport> followed = new LinkedHashMap<>();
        List<Settlement> done = new ArrayList<>();
        for (GroupReport group : before.groups()) {
            if (group.kind() != Kind.KEY_PRESERVING || group.taskCount().isEmpty()) {
                continue;
            }
            if (group.memberCount() == 0) {
                done.add(Settlement.withoutMembers(group, plan));
                progress.accept("Group " + group.groupId() + " has no members: its T is stored, so the new partitions "
                        + "join their tasks when it starts.");
            } else {
                followed.put(group.groupId(), group);
            }
        }
        Map<String, String> lastLine = new HashMap<>();
        Map<String, TaskPlacement> latest = new HashMap<>();
        long deadline = started + timeout.toNanos();
        while (!followed.isEmpty()) {
            Map<String, GroupSnapshot> now = groups.describeConsumerGroups(followed.keySet());
            for (GroupReport group : new ArrayList<>(followed.values())) {
                GroupSnapshot snapshot = now.get(group.groupId());
                SortedMap<String, SortedSet<Integer>> owners = snapshot == null ? new TreeMap<>()
                        : snapshot.owners(plan.topic());
                TaskPlacement placement = new TaskPlacement(group.taskCount().getAsInt(), plan.partitions(), owners);
                latest.put(group.groupId(), placement);
                String line = "Group " + group.groupId() + ": " + placement.placedWithTask(plan.currentPartitions())
                        + " of " + (plan.partitions() - plan.currentPartitions()) + " new partitions placed with their task"
                        + (placement.settled() ? "; settled." : " (" + String.join("; ", placement.problems()) + ")");
                if (!line.equals(lastLine.put(group.groupId(), line))) {
                    progress.accept(line);
                }
                if (placement.settled()) {
                    followed.remove(group.groupId());
                    done.add(Settlement.settled(group, plan, placement, Duration.ofNanos(System.nanoTime() - started)));
                }
            }
            if (followed.isEmpty() || System.nanoTime() - deadline >= 0) {
                break;
            }
            try {
                Thread.sleep(FOLLOW_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (GroupReport group : followed.values()) {
            done.add(Settlement.unsettled(group, plan, latest.get(group.groupId()), timeout));
        }
        return done;
    }

    /** What kind of reader a group is, for an expansion. */
    public enum Kind {
        /** kscale's key-preserving assignor, classic or broker-side: keeps keys at multiples of its T. */
        KEY_PRESERVING,
        /** Another assignor (range, cooperative-sticky, uniform, ...): keys move on any expansion. */
        OTHER,
        /** A Kafka Streams application: see {@link GroupReport#onExpansion()}. */
        STREAMS,
        /** A group without members whose assignor cannot be told: keys move unless it is key-preserving. */
        UNKNOWN
    }

    /** One topic: its partitions and every group that reads it. Immutable. */
    public static final class TopicReport {

        private final String topic;
        private final String topicId;
        private final int partitions;
        private final List<GroupReport> groups;
        private final int safeStep;

        TopicReport(String topic, String topicId, int partitions, List<GroupReport> groups) {
            this.topic = topic;
            this.topicId = topicId;
            this.partitions = partitions;
            this.groups = List.copyOf(groups);
            this.safeStep = SafeCounts.of(knownTaskCounts(groups)).step();
        }

        public String topic() {
            return topic;
        }

        /** @return the topic id as Kafka prints it; empty if the brokers give none */
        public String topicId() {
            return topicId;
        }

        public int partitions() {
            return partitions;
        }

        /** @return every group that reads the topic, by group id */
        public List<GroupReport> groups() {
            return groups;
        }

        /**
         * @return the least common multiple of the key-preserving groups' Ts: every multiple of it
         *     keeps every key of every such group (1 if there are none)
         */
        public int safeStep() {
            return safeStep;
        }

        /**
         * @param howMany how many counts to list
         * @return the next counts above today's that keep every key of every key-preserving group
         */
        public List<Integer> nextSafeCounts(int howMany) {
            List<Integer> counts = new ArrayList<>();
            long next = ((long) partitions / safeStep + 1) * safeStep;
            for (int i = 0; i < howMany && next <= SafeCounts.MAX_COUNT; i++, next += safeStep) {
                counts.add((int) next);
            }
            return counts;
        }

        private static List<Integer> knownTaskCounts(List<GroupReport> groups) {
            List<Integer> counts = new ArrayList<>();
            groups.forEach(group -> group.taskCount().ifPresent(counts::add));
            return counts;
        }
    }

    /** One group that reads a topic: its protocol, assignor, T and tasks. Immutable. */
    public static final class GroupReport {

        private final String groupId;
        private final String protocol;
        private final String assignor;
        private final String state;
        private final int memberCount;
        private final Kind kind;
        private final int taskCount;
        private final String taskCountSource;
        private final String problem;
        private final SortedMap<Integer, List<Integer>> tasks;
        private final SortedMap<String, SortedSet<Integer>> owners;
        private final String onExpansion;

        private GroupReport(GroupSnapshot group, Kind kind, StoredTaskCount stored, int partitions,
                            SortedMap<String, SortedSet<Integer>> owners, String onExpansion) {
            this.groupId = group.groupId();
            this.protocol = group.protocol();
            this.assignor = group.assignor();
            this.state = group.state();
            this.memberCount = group.memberCount();
            this.kind = kind;
            this.taskCount = stored != null && stored.isKnown() ? stored.taskCount() : 0;
            this.taskCountSource = stored != null && stored.isKnown() ? stored.source() : null;
            this.problem = stored != null && !stored.isKnown() ? stored.problem() : null;
            SortedMap<Integer, List<Integer>> byTask = new TreeMap<>();
            for (int p = 0; taskCount > 0 && p < partitions; p++) {
                byTask.computeIfAbsent(p % taskCount, t -> new ArrayList<>()).add(p);
            }
            byTask.replaceAll((t, list) -> List.copyOf(list));
            this.tasks = Collections.unmodifiableSortedMap(byTask);
            this.owners = Collections.unmodifiableSortedMap(new TreeMap<>(owners));
            this.onExpansion = onExpansion;
        }

        static GroupReport of(GroupSnapshot group, String topic, Kind kind, StoredTaskCount stored, int partitions) {
            return new GroupReport(group, kind, stored, partitions, group.owners(topic),
                    onExpansion(group, kind, stored));
        }

        private static String onExpansion(GroupSnapshot group, Kind kind, StoredTaskCount stored) {
            switch (kind) {
                case KEY_PRESERVING:
                    if (stored == null || !stored.isKnown()) {
                        return "T unknown (" + (stored == null ? "not read" : stored.problem()) + "): every count is "
                                + "refused unless forced";
                    }
                    return "keeps every key at a multiple of T=" + stored.taskCount() + "; any other count moves keys"
                            + (group.memberCount() == 0 ? " (no members: taken as " + KeyPreservingAssignor.NAME
                            + " since a T is stored for it)" : "");
                case STREAMS:
                    return "Kafka Streams does not support growing a source topic: the new partitions become new "
                            + "tasks with empty state, so keys that move lose their state; a stateful application "
                            + "fails its next rebalance (its changelog topics keep the old count: \"Existing internal "
                            + "topic ... has invalid partitions\"), and one that joins the topic with another fails "
                            + "unless both grow alike (\"Topics not co-partitioned\"). Plan a reset of the application";
                case UNKNOWN:
                    return "no members, so its assignor is unknown: keys move on any expansion unless it uses "
                            + KeyPreservingAssignor.NAME;
                default:
                    return "keys move on any expansion (" + group.assignor() + " assigns partitions, not tasks)";
            }
        }

        public String groupId() {
            return groupId;
        }

        /** @return {@code classic}, {@code consumer} or {@code streams} */
        public String protocol() {
            return protocol;
        }

        /** @return the assignor's name; empty when the brokers name none (a group without members) */
        public String assignor() {
            return assignor;
        }

        /** @return the group's state as Kafka names it, in lower case (stable, empty, ...) */
        public String state() {
            return state;
        }

        public int memberCount() {
            return memberCount;
        }

        public Kind kind() {
            return kind;
        }

        /** @return T, if the group is key-preserving and its T could be read */
        public OptionalInt taskCount() {
            return taskCount > 0 ? OptionalInt.of(taskCount) : OptionalInt.empty();
        }

        /** @return where T was read (the store topic), if it was */
        public Optional<String> taskCountSource() {
            return Optional.ofNullable(taskCountSource);
        }

        /** @return why a key-preserving group's T is not known, if it is not */
        public Optional<String> problem() {
            return Optional.ofNullable(problem);
        }

        /** @return task -> its partitions today; empty unless T is known */
        public SortedMap<Integer, List<Integer>> tasks() {
            return tasks;
        }

        /** @return member -> the partitions of the topic it owns now (empty for a group without members) */
        public SortedMap<String, SortedSet<Integer>> owners() {
            return owners;
        }

        /** @return what an expansion of the topic does to this group, in a sentence */
        public String onExpansion() {
            return onExpansion;
        }
    }

    /** What a partition count would do: allowed, or refused with the reasons and the nearest safe counts. Immutable. */
    public static final class Plan {

        private final TopicReport report;
        private final int partitions;
        private final List<String> reasons;
        private final List<String> breaking;
        private final List<String> keysMove;
        private final OptionalInt nearestBelow;
        private final OptionalInt nearestAbove;

        private Plan(TopicReport report, int partitions, List<String> reasons, List<String> breaking,
                     List<String> keysMove, OptionalInt nearestBelow, OptionalInt nearestAbove) {
            this.report = report;
            this.partitions = partitions;
            this.reasons = List.copyOf(reasons);
            this.breaking = List.copyOf(breaking);
            this.keysMove = List.copyOf(keysMove);
            this.nearestBelow = nearestBelow;
            this.nearestAbove = nearestAbove;
        }

        static Plan of(TopicReport report, int partitions) {
            List<String> reasons = new ArrayList<>();
            List<String> breaking = new ArrayList<>();
            List<String> keysMove = new ArrayList<>();
            int current = report.partitions();
            if (partitions <= current) {
                reasons.add(report.topic() + " has " + current + " partitions; Kafka can only add partitions, so the "
                        + "new count must be above " + current);
            }
            for (GroupReport group : report.groups()) {
                if (group.kind() != Kind.KEY_PRESERVING) {
                    keysMove.add(group.groupId());
                } else if (group.taskCount().isEmpty()) {
                    breaking.add(group.groupId());
                    reasons.add("the T of group " + group.groupId() + " is unknown: " + group.problem().orElse("?"));
                } else if (partitions % group.taskCount().getAsInt() != 0) {
                    breaking.add(group.groupId());
                    reasons.add(partitions + " is not a multiple of T=" + group.taskCount().getAsInt() + " of group "
                            + group.groupId() + ": keys would move between its tasks");
                }
            }
            SafeCounts safe = SafeCounts.of(TopicReport.knownTaskCounts(report.groups()));
            // Safe counts cannot be named while a key-preserving group's T is unknown.
            boolean refused = !reasons.isEmpty() && report.groups().stream()
                    .noneMatch(g -> g.kind() == Kind.KEY_PRESERVING && g.taskCount().isEmpty());
            return new Plan(report, partitions, reasons, breaking, keysMove,
                    refused ? safe.nearestBelow(current, partitions) : OptionalInt.empty(),
                    refused ? safe.nearestAbove(current, partitions) : OptionalInt.empty());
        }

        /** @return the topic as it was when planned */
        public TopicReport report() {
            return report;
        }

        public String topic() {
            return report.topic();
        }

        public int currentPartitions() {
            return report.partitions();
        }

        /** @return the count asked for */
        public int partitions() {
            return partitions;
        }

        /** @return whether the count keeps every key of every key-preserving group (and grows the topic) */
        public boolean allowed() {
            return reasons.isEmpty();
        }

        /** @return why it is refused, one sentence per reason; empty if allowed */
        public List<String> reasons() {
            return reasons;
        }

        /** @return the key-preserving groups whose keys this count would move (or whose T is unknown) */
        public List<String> breaking() {
            return breaking;
        }

        /** @return the groups on other assignors, Streams applications and unknown groups: keys move on any expansion */
        public List<String> keysMove() {
            return keysMove;
        }

        /**
         * @return when refused, the largest safe count above today's and below the one asked for;
         *     empty also while a key-preserving group's T is unknown
         */
        public OptionalInt nearestBelow() {
            return nearestBelow;
        }

        /** @return when refused, the smallest safe count above both today's and the one asked for */
        public OptionalInt nearestAbove() {
            return nearestAbove;
        }
    }

    /** How {@link #expand} goes about it. Immutable; the defaults: no dry run, no force, a 10 minute timeout. */
    public static final class Options {

        private static final Options DEFAULTS = new Options(false, false, Duration.ofMinutes(10));

        private final boolean dryRun;
        private final boolean force;
        private final Duration timeout;

        private Options(boolean dryRun, boolean force, Duration timeout) {
            this.dryRun = dryRun;
            this.force = force;
            this.timeout = timeout;
        }

        public static Options defaults() {
            return DEFAULTS;
        }

        /** @param dryRun plan and report, change nothing */
        public Options withDryRun(boolean dryRun) {
            return new Options(dryRun, force, timeout);
        }

        /** @param force grow the topic even when the count moves keys of key-preserving groups (a shrink is never done) */
        public Options withForce(boolean force) {
            return new Options(dryRun, force, timeout);
        }

        /**
         * @param timeout how long to follow the groups after growing the topic; the default, 10 minutes,
         *     covers a classic group's leader, which notices the new partitions only at its next metadata
         *     refresh ({@code metadata.max.age.ms}, 5 minutes by default)
         * @throws IllegalArgumentException if it is negative
         */
        public Options withTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative()) {
                throw new IllegalArgumentException("timeout must be zero or positive, got " + timeout);
            }
            return new Options(dryRun, force, timeout);
        }

        public boolean dryRun() {
            return dryRun;
        }

        public boolean force() {
            return force;
        }

        public Duration timeout() {
            return timeout;
        }
    }

    /** What {@link #expand} did. Immutable. */
    public static final class Outcome {

        private final Plan plan;
        private final boolean expanded;
        private final List<Settlement> groups;

        Outcome(Plan plan, boolean expanded, List<Settlement> groups) {
            this.plan = plan;
            this.expanded = expanded;
            this.groups = List.copyOf(groups);
        }

        public Plan plan() {
            return plan;
        }

        /** @return whether the partitions were created */
        public boolean expanded() {
            return expanded;
        }

        /** @return how each key-preserving group took the new partitions; empty unless expanded */
        public List<Settlement> groups() {
            return groups;
        }

        /** @return whether every followed group settled (true when nothing was followed) */
        public boolean settled() {
            return groups.stream().allMatch(Settlement::settled);
        }

        /** @return what keyed producers do while the groups take the new partitions, and what keeps key order meanwhile */
        public String producers() {
            return "Keyed producers send to the new partitions after their next metadata refresh (metadata.max.age.ms, "
                    + "5 minutes by default); until every producer has refreshed, a key's records arrive in both its "
                    + "old and its new partition, both held by the key's task. Consumers that poll through "
                    + "ExpansionBarrier get each key's records in order meanwhile, on either protocol (on "
                    + "group.protocol=consumer it reads T from " + ExpansionBarrierConfig.TASK_COUNT_TOPIC_CONFIG + "): "
                    + "it merges a task's partitions by record timestamp, so producers must set CreateTime "
                    + "timestamps; it waits " + ExpansionBarrierConfig.GRACE_MS_CONFIG + " for a caught-up sibling and "
                    + "holds a partition back at most " + ExpansionBarrierConfig.MAX_HOLD_MS_CONFIG + ". Without it, "
                    + "keys stay with their task but not in order across the two partitions.";
        }
    }

    /** How one key-preserving group took the new partitions. Immutable. */
    public static final class Settlement {

        private final String groupId;
        private final String protocol;
        private final int taskCount;
        private final boolean settled;
        private final int newPartitions;
        private final int placedWithTask;
        private final boolean keysKept;
        private final Duration timeToSettle;
        private final String problem;

        private Settlement(GroupReport group, Plan plan, boolean settled, int placedWithTask, Duration timeToSettle,
                           String problem) {
            this.groupId = group.groupId();
            this.protocol = group.protocol();
            this.taskCount = group.taskCount().orElse(0);
            this.settled = settled;
            this.newPartitions = plan.partitions() - plan.currentPartitions();
            this.placedWithTask = placedWithTask;
            this.keysKept = settled && taskCount > 0 && plan.partitions() % taskCount == 0;
            this.timeToSettle = timeToSettle;
            this.problem = problem;
        }

        static Settlement settled(GroupReport group, Plan plan, TaskPlacement placement, Duration elapsed) {
            return new Settlement(group, plan, true, placement.placedWithTask(plan.currentPartitions()), elapsed, null);
        }

        static Settlement withoutMembers(GroupReport group, Plan plan) {
            return new Settlement(group, plan, true, 0, Duration.ZERO, null);
        }

        static Settlement unsettled(GroupReport group, Plan plan, TaskPlacement placement, Duration timeout) {
            int placed = placement == null ? 0 : placement.placedWithTask(plan.currentPartitions());
            String what = placement == null ? "it was not described" : String.join("; ", placement.problems());
            boolean unassigned = placement == null || !placement.unassigned().isEmpty();
            String why;
            if (!unassigned) {
                why = "a rebalance is still moving partitions: a member has not revoked them yet (a member not "
                        + "polling, or a long poll loop)";
            } else if (GroupSnapshot.CLASSIC.equals(group.protocol())) {
                why = "its leader has not rebalanced: it notices new partitions at its next metadata refresh "
                        + "(metadata.max.age.ms, 5 minutes by default), or a member is not polling, or the leader "
                        + "holds the new partitions because its layout store cannot be read (see the members' WARN)";
            } else {
                why = "the brokers have not assigned them: a member is not polling, or the brokers hold the topic "
                        + "because their task count topic cannot be read (see the brokers' ERROR)";
            }
            return new Settlement(group, plan, false, placed, null,
                    "not settled within " + timeout.toMillis() + " ms: " + what + "; " + why);
        }

        public String groupId() {
            return groupId;
        }

        public String protocol() {
            return protocol;
        }

        public int taskCount() {
            return taskCount;
        }

        /** @return whether every partition was assigned and every task whole on one member before the timeout */
        public boolean settled() {
            return settled;
        }

        /** @return how many partitions were added */
        public int newPartitions() {
            return newPartitions;
        }

        /** @return how many of them were assigned to the member holding their task when last described */
        public int placedWithTask() {
            return placedWithTask;
        }

        /** @return whether no key changed task: settled, and the new count is a multiple of T */
        public boolean keysKept() {
            return keysKept;
        }

        /** @return from the creation of the partitions until the group settled; empty if it did not */
        public Optional<Duration> timeToSettle() {
            return Optional.ofNullable(timeToSettle);
        }

        /** @return why it did not settle, if it did not */
        public Optional<String> problem() {
            return Optional.ofNullable(problem);
        }
    }
}
