package io.kscale.assignor;

import io.kscale.assignor.layout.GroupLayout;
import io.kscale.assignor.layout.LayoutChange;
import io.kscale.assignor.layout.LayoutMerge;
import io.kscale.assignor.layout.LayoutUpdate;
import io.kscale.assignor.layout.MergeConflict;
import io.kscale.assignor.layout.Unit;
import io.kscale.assignor.layout.Units;
import io.kscale.assignor.placement.ClientDescription;
import io.kscale.assignor.placement.Placement;
import io.kscale.assignor.placement.PlacementEngine;
import io.kscale.assignor.placement.PlacementRequest;
import io.kscale.assignor.placement.PlacementSettings;
import io.kscale.assignor.placement.TaskDescription;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 *   <li><b>Agree on the layout</b>: merge what the members report; if a subscribed topic is in
 *       none of them (every member restarted), add what the durable {@link LayoutStore} holds;
 *       then apply the partition counts of the metadata. Changes are logged (ERROR when keys
 *       move task) and counted; a changed layout is stored.</li>
 *   <li><b>Place the tasks</b>: topics subscribed by the same members are placed together, as
 *       units (task t of every topic with the same T); each unit is a task of the
 *       {@link PlacementEngine}, weighted by its partitions, with its prior owner from
 *       {@code ownedPartitions} (COOPERATIVE) or from the reports (EAGER).</li>
 *   <li><b>Hand out partitions</b>: a member gets every partition of its units, except, under
 *       COOPERATIVE, the partitions of a unit that another member still owns: that member must
 *       revoke first (Kafka's leader rejects an assignment that moves a partition in one step), so
 *       the whole unit waits for the follow-up rebalance the revoking member triggers. The unit's
 *       partitions move together, so the new owner never reads a child partition while the old
 *       owner still reads its parent.</li>
 * </ol>
 * Between placing and handing out, {@link RackAlignment} swaps units of equal weight between
 * members when consumers set {@code client.rack}, to read more partitions from a local replica.
 *
 * <p>Worked example: members A and B, topic {@code orders} with T = 4 (units 4:0..4:3, A owns
 * 4:0 and 4:1, B owns 4:2 and 4:3), grown from 4 to 8 partitions. The layout is EXPANDED (T stays
 * 4), partition 5 joins unit 4:1 with partition 1, so A gets 0, 4, 1, 5 and B gets 2, 6, 3, 7:
 * every key stays with its member. Then C joins: the engine moves one unit, say 4:3 from B to C;
 * B owns 3 and 7, so this rebalance gives C nothing, B keeps 2 and 6; B revokes 3 and 7 and
 * rejoins, and the next rebalance gives them to C.
 */
final class LeaderAssignment {

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingAssignor.class);

    private final KeyPreservingAssignorConfig config;
    private final LayoutStore store;
    private final AssignorMetrics metrics;
    private final PlacementEngine engine = new PlacementEngine();

    /** Member id to its subscription and report (null if its userData was not a report), in id order. */
    private final SortedMap<String, Subscription> subscriptions;
    private final Map<String, MemberReport> reports = new HashMap<>();
    private final Map<String, List<TopicPartition>> assigned = new TreeMap<>();
    private int movedTasks;
    private int withheldPartitions;
    private int rackSwaps;

    LeaderAssignment(KeyPreservingAssignorConfig config, LayoutStore store, AssignorMetrics metrics,
                     GroupSubscription groupSubscription) {
        this.config = config;
        this.store = store;
        this.metrics = metrics;
        this.subscriptions = new TreeMap<>(groupSubscription.groupSubscription());
    }

    /**
     * Computes the group's assignment.
     *
     * @param metadata the leader's view of the cluster
     * @return the assignment of every member, each with the layout in its userData
     */
    GroupAssignment compute(Cluster metadata) {
        readReports();
        GroupLayout layout = agreeOnLayout(metadata);
        Map<TopicPartition, String> owners = currentOwners();
        boolean cooperative = !owners.isEmpty();
        subscriptions.keySet().forEach(member -> assigned.put(member, new ArrayList<>()));
        for (Map.Entry<SortedSet<String>, SortedSet<String>> topicClass : topicClasses(layout, metadata).entrySet()) {
            place(layout, topicClass.getKey(), topicClass.getValue(), owners, cooperative, metadata);
        }
        metrics.assignmentComputed();
        metrics.moved(movedTasks);
        metrics.withheld(withheldPartitions);
        metrics.layoutEpoch(layout.epoch());
        log.info("Assigned {} members, layout epoch {}: {} tasks moved, {} partitions withheld until their owner "
                + "revokes them, {} task swaps for rack locality", subscriptions.size(), layout.epoch(), movedTasks,
                withheldPartitions, rackSwaps);
        ByteBuffer userData = AssignmentInfo.encode(layout);
        Map<String, Assignment> assignments = new HashMap<>();
        assigned.forEach((member, partitions) -> assignments.put(member, new Assignment(partitions, userData.duplicate())));
        return new GroupAssignment(assignments);
    }

    private void readReports() {
        List<String> malformed = new ArrayList<>();
        subscriptions.forEach((member, subscription) -> {
            ByteBuffer userData = subscription.userData();
            Optional<MemberReport> report = MemberReport.decode(userData);
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
        List<GroupLayout> reported = new ArrayList<>();
        reports.values().forEach(report -> reported.add(report.layout()));
        LayoutMerge merge = GroupLayout.merge(reported);
        Map<String, Integer> counts = partitionCounts(metadata);
        if (counts.keySet().stream().anyMatch(topic -> merge.layout().topic(topic).isEmpty())) {
            Optional<GroupLayout> stored = store.load();
            if (stored.isPresent()) {
                metrics.layoutStoreLoaded();
                reported.add(stored.get());
                log.info("No member knew the layout of every subscribed topic; read epoch {} from the layout store",
                        stored.get().epoch());
            }
        }
        LayoutMerge merged = reported.size() == reports.size() ? merge : GroupLayout.merge(reported);
        for (MergeConflict conflict : merged.conflicts()) {
            log.warn(conflict.message());
        }
        LayoutUpdate update = merged.layout().withPartitionCounts(counts, config.expansionPolicy(), config.taskCounts());
        for (LayoutChange change : update.changes()) {
            report(change);
        }
        GroupLayout layout = update.layout();
        if (layout.epoch() != merged.layout().epoch()) {
            store.save(layout);
        }
        return layout;
    }

    private void report(LayoutChange change) {
        if (change.kind().breaksAffinity()) {
            metrics.affinityBroken();
            log.error("{} Affinity of keys to consumers is broken for this topic only; the group goes on. To avoid it, "
                    + "grow topics to a multiple of their task count, or declare the count in {}.",
                    change.message(), KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG);
        } else if (change.kind().changesLayout()) {
            log.info(change.message());
        } else {
            log.warn(change.message());
        }
        if (change.kind().changesLayout()) {
            metrics.layoutChanged();
        }
    }

    /** Partition counts of the subscribed topics that the metadata knows. */
    private Map<String, Integer> partitionCounts(Cluster metadata) {
        Map<String, Integer> counts = new TreeMap<>();
        subscriptions.values().forEach(subscription -> subscription.topics().forEach(topic -> {
            Integer count = metadata.partitionCountForTopic(topic);
            if (count != null) {
                counts.put(topic, count);
            }
        }));
        return counts;
    }

    /**
     * Topics with a layout and in the metadata, grouped by the exact set of members subscribed to
     * them: each group is placed on its own members. (Usually every member subscribes to the same
     * topics, and there is one group.)
     */
    private SortedMap<SortedSet<String>, SortedSet<String>> topicClasses(GroupLayout layout, Cluster metadata) {
        SortedMap<String, SortedSet<String>> subscribers = new TreeMap<>();
        subscriptions.forEach((member, subscription) -> subscription.topics().forEach(topic -> {
            if (layout.topic(topic).isPresent() && metadata.partitionCountForTopic(topic) != null) {
                subscribers.computeIfAbsent(topic, t -> new TreeSet<>()).add(member);
            }
        }));
        SortedMap<SortedSet<String>, SortedSet<String>> classes = new TreeMap<>(LeaderAssignment::compareSets);
        subscribers.forEach((topic, members) -> classes.computeIfAbsent(members, m -> new TreeSet<>()).add(topic));
        return classes;
    }

    private static int compareSets(SortedSet<String> a, SortedSet<String> b) {
        return String.join(",", a).compareTo(String.join(",", b));
    }

    /**
     * Who owns each partition now, from {@code ownedPartitions} (COOPERATIVE). A partition two
     * members claim (one of them missed a rebalance) belongs to the one with the higher
     * generation, as in Kafka's sticky assignor; ties go to the smaller member id.
     */
    private Map<TopicPartition, String> currentOwners() {
        Map<TopicPartition, String> owners = new HashMap<>();
        Map<TopicPartition, Integer> ownerGeneration = new HashMap<>();
        subscriptions.forEach((member, subscription) -> {
            int generation = generation(member, subscription);
            for (TopicPartition partition : subscription.ownedPartitions()) {
                Integer current = ownerGeneration.get(partition);
                if (current == null || generation > current) {
                    owners.put(partition, member);
                    ownerGeneration.put(partition, generation);
                }
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

    private void place(GroupLayout layout, SortedSet<String> members, SortedSet<String> topics,
                       Map<TopicPartition, String> owners, boolean cooperative, Cluster metadata) {
        Units units = Units.of(layout, topics);
        Map<String, String> priorOwner = new HashMap<>();
        for (Unit unit : units.units()) {
            priorOwner(unit, members, owners, cooperative).ifPresent(owner -> priorOwner.put(unit.id(), owner));
        }
        List<TaskDescription> tasks = new ArrayList<>();
        units.units().forEach(unit -> tasks.add(TaskDescription.stateless(unit.id()).withWeight(unit.weight())));
        List<ClientDescription> clients = new ArrayList<>();
        for (String member : members) {
            List<String> prior = new ArrayList<>();
            priorOwner.forEach((unit, owner) -> {
                if (owner.equals(member)) {
                    prior.add(unit);
                }
            });
            ClientDescription.Builder client = ClientDescription.builder(member).capacity(1).priorActive(prior);
            subscriptions.get(member).rackId().ifPresent(client::rack);
            clients.add(client.build());
        }
        Placement placement = engine.place(new PlacementRequest(tasks, clients, PlacementSettings.defaults()));
        Map<String, String> placed = new TreeMap<>();
        placement.clients().forEach((member, clientPlacement) ->
                clientPlacement.active().forEach(unitId -> placed.put(unitId, member)));
        Map<String, String> racks = new HashMap<>();
        members.forEach(member -> subscriptions.get(member).rackId().ifPresent(rack -> racks.put(member, rack)));
        rackSwaps += RackAlignment.align(placed, units.units(), racks, metadata);
        for (Unit unit : units.units()) {
            String member = placed.get(unit.id());
            if (member != null) {
                handOut(member, unit, priorOwner.get(unit.id()), owners);
            }
        }
    }

    /**
     * The member that owned most partitions of the unit (ties: the smaller member id); under
     * EAGER, a member whose report lists the unit's task.
     */
    private Optional<String> priorOwner(Unit unit, Set<String> members, Map<TopicPartition, String> owners,
                                        boolean cooperative) {
        if (!cooperative) {
            return members.stream().filter(member -> reports.containsKey(member)
                    && unit.topics().stream().anyMatch(topic -> reports.get(member).owned(topic, unit.task())))
                    .findFirst();
        }
        SortedMap<String, Integer> owned = new TreeMap<>();
        for (String topic : unit.topics()) {
            for (int partition : unit.partitions(topic)) {
                String owner = owners.get(new TopicPartition(topic, partition));
                if (owner != null && members.contains(owner)) {
                    owned.merge(owner, 1, Integer::sum);
                }
            }
        }
        return owned.entrySet().stream().max(Map.Entry.<String, Integer>comparingByValue()
                .thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder()))).map(Map.Entry::getKey);
    }

    /**
     * Gives the unit's partitions to the member, unless another member still owns one of them:
     * then only those the member owns already, and the rest waits for the next rebalance.
     */
    private void handOut(String member, Unit unit, String priorOwner, Map<TopicPartition, String> owners) {
        if (priorOwner != null && !priorOwner.equals(member)) {
            movedTasks++;
        }
        List<TopicPartition> partitions = new ArrayList<>();
        boolean ownedElsewhere = false;
        for (String topic : unit.topics()) {
            for (int partition : unit.partitions(topic)) {
                TopicPartition topicPartition = new TopicPartition(topic, partition);
                partitions.add(topicPartition);
                String owner = owners.get(topicPartition);
                ownedElsewhere |= owner != null && !owner.equals(member);
            }
        }
        List<TopicPartition> target = assigned.get(member);
        for (TopicPartition partition : partitions) {
            if (!ownedElsewhere || member.equals(owners.get(partition))) {
                target.add(partition);
            } else {
                withheldPartitions++;
            }
        }
    }
}
