package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.junit.jupiter.api.Test;

/**
 * Targets read by size ({@link TrustedTargets}): a member placement leaves alone gets its target
 * back unread, the assignment is the one a full read gives, and targets whose sizes do not add
 * up are read in full.
 */
class TrustedTargetsTest {

    private static final Uuid ORDERS = new Uuid(1, 1);
    private static final Uuid AUDIT = new Uuid(3, 3);
    private static final long SEED = 20261204L;

    private final ServerAssignorMetrics metrics = new ServerAssignorMetrics(() -> 0);

    @Test
    void shouldHandBackTheTargetsOfMembersPlacementLeavesAloneWithoutReadingThem() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 1_000);
        for (int m = 0; m < 100; m++) {
            group.member(String.format("m%03d", m), ORDERS);
        }
        group.apply(assign(group.spec(), group, store));
        group.member("m100", ORDERS);
        Set<String> read = new HashSet<>();
        GroupSpec spec = specRecordingReads(group, read);

        GroupAssignment joined = assign(spec, group, store);

        // The newcomer takes 9 partitions, one from each of 9 members: those are read, and a few
        // the evening looks at; the others keep their targets, unread and as they are.
        assertThat(read).hasSizeLessThanOrEqualTo(20);
        for (String member : group.members()) {
            if (!read.contains(member) && !member.equals("m100")) {
                assertThat(joined.members().get(member).partitions()).as(member).isSameAs(group.target(member));
            }
        }
        assertThat(canonical(joined)).isEqualTo(canonical(assign(new NothingAssigned(group.spec()), group, store)));
        assertThat(metrics.assignmentFallbacksTotal()).isZero();
    }

    @Test
    void shouldNotReadTheTargetsOfMembersThatOnlyGainPartitions() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 1_000).topic(AUDIT, 100);
        for (int m = 0; m < 100; m++) {
            group.member(String.format("m%03d", m), ORDERS, AUDIT);
        }
        group.apply(assign(group.spec(), group, store));
        Map<Uuid, Set<Integer>> leaver = group.target("m050");
        group.leave("m050");
        Set<String> read = new HashSet<>();
        GroupSpec spec = specRecordingReads(group, read);

        GroupAssignment left = assign(spec, group, store);

        // Its 11 partitions go to 11 members, one each: each gets its target back with it, unread.
        assertThat(read).isEmpty();
        int gainers = 0;
        for (String member : group.members()) {
            Map<Uuid, Set<Integer>> target = group.target(member);
            Map<Uuid, Set<Integer>> assigned = left.members().get(member).partitions();
            if (!assigned.equals(target)) {
                gainers++;
                assertThat(assigned.values().stream().mapToInt(Set::size).sum())
                        .isEqualTo(target.values().stream().mapToInt(Set::size).sum() + 1);
                target.forEach((topic, partitions) -> assertThat(assigned.get(topic)).containsAll(partitions));
            }
        }
        assertThat(gainers).isEqualTo(leaver.values().stream().mapToInt(Set::size).sum());
        assertThat(canonical(left)).isEqualTo(canonical(assign(new NothingAssigned(group.spec()), group, store)));
        assertThat(metrics.assignmentFallbacksTotal()).isZero();
    }

    @Test
    void shouldReadEveryTargetWhenTheSizesDoNotAddUp() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 100);
        for (int m = 0; m < 10; m++) {
            group.member("m" + m, ORDERS);
        }
        group.apply(assign(group.spec(), group, store));
        // m1 names partition 3, which m0 holds, instead of its own 19: as many partitions, one twice.
        Set<Integer> m1 = new TreeSet<>(group.target("m1").get(ORDERS));
        Integer own = m1.iterator().next();
        Integer other = group.target("m0").get(ORDERS).iterator().next();
        m1.remove(own);
        m1.add(other);
        group.target("m1", Map.of(ORDERS, Collections.unmodifiableSet(m1)));

        GroupAssignment assignment = assign(group.spec(), group, store);

        Map<Integer, List<String>> holders = new TreeMap<>();
        assignment.members().forEach((member, assigned) -> assigned.partitions().getOrDefault(ORDERS, Set.of())
                .forEach(p -> holders.computeIfAbsent(p, x -> new ArrayList<>()).add(member)));
        assertThat(holders).hasSize(100);
        assertThat(holders.values()).allSatisfy(members -> assertThat(members).hasSize(1));
    }

    @Test
    void shouldReadEveryTargetWhenATargetNamesATopicTheGroupDoesNotRead() {
        Uuid unknown = new Uuid(5, 5); // no topic the describer knows
        for (Uuid stray : List.of(AUDIT, unknown)) {
            InMemoryTaskCountStore store = new InMemoryTaskCountStore();
            TestGroup group = new TestGroup().topic(ORDERS, 1_000).topic(AUDIT, 4);
            for (int m = 0; m < 100; m++) {
                group.member(String.format("m%03d", m), ORDERS);
            }
            group.apply(assign(group.spec(), group, store));
            // m001 names a topic besides ORDERS, which it reads: a member leaving would otherwise
            // read a few targets (its 10 partitions go to 10 members).
            Map<Uuid, Set<Integer>> m1 = new HashMap<>(group.target("m001"));
            m1.put(stray, Set.of(0, 1));
            group.target("m001", Collections.unmodifiableMap(m1));
            group.leave("m050");
            Set<String> read = new HashSet<>();

            GroupAssignment assignment = assign(specRecordingReads(group, read), group, store);

            assertThat(read).as("targets read, with %s named", stray).hasSize(99);
            assertThat(assignment.members().get("m001").partitions()).containsOnlyKeys(ORDERS);
            assertThat(metrics.assignmentFallbacksTotal()).isZero();
        }
    }

    @Test
    void shouldReadOnlyTheTargetsThatHoldAGrownTopic() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 1_000).topic(AUDIT, 40);
        for (int m = 0; m < 100; m++) {
            group.member(String.format("m%03d", m), ORDERS, AUDIT);
        }
        group.apply(assign(group.spec(), group, store));
        Set<String> holders = new TreeSet<>();
        for (String member : group.members()) {
            if (group.target(member).containsKey(AUDIT)) {
                holders.add(member);
            }
        }
        group.topic(AUDIT, 80); // expanded: T stays 40, each of its tasks is two partitions now
        Set<String> read = new HashSet<>();

        GroupAssignment grown = assign(specRecordingReads(group, read), group, store);

        // The holders of AUDIT's tasks keep them and get their new partitions; the evening then
        // takes units from them (read already) and gives each to a member whose target it need not read.
        assertThat(holders).hasSizeBetween(2, 10);
        assertThat(read).isEqualTo(holders);
        for (String member : group.members()) {
            Map<Uuid, Set<Integer>> target = group.target(member);
            Map<Uuid, Set<Integer>> assigned = grown.members().get(member).partitions();
            if (!holders.contains(member)) {
                target.forEach((topic, partitions) -> assertThat(assigned.get(topic)).as(member).containsAll(partitions));
            } else {
                assertThat(assigned.get(AUDIT)).as(member).containsAll(target.get(AUDIT));
            }
        }
        assertThat(canonical(grown)).isEqualTo(canonical(assign(new NothingAssigned(group.spec()), group, store)));
        assertThat(metrics.assignmentFallbacksTotal()).isZero();
    }

    /**
     * Seeded groups, a third of them in racks, members joining and leaving and topics growing (a
     * grown topic's tasks hold more than one partition; topics of one count are co-partitioned): read
     * by size where the check allows it, the assignment is the one a full read gives (a spec that
     * says no partition is assigned makes the sizes not add up, so every target is read).
     */
    @Test
    void shouldAssignAsAFullReadDoes() {
        SplittableRandom random = new SplittableRandom(SEED);
        int bySize = 0;
        int racksBySize = 0;
        int grownBySize = 0;
        int rounds = 0;
        for (int g = 0; g < 150; g++) {
            InMemoryTaskCountStore store = new InMemoryTaskCountStore();
            TestGroup group = new TestGroup();
            List<Uuid> topics = new ArrayList<>();
            for (int t = 0; t < 1 + random.nextInt(3); t++) {
                Uuid id = new Uuid(7, t);
                topics.add(id);
                group.topic(id, 1 + random.nextInt(30));
            }
            // A third of the groups in racks: they choose among equally loaded members, so are read by size too.
            boolean racks = g % 3 == 0;
            if (racks) {
                topics.forEach(t -> group.replicasOn(t, "r0", "r1", "r2", "r1"));
            }
            int next = 0;
            // Up to a few partitions a member: where few members' targets are read, the check reads by size.
            for (int m = 0; m < 1 + random.nextInt(150); m++) {
                join(group, String.format("m%03d", next++), topics, racks, random);
            }
            boolean grown = false;
            for (int round = 0; round < 6; round++) {
                Set<String> read = new HashSet<>();
                GroupSpec spec = specRecordingReads(group, read);
                GroupAssignment assignment = assign(spec, group, store);
                // A full read iterates every target that names a partition: read by size reads fewer.
                long withPartitions = group.members().stream().filter(m -> !group.target(m).isEmpty()).count();
                boolean readBySize = read.size() < withPartitions;
                GroupAssignment full = assign(new NothingAssigned(group.spec()), group, store);
                assertThat(canonical(assignment)).as("group %s round %s", g, round).isEqualTo(canonical(full));
                if (round > 0) { // a fresh group has no target to read
                    rounds++;
                    bySize += readBySize ? 1 : 0;
                    racksBySize += racks && readBySize ? 1 : 0;
                    grownBySize += grown && readBySize ? 1 : 0;
                }
                group.apply(assignment);
                int change = random.nextInt(4);
                if (change == 0 || group.members().size() < 2) {
                    join(group, String.format("m%03d", next++), topics, racks, random);
                } else if (change == 1) {
                    List<String> members = new ArrayList<>(group.members());
                    group.leave(members.get(random.nextInt(members.size())));
                } else if (change == 3) {
                    Uuid topic = topics.get(random.nextInt(topics.size()));
                    group.topic(topic, group.partitions(topic) * (2 + random.nextInt(2)));
                    grown = true;
                }
            }
        }
        assertThat(metrics.assignmentFallbacksTotal()).isZero();
        assertThat(bySize).as("rounds read by size, of %s", rounds).isGreaterThan(rounds / 3);
        assertThat(racksBySize).as("rounds of groups in racks read by size").isGreaterThan(rounds / 8);
        assertThat(grownBySize).as("rounds of groups with a grown topic read by size").isGreaterThan(rounds / 50);
    }

    @Test
    void shouldReadEveryTargetWhenEveryMemberHoldsAGrownTopicOrMembersReadDifferentTopics() {
        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        TestGroup group = new TestGroup().topic(ORDERS, 4).topic(AUDIT, 6);
        group.member("m0", ORDERS, AUDIT).member("m1", ORDERS, AUDIT);
        group.apply(assign(group.spec(), group, store));
        group.topic(ORDERS, 8); // expanded: a unit is two partitions, and both members hold some
        Set<String> read = new HashSet<>();
        group.apply(assign(specRecordingReads(group, read), group, store));
        assertThat(read).containsExactlyInAnyOrder("m0", "m1");

        group.member("m2", AUDIT); // two eligibility classes
        read.clear();
        assign(specRecordingReads(group, read), group, store);
        assertThat(read).containsExactlyInAnyOrder("m0", "m1");
    }

    private static void join(TestGroup group, String member, List<Uuid> topics, boolean racks, SplittableRandom random) {
        group.member(member, topics);
        if (racks && random.nextInt(4) > 0) { // some members have no rack
            group.rack(member, "r" + random.nextInt(3));
        }
    }

    /** @return the group's spec, whose targets note into {@code read} the members whose targets are read after this */
    private static GroupSpec specRecordingReads(TestGroup group, Set<String> read) {
        for (String member : group.members()) {
            Map<Uuid, Set<Integer>> recording = new HashMap<>();
            group.target(member).forEach((t, ps) -> recording.put(t, new ReadRecordingSet(ps, member, read)));
            group.target(member, Collections.unmodifiableMap(recording));
        }
        GroupSpec spec = group.spec();
        read.clear(); // the test's spec indexes the targets as it is made; the coordinator keeps its index as it goes
        return spec;
    }

    private GroupAssignment assign(GroupSpec spec, TestGroup group, TaskCountStore store) {
        return new ServerAssignmentBuilder(spec, group.describer(), store, new TaskCountLog(), metrics).build();
    }

    private static Map<String, Map<Uuid, Set<Integer>>> canonical(GroupAssignment assignment) {
        Map<String, Map<Uuid, Set<Integer>>> canonical = new TreeMap<>();
        assignment.members().forEach((member, assigned) -> {
            Map<Uuid, Set<Integer>> byTopic = new TreeMap<>();
            assigned.partitions().forEach((topic, ps) -> byTopic.put(topic, new TreeSet<>(ps)));
            canonical.put(member, byTopic);
        });
        return canonical;
    }

    /** A member's target set that notes its member when anything iterates it; its size is free to ask. */
    private static final class ReadRecordingSet extends AbstractSet<Integer> {
        private final Set<Integer> partitions;
        private final String member;
        private final Set<String> read;

        ReadRecordingSet(Set<Integer> partitions, String member, Set<String> read) {
            this.partitions = partitions;
            this.member = member;
            this.read = read;
        }

        @Override
        public Iterator<Integer> iterator() {
            read.add(member);
            return partitions.iterator();
        }

        @Override
        public boolean contains(Object o) {
            read.add(member);
            return partitions.contains(o);
        }

        @Override
        public int size() {
            return partitions.size();
        }
    }

    /** A spec whose coordinator says no partition is assigned: the sizes never add up, so every target is read. */
    private static final class NothingAssigned extends ForwardingGroupSpec {
        NothingAssigned(GroupSpec spec) {
            super(spec);
        }

        @Override
        public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
            return false;
        }
    }
}
