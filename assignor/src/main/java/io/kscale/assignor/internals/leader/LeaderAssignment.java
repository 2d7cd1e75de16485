package io.kscale.assignor.internals.leader;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.TaskStateListener;
import io.kscale.assignor.internals.layout.CoPartitioning;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutCodec;
import io.kscale.assignor.internals.layout.Unit;
import io.kscale.assignor.internals.layout.Units;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.placement.ClientDescription;
import io.kscale.assignor.internals.placement.CrossGroupBalancer;
import io.kscale.assignor.internals.placement.Placement;
import io.kscale.assignor.internals.placement.PlacementEngine;
import io.kscale.assignor.internals.placement.PlacementRequest;
import io.kscale.assignor.internals.placement.TaskDescription;
import io.kscale.assignor.internals.store.LayoutPersistence;
import io.kscale.assignor.internals.store.LayoutStore;
import io.kscale.assignor.internals.wire.AssignmentInfo;
import io.kscale.assignor.internals.wire.DecodedLayouts;
import io.kscale.assignor.internals.wire.MemberReport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rebalance as computed by the group leader: the adapter between Kafka's types and the pure
 * layout and placement code. Used once, for one {@code assign()} call.
 *
 * <p>The steps:
 * <ol>
 *   <li><b>Read the members</b>: each member's {@link MemberReport} (layout, generation, tasks
 *       it owned); userData that is not one is counted and ignored.</li>
 *   <li><b>Agree on the layout</b> ({@link LayoutAgreement}): merge what the members report; if
 *       a subscribed topic is in none of them (every member restarted), add what the durable
 *       {@link LayoutStore} holds; then apply the partition counts and topic ids of the metadata,
 *       and forget topics gone for the grace period. Changes are logged (ERROR when keys move
 *       task, WARN for a re-created topic) and counted; the layout is stored unless the store is
 *       known to hold it, off this thread ({@link LayoutPersistence}).</li>
 *   <li><b>Place the tasks</b>: topics subscribed by the same members (a class) are placed
 *       together, as units (task t of every topic with the same T), one {@link PlacementEngine}
 *       call per class on top of the load the other classes give its members (most constrained
 *       class first); {@link CrossGroupBalancer} then evens loads that only a chain of classes can
 *       carry. A topic whose T splits it from a topic of its class that it could share T with is
 *       warned about once ({@link CoPartitioningCheck}). Each unit is a task of the
 *       engine, weighted by its partitions, with its prior owner from
 *       {@code ownedPartitions} (COOPERATIVE) or from the reports (EAGER). Units hold only the
 *       partitions the metadata lists, whatever count the layout remembers. The units are
 *       stateful when a member subscribed to them has a {@link TaskStateListener}
 *       ({@link StatefulUnits}, with the members' lags): the engine then moves a unit only to a
 *       caught-up member, and has the member it should move to warm up a copy first (KIP-441).</li>
 *   <li><b>Hand out partitions</b>: a member gets every partition of its units, except, under
 *       COOPERATIVE, when another member still owns a partition of the unit: that member must
 *       revoke first (Kafka's leader rejects an assignment that moves a partition in one step), so
 *       the unit waits for the follow-up rebalance the revoking member triggers. Meanwhile the
 *       member the unit is placed on keeps the partitions of it it owns already, and gets none of
 *       the others, free ones (a new child partition) included. The rule that follows (issue 25):
 *       in one assignment a unit is never on two members, and no member starts reading a
 *       partition of a unit while another member still reads one of its partitions, so the new
 *       owner never reads a child partition while the old owner still reads its parent. Keeping
 *       the owned part adds no reader (the member read it in the last generation too) and keeps
 *       its state where it is; withholding it as well would only stop it for a rebalance. The
 *       dance converges in two rounds: the revoking members rejoin, the unit then has one owner
 *       or none, and goes whole. (A unit's partitions owned by two members at once come only
 *       from outside this rule: a T changed by a declaration or a re-created topic, topics
 *       newly co-partitioned, or an older leader's fallback.)</li>
 * </ol>
 * Between placing and handing out, {@link RackAlignment} swaps stateless units of equal weight
 * between members when consumers set {@code client.rack}, to read more partitions from a local
 * replica. Last, {@link WarmupPlan} writes each stateful member's warmups and follow-up deadline
 * into its assignment.
 *
 * <p>Worked example: members A and B, topic {@code orders} with T = 4 (units 4:0..4:3, A owns
 * 4:0 and 4:1, B owns 4:2 and 4:3), grown from 4 to 8 partitions. The layout is EXPANDED (T stays
 * 4), partition 5 joins unit 4:1 with partition 1, so A gets 0, 4, 1, 5 and B gets 2, 6, 3, 7:
 * every key stays with its member. Then C joins: the engine moves one unit, say 4:3 from B to C;
 * B owns 3 and 7, so this rebalance gives C nothing, B keeps 2 and 6; B revokes 3 and 7 and
 * rejoins, and the next rebalance gives them to C.
 */
public final class LeaderAssignment {

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingAssignor.class);

    private final LeaderSettings settings;
    private final LayoutPersistence persistence;
    private final AssignorMetrics metrics;
    private final PlacementEngine engine = new PlacementEngine();
    private final CoPartitioningCheck coPartitioningCheck;

    /** Member id to its subscription, in id order; {@link #reports} holds the userData of those that sent a report. */
    private final SortedMap<String, Subscription> subscriptions;
    private final Map<String, MemberReport> reports = new HashMap<>();
    private final Map<String, ArrayList<TopicPartition>> assigned = new TreeMap<>();
    private final WarmupPlan warmups;
    private final long now;
    /** The leader's own layout, from its last assignment: what it trusts of the members' reports. */
    private final GroupLayout own;
    /** The reported layouts the leader did not trust in this rebalance, by identity. */
    private Set<GroupLayout> rejectedLayouts = Set.of();
    /** Topics re-created since the layout last saw them: whoever owned their old partitions is no prior owner. */
    private Set<String> recreated = Set.of();
    private int movedTasks;
    private int withheldPartitions;
    private int rackSwaps;
    private Map<Set<String>, SortedSet<String>> membersBySubscription;
    private Map<String, Map<Integer, String>> reportedOwners;
    /** The layout agreed for this rebalance, once {@link #compute} got that far; for {@link FallbackAssignment}. */
    private GroupLayout agreed;

    /**
     * @param now the leader's clock, epoch ms, from which follow-up deadlines and missing topics' grace periods are set
     */
    public LeaderAssignment(LeaderSettings settings, LayoutPersistence persistence, AssignorMetrics metrics,
                     GroupSubscription groupSubscription, long now) {
        this(settings, persistence, metrics, groupSubscription, now, new CoPartitioningCheck(), GroupLayout.empty());
    }

    /**
     * @param now the leader's clock, epoch ms, from which follow-up deadlines and missing topics' grace periods are set
     * @param coPartitioningCheck the assignor's, kept across rebalances so that it warns once
     * @param own the leader's own layout, from its last assignment (empty if it knows none): the
     *     members' reports are checked against it ({@link LayoutAgreement})
     */
    public LeaderAssignment(LeaderSettings settings, LayoutPersistence persistence, AssignorMetrics metrics,
                     GroupSubscription groupSubscription, long now, CoPartitioningCheck coPartitioningCheck,
                     GroupLayout own) {
        this.coPartitioningCheck = coPartitioningCheck;
        this.own = own;
        this.settings = settings;
        this.persistence = persistence;
        this.metrics = metrics;
        this.subscriptions = new TreeMap<>(groupSubscription.groupSubscription());
        this.warmups = new WarmupPlan(now);
        this.now = now;
    }

    /**
     * Computes the group's assignment.
     *
     * @param metadata the leader's view of the cluster
     * @return the assignment of every member, each with the layout in its userData
     */
    public GroupAssignment compute(Cluster metadata) {
        readReports();
        GroupLayout layout = agreeOnLayout(metadata);
        agreed = layout;
        PartitionOwners owners = currentOwners(metadata);
        boolean cooperative = !owners.isEmpty();
        subscriptions.keySet().forEach(member -> assigned.put(member, new ArrayList<>()));
        List<Map.Entry<SortedSet<String>, SortedSet<String>>> topicClasses = topicClasses(layout, metadata);
        checkCoPartitioning(topicClasses, layout);
        placeAll(layout, topicClasses, owners, cooperative, metadata);
        metrics.assignmentComputed();
        metrics.moved(movedTasks);
        metrics.withheld(withheldPartitions);
        metrics.layoutEpoch(layout.epoch());
        OptionalLong deadline = warmups.earliestDeadline();
        metrics.warmups(warmups.placementWarmups(), warmups.pendingMoves(),
                deadline.isPresent() ? Math.max(0, deadline.getAsLong() - now) : 0);
        log.info("Assigned {} members, layout epoch {}: {} tasks moved, {} partitions withheld until their owner "
                + "revokes them, {} task swaps for rack locality", subscriptions.size(), layout.epoch(), movedTasks,
                withheldPartitions, rackSwaps);
        if (warmups.pendingMoves() > 0) {
            log.info("{} stateful tasks stay with their caught-up owner until the member they move to catches up; {} "
                    + "warmups in flight; follow-up deadline {} (epoch ms)", warmups.pendingMoves(),
                    warmups.placementWarmups(), warmups.earliestDeadline());
        }
        ByteBuffer layoutBytes = LayoutCodec.encode(layout);
        ByteBuffer plain = AssignmentInfo.encode(layoutBytes, layout, OptionalLong.empty(), List.of(), List.of(),
                AssignmentInfo.VERSION);
        Map<String, Assignment> assignments = new HashMap<>();
        assigned.forEach((member, partitions) -> assignments.put(member,
                new Assignment(partitions, warmups.userData(member, layoutBytes, layout, plain))));
        return new GroupAssignment(assignments);
    }

    /** @return the layout agreed for this rebalance; empty if {@link #compute} failed before it agreed one */
    public Optional<GroupLayout> agreedLayout() {
        return Optional.ofNullable(agreed);
    }

    private void readReports() {
        List<String> malformed = new ArrayList<>();
        DecodedLayouts layouts = new DecodedLayouts();
        subscriptions.forEach((member, subscription) -> {
            ByteBuffer userData = subscription.userData();
            Optional<MemberReport> report = MemberReport.decode(userData, layouts);
            if (report.isPresent()) {
                reports.put(member, report.get());
            } else if (userData != null && userData.hasRemaining()) {
                malformed.add(member);
            }
        });
        if (!malformed.isEmpty()) {
            metrics.malformedUserData(malformed.size());
            log.warn("Ignored the userData of {} members that is not a kscale member report (another assignor or a "
                    + "corrupt message); they count as members without a layout or prior tasks: {}",
                    malformed.size(), malformed);
        }
    }

    private GroupLayout agreeOnLayout(Cluster metadata) {
        // Members share one decoded instance per distinct layout (see MemberReport.decode): check and merge each once.
        Map<GroupLayout, List<String>> distinct = new IdentityHashMap<>();
        reports.forEach((member, report) -> distinct.computeIfAbsent(report.layout(), l -> new ArrayList<>()).add(member));
        Set<String> subscribed = new HashSet<>();
        membersBySubscription().keySet().forEach(subscribed::addAll);
        LayoutAgreement agreement = new LayoutAgreement(settings, persistence, metrics);
        GroupLayout layout = agreement.agree(distinct, own, subscribed, metadata, now);
        rejectedLayouts = agreement.rejected();
        recreated = agreement.recreated();
        agreement.storeRetryDelayMs().ifPresent(delay -> warmups.storeRetry(java.time.Duration.ofMillis(delay)));
        return layout;
    }

    /** Warns once about topics that could share a smaller T with topics of the same members (issue 17). */
    private void checkCoPartitioning(List<Map.Entry<SortedSet<String>, SortedSet<String>>> topicClasses,
                                     GroupLayout layout) {
        if (settings.coPartitioning() != CoPartitioning.BY_TASK_COUNT) {
            metrics.coPartitioning(0, 0);
            return;
        }
        List<SortedSet<String>> topics = new ArrayList<>(topicClasses.size());
        topicClasses.forEach(topicClass -> topics.add(topicClass.getValue()));
        CoPartitioningCheck.Result result = coPartitioningCheck.check(topics, layout);
        metrics.coPartitioning(result.mismatches, result.warnings);
    }

    /** Members by the set of topics they subscribe to; a group usually has one such set. */
    private Map<Set<String>, SortedSet<String>> membersBySubscription() {
        if (membersBySubscription == null) {
            // By topic list first: members usually send equal lists, and looking a list up is
            // cheaper than building and hashing a set per member (that was a third of assign()
            // for 1,000 members of 100 topics each). Lists in another order meet again as sets.
            Map<List<String>, SortedSet<String>> membersByList = new HashMap<>();
            subscriptions.forEach((member, subscription) ->
                    membersByList.computeIfAbsent(subscription.topics(), topics -> new TreeSet<>()).add(member));
            membersBySubscription = new HashMap<>();
            membersByList.forEach((topics, members) -> membersBySubscription
                    .computeIfAbsent(new HashSet<>(topics), set -> new TreeSet<>()).addAll(members));
        }
        return membersBySubscription;
    }

    /**
     * Topics with a layout and in the metadata, grouped by the exact set of members subscribed to
     * them: each group is placed on its own members. (Usually every member subscribes to the same
     * topics, and there is one group.)
     */
    private List<Map.Entry<SortedSet<String>, SortedSet<String>>> topicClasses(GroupLayout layout, Cluster metadata) {
        // Key topics by which distinct subscriptions contain them (a few small integers), not by
        // their member sets: a group of 2,000 members would otherwise hash and compare member sets
        // once per topic.
        List<Map.Entry<Set<String>, SortedSet<String>>> distinct = new ArrayList<>(membersBySubscription().entrySet());
        Map<BitSet, SortedSet<String>> topicsBySubscriptions = new HashMap<>();
        Map<String, BitSet> subscriptionsOfTopic = new HashMap<>();
        for (int i = 0; i < distinct.size(); i++) {
            for (String topic : distinct.get(i).getKey()) {
                if (layout.topic(topic).isPresent() && metadata.partitionCountForTopic(topic) != null) {
                    subscriptionsOfTopic.computeIfAbsent(topic, t -> new BitSet()).set(i);
                }
            }
        }
        subscriptionsOfTopic.forEach((topic, indexes) ->
                topicsBySubscriptions.computeIfAbsent(indexes, k -> new TreeSet<>()).add(topic));
        List<Map.Entry<SortedSet<String>, SortedSet<String>>> classes = new ArrayList<>();
        topicsBySubscriptions.forEach((indexes, topics) -> {
            SortedSet<String> members = new TreeSet<>();
            indexes.stream().forEach(i -> members.addAll(distinct.get(i).getValue()));
            classes.add(Map.entry(members, topics));
        });
        // Deterministic order: classes have disjoint topics, so the first topic names each.
        classes.sort(Comparator.comparing(topicClass -> topicClass.getValue().first()));
        return classes;
    }

    /**
     * Under EAGER: the member that reported owning each task, by topic and task index. When two
     * reports claim one task, the later generation wins (ties: the first member by id), as for
     * {@code ownedPartitions} in {@link PartitionOwners}: the other claimant missed rebalances (a
     * zombie whose session expired) and reports a task that has moved on since.
     */
    private Map<String, Map<Integer, String>> reportedOwners() {
        if (reportedOwners == null) {
            reportedOwners = new HashMap<>();
            Map<String, Map<Integer, Integer>> claimGenerations = new HashMap<>();
            subscriptions.forEach((member, subscription) -> {
                MemberReport report = reports.get(member);
                if (report == null || rejectedLayouts.contains(report.layout())) {
                    return; // the tasks of a layout the leader rejected say nothing about the group's tasks
                }
                int generation = generation(member, subscription);
                report.ownedTasks().forEach((topic, tasks) -> {
                    Map<Integer, String> owners = reportedOwners.computeIfAbsent(topic, t -> new HashMap<>());
                    Map<Integer, Integer> generations = claimGenerations.computeIfAbsent(topic, t -> new HashMap<>());
                    for (int task : tasks) {
                        Integer claimed = generations.get(task);
                        if (claimed == null || generation > claimed) {
                            owners.put(task, member);
                            generations.put(task, generation);
                        }
                    }
                });
            });
        }
        return reportedOwners;
    }

    /** Who owns each partition now, from {@code ownedPartitions} (COOPERATIVE). */
    private PartitionOwners currentOwners(Cluster metadata) {
        PartitionOwners owners = new PartitionOwners(metadata);
        subscriptions.forEach((member, subscription) -> {
            int generation = generation(member, subscription);
            for (TopicPartition partition : subscription.ownedPartitions()) {
                owners.claim(partition, member, generation);
            }
        });
        return owners;
    }

    private int generation(String member, Subscription subscription) {
        if (subscription.generationId().isPresent()) {
            return subscription.generationId().get();
        }
        MemberReport report = reports.get(member);
        return report == null ? -1 : report.generation();
    }

    /**
     * Places every class of topics, each on its members and on top of the load the other classes
     * give them, then evens the members' loads across classes, then hands out.
     *
     * <p>Each class is one engine call whose clients carry as base load what the other classes
     * give them: the classes placed already, their new units; the others, the units they owned
     * before. Classes go most constrained first (fewest members, then most partitions), so a
     * topic only some members read is placed before the topics everyone reads fill in around it.
     * A group that was balanced stays as it is (each call then finds its prior owners balanced).
     * {@link CrossGroupBalancer} then shifts stateless units along chains of classes that no single
     * call can even out. Issue 17: placed on their own, every member starting from zero, A, B, C
     * with x (4 partitions, read by all) and y (1, read by A and B) ended 3/1/1, not 2/2/1.
     */
    private void placeAll(GroupLayout layout, List<Map.Entry<SortedSet<String>, SortedSet<String>>> topicClasses,
                          PartitionOwners owners, boolean cooperative, Cluster metadata) {
        List<ClassPlan> plans = new ArrayList<>(topicClasses.size());
        Map<String, Long> load = new HashMap<>();
        for (Map.Entry<SortedSet<String>, SortedSet<String>> topicClass : topicClasses) {
            ClassPlan plan = prepare(layout, topicClass.getKey(), topicClass.getValue(), owners, cooperative, metadata);
            plan.priorLoad.forEach((member, weight) -> load.merge(member, weight, Long::sum));
            plans.add(plan);
        }
        List<ClassPlan> order = new ArrayList<>(plans);
        order.sort(Comparator.<ClassPlan>comparingInt(plan -> plan.members.size())
                .thenComparing(Comparator.<ClassPlan>comparingLong(plan -> plan.units.totalWeight()).reversed()));
        for (ClassPlan plan : order) {
            for (String member : plan.members) {
                load.merge(member, -plan.priorLoad.getOrDefault(member, 0L), Long::sum);
            }
            placeOnTop(plan, load);
            plan.placedLoad().forEach((member, weight) -> load.merge(member, weight, Long::sum));
        }
        if (plans.size() > 1) {
            balanceAcrossClasses(plans, load);
        }
        for (ClassPlan plan : plans) {
            handOut(plan, owners, metadata);
        }
    }

    /** The units of one class of topics, their prior owners and state. */
    private ClassPlan prepare(GroupLayout layout, SortedSet<String> members, SortedSet<String> topics,
                              PartitionOwners owners, boolean cooperative, Cluster metadata) {
        Map<String, Integer> existing = LayoutAgreement.partitionCounts(topics, metadata);
        ClassPlan plan = new ClassPlan(members, Units.of(layout, topics, settings.coPartitioning(), existing));
        Set<String> memberSet = new HashSet<>(members);
        for (Unit unit : plan.units.units()) {
            priorOwner(unit, memberSet, owners, cooperative).ifPresent(owner -> {
                plan.priorOwner.put(unit.id(), owner);
                plan.priorUnits.computeIfAbsent(owner, o -> new ArrayList<>()).add(unit.id());
                plan.priorLoad.merge(owner, unit.weight(), Long::sum);
            });
        }
        Set<String> withState = new HashSet<>(topics);
        withState.removeAll(recreated); // lags of a deleted topic's tasks say nothing about the new one's
        plan.states = StatefulUnits.of(plan.units, withState, members, reports, plan.priorOwner, layout);
        return plan;
    }

    /** Places a class's units with the engine, each member carrying {@code load} from the other classes. */
    private void placeOnTop(ClassPlan plan, Map<String, Long> load) {
        List<TaskDescription> tasks = new ArrayList<>();
        for (Unit unit : plan.units.units()) {
            boolean stateful = plan.states.isStateful(unit.id());
            tasks.add((stateful ? TaskDescription.stateful(unit.id()) : TaskDescription.stateless(unit.id()))
                    .withWeight(unit.weight()));
            if (!stateful) {
                plan.stateless.add(unit);
            }
        }
        List<ClientDescription> clients = new ArrayList<>();
        for (String member : plan.members) {
            ClientDescription.Builder client = ClientDescription.builder(member).capacity(1)
                    .priorActive(plan.priorUnits.getOrDefault(member, List.of())).lags(plan.states.lags(member))
                    .baseLoad(Math.max(0, load.getOrDefault(member, 0L)));
            subscriptions.get(member).rackId().ifPresent(client::rack);
            clients.add(client.build());
        }
        plan.placement = engine.place(new PlacementRequest(tasks, clients, settings.placement()));
        plan.placement.clients().forEach((member, clientPlacement) ->
                clientPlacement.active().forEach(unitId -> plan.placed.put(unitId, member)));
    }

    /** Shifts stateless units along chains of classes (see {@link CrossGroupBalancer}). */
    private static void balanceAcrossClasses(List<ClassPlan> plans, Map<String, Long> load) {
        CrossGroupBalancer balancer = new CrossGroupBalancer();
        load.forEach(balancer::load);
        List<int[]> handles = new ArrayList<>(plans.size());
        for (ClassPlan plan : plans) {
            int group = balancer.group(new ArrayList<>(plan.members));
            int[] units = new int[plan.stateless.size()];
            for (int i = 0; i < units.length; i++) {
                Unit unit = plan.stateless.get(i);
                String owner = plan.placed.get(unit.id());
                units[i] = owner == null ? -1
                        : balancer.unit(group, unit.weight(), owner, plan.priorOwner.get(unit.id()));
            }
            handles.add(units);
        }
        if (balancer.balance() == 0) {
            return;
        }
        for (int p = 0; p < plans.size(); p++) {
            ClassPlan plan = plans.get(p);
            int[] units = handles.get(p);
            for (int i = 0; i < units.length; i++) {
                if (units[i] >= 0) {
                    plan.placed.put(plan.stateless.get(i).id(), balancer.owner(units[i]));
                }
            }
        }
    }

    /** Aligns racks, hands the class's partitions out and plans its warmups. */
    private void handOut(ClassPlan plan, PartitionOwners owners, Cluster metadata) {
        Map<String, String> racks = new HashMap<>();
        plan.members.forEach(member -> subscriptions.get(member).rackId().ifPresent(rack -> racks.put(member, rack)));
        // Only stateless units swap for rack locality: a stateful unit stays where its state is.
        rackSwaps += RackAlignment.align(plan.placed, plan.stateless, racks, metadata);
        for (Unit unit : plan.units.units()) {
            String member = plan.placed.get(unit.id());
            if (member != null) {
                boolean withheld = handOut(member, unit, plan.priorOwner.get(unit.id()), owners);
                warmups.placed(member, unit, plan.states, withheld);
                if (withheld) {
                    releasingOwners(member, unit, owners).forEach(owner -> warmups.releasing(owner, unit, plan.states));
                }
            }
        }
        if (plan.states.any()) {
            Map<String, Unit> byId = new HashMap<>();
            plan.units.units().forEach(unit -> byId.put(unit.id(), unit));
            warmups.placement(plan.placement, byId, plan.states);
        }
    }

    /** One class of topics (those read by the same members) through the steps of {@link #placeAll}. */
    private static final class ClassPlan {
        final SortedSet<String> members;
        final Units units;
        final Map<String, String> priorOwner = new HashMap<>();
        final Map<String, List<String>> priorUnits = new HashMap<>();
        /** By member: the weight of the units it owned before. */
        final Map<String, Long> priorLoad = new HashMap<>();
        final List<Unit> stateless = new ArrayList<>();
        /** Unit id to the member it goes to. */
        final Map<String, String> placed;
        StatefulUnits states;
        Placement placement;

        ClassPlan(SortedSet<String> members, Units units) {
            this.members = members;
            this.units = units;
            this.placed = new HashMap<>(units.units().size() * 4 / 3 + 1);
        }

        /** @return by member, the weight of the units placed on it */
        Map<String, Long> placedLoad() {
            Map<String, Long> weights = new HashMap<>();
            for (Unit unit : units.units()) {
                String member = placed.get(unit.id());
                if (member != null) {
                    weights.merge(member, unit.weight(), Long::sum);
                }
            }
            return weights;
        }
    }

    /**
     * The member that owned most partitions of the unit (ties: the smaller member id); under
     * EAGER, a member whose report lists the unit's task. Partitions of a re-created topic count
     * for nobody: they belonged to the deleted topic. (Kafka's COOPERATIVE rule still holds for
     * them: {@link #handOut} withholds a partition that another member owns by name.)
     */
    private Optional<String> priorOwner(Unit unit, Set<String> members, PartitionOwners owners, boolean cooperative) {
        if (!cooperative) {
            if (reportedOwners().isEmpty()) {
                return Optional.empty(); // a new group: no member reported a task
            }
            for (String topic : unit.topics()) {
                if (recreated.contains(topic)) {
                    continue;
                }
                String claimant = reportedOwners().getOrDefault(topic, Map.of()).get(unit.task());
                if (claimant != null && members.contains(claimant)) {
                    return Optional.of(claimant);
                }
            }
            return Optional.empty();
        }
        String[] single = {null};
        boolean[] mixed = {false};
        unit.forEachPartition((topic, partition) -> {
            String owner = recreated.contains(topic) ? null : owners.owner(topic, partition);
            if (single[0] == null) {
                single[0] = owner;
            }
            mixed[0] |= owner == null || !owner.equals(single[0]);
        });
        if (!mixed[0]) {
            // The usual case: one member owns the whole unit.
            return Optional.ofNullable(single[0]).filter(members::contains);
        }
        SortedMap<String, Integer> owned = new TreeMap<>();
        unit.forEachPartition((topic, partition) -> {
            String owner = recreated.contains(topic) ? null : owners.owner(topic, partition);
            if (owner != null && members.contains(owner)) {
                owned.merge(owner, 1, Integer::sum);
            }
        });
        return owned.entrySet().stream().max(Map.Entry.<String, Integer>comparingByValue()
                .thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder()))).map(Map.Entry::getKey);
    }

    /** The members other than {@code member} that still own partitions of the unit. */
    private static Set<String> releasingOwners(String member, Unit unit, PartitionOwners owners) {
        Set<String> releasing = new TreeSet<>();
        unit.forEachPartition((topic, partition) -> {
            String owner = owners.owner(topic, partition);
            if (owner != null && !owner.equals(member)) {
                releasing.add(owner);
            }
        });
        return releasing;
    }

    /**
     * Gives the unit's partitions to the member, unless another member still owns one of them:
     * then only those the member owns already, and the rest, free partitions included, waits for
     * the next rebalance (see the class comment: a unit is never on two members, and no member
     * starts reading part of a unit another member still reads).
     *
     * @return whether some partitions were withheld
     */
    private boolean handOut(String member, Unit unit, String priorOwner, PartitionOwners owners) {
        if (priorOwner != null && !priorOwner.equals(member)) {
            movedTasks++;
        }
        boolean[] ownedElsewhere = {false};
        if (!owners.isEmpty()) {
            unit.forEachPartition((topic, partition) -> {
                String owner = owners.owner(topic, partition);
                ownedElsewhere[0] |= owner != null && !owner.equals(member);
            });
        }
        ArrayList<TopicPartition> target = assigned.get(member);
        target.ensureCapacity(target.size() + (int) unit.weight());
        unit.forEachPartition((topic, partition) -> {
            if (!ownedElsewhere[0] || member.equals(owners.owner(topic, partition))) {
                target.add(new TopicPartition(topic, partition));
            } else {
                withheldPartitions++;
            }
        });
        return ownedElsewhere[0];
    }
}
