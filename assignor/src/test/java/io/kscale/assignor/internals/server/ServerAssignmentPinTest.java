package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.junit.jupiter.api.Test;

/**
 * Pins the broker-side assignment of many seeded groups to a digest taken from the builder
 * before its speed-up (the build that made topic subscribers with a {@code TreeMap}, assembled
 * per topic and copied every target): a change of speed must not change a single assignment. The
 * groups go through rounds a broker sees: a fresh group, members joining and leaving, topics
 * growing, held topics (the store not knowing their T yet), racks, targets the builder made itself
 * handed back unchanged, and targets with garbage (unknown topics, partitions out of range,
 * nulls, one partition twice).
 *
 * <p>The seed is fixed, not one of {@code Seeds}' fresh seeds: the digest is of these groups. If
 * a deliberate change of the assignment rule makes this fail, check the rule's own tests, then
 * take the new digest from the failure message.
 */
class ServerAssignmentPinTest {

    private static final long SEED = 20261202L;
    private static final int GROUPS = 300;
    private static final int ROUNDS = 6;
    /**
     * SHA-256 of every assignment's canonical text. Taken from the builder before the speed-up
     * (8fae62df...), then once more from the mixed-subscription change ({@code SpreadNarrower}, a
     * deliberate change of rule) without the speed-up: the sped-up build gives the same digest.
     * Taken again (was aed00d65...) for a deliberate change of rule: a unit with partitions in no
     * target (grown) stays with its prior owner ({@code PriorOwners.pinned}), so that KIP-848's
     * per-partition reconciliation never hands its new partitions to one member while another
     * still reads the old ones; with that rule switched off the build gave aed00d65... again.
     * Taken again (was bf6946fb...) for a deliberate change of rule: without racks, the units a
     * member takes in placement are one run of consecutive units, in the same numbers as before
     * ({@code UnitPlacer.placeByLevels}; {@code ServerAssignmentBuilderTest}'s fresh group of 10
     * topics pins the runs), so that a member of a fresh group reads few topics.
     * Taken again (was 4cc1a290...) for a deliberate change of order: members are indexed by their
     * ids' hash codes, then ids ({@code GroupMembers}), not by ids alone, so ties between equally
     * loaded members break differently; with the id order put back the build gave 4cc1a290...
     * again, racks placed level by level and targets read by size with racks included.
     * Taken again (was 88f8c90c...) for a deliberate change of tie order: with mixed subscriptions,
     * evening the free units and narrowing the spread share one {@code SpreadNarrower}, so a path
     * takes the unit of its weight that moved to its giver last, where a second narrower, built
     * from the owners, took the giver's unit of highest index; with a second narrower put back the
     * build gave 88f8c90c... again (the new {@code Holdings} included).
     * Taken again (was 8377f752...) for a deliberate change of which paths even the free units:
     * from a level, as many paths as share no member after one breadth-first search
     * ({@code SpreadNarrower.shiftFreePaths}), each to the first member a depth-first search
     * reaches, where one search per path took the lightest member reachable; the spread and the
     * partitions moved are checked by the property tests, not by this digest.
     * Taken again (was d3fca3c0...) for a deliberate change of rule: with racks too, the units a
     * member takes in placement are one run, of the units placed on its rack
     * ({@code UnitPlacer.RackLevel.handOutRuns}), in the same numbers and racks as before, so
     * that a member in a rack reads few topics; with each unit left on the member it was dealt to,
     * the build gave d3fca3c0... again.
     */
    private static final String DIGEST = "a3e3e72d50f1de4e595a24f1aab92564dd3a01b0f79309f2ea6fd81f9d00aad4";

    @Test
    void shouldAssignSeededGroupsExactlyAsBeforeTheSpeedUp() throws NoSuchAlgorithmException {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        SplittableRandom random = new SplittableRandom(SEED);
        for (int g = 0; g < GROUPS; g++) {
            playGroup(random.split(), digest);
        }
        StringBuilder hex = new StringBuilder();
        for (byte b : digest.digest()) {
            hex.append(String.format("%02x", b));
        }
        assertThat(hex.toString()).as("digest of %s seeded groups' assignments", GROUPS).isEqualTo(DIGEST);
    }

    private static void playGroup(SplittableRandom random, MessageDigest digest) {
        TestGroup group = new TestGroup();
        List<Uuid> topics = new ArrayList<>();
        Map<Uuid, Integer> counts = new HashMap<>();
        int topicCount = 1 + random.nextInt(6);
        PartlyLoadedStore store = new PartlyLoadedStore();
        for (int t = 0; t < topicCount; t++) {
            Uuid id = new Uuid(1 + random.nextInt(3), random.nextLong());
            int taskCount = 1 + random.nextInt(random.nextBoolean() ? 4 : 24);
            int partitions = random.nextInt(3) == 0 ? taskCount * (1 + random.nextInt(3)) : 1 + random.nextInt(40);
            topics.add(id);
            counts.put(id, partitions);
            group.topic(id, partitions);
            switch (random.nextInt(4)) {
                case 0: break; // none stored: T becomes the partition count
                case 1: store.held.add(id); break;
                default: store.stored(id, taskCount);
            }
            if (random.nextInt(3) == 0) {
                group.replicasOn(id, "r" + random.nextInt(3), "r" + random.nextInt(3));
            }
        }
        boolean homogeneous = random.nextBoolean();
        Set<Uuid> shared = new HashSet<>(topics.subList(0, 1 + random.nextInt(topics.size())));
        int next = 0;
        for (int members = 1 + random.nextInt(12); next < members; next++) {
            join(group, random, next, topics, homogeneous ? shared : null);
        }
        for (int round = 0; round < ROUNDS; round++) {
            GroupAssignment assignment = new ServerAssignmentBuilder(group.spec(), group.describer(), store,
                    new TaskCountLog(), new ServerAssignorMetrics(() -> 0)).build();
            digest.update(canonical(assignment).getBytes(StandardCharsets.UTF_8));
            if (random.nextInt(3) == 0) {
                // the builder's own sets handed back as they are, as a coordinator may
                for (String member : group.members()) {
                    MemberAssignment assigned = assignment.members().get(member);
                    group.target(member, assigned == null ? Map.of() : assigned.partitions());
                }
            } else {
                group.apply(assignment);
            }
            switch (random.nextInt(6)) {
                case 0:
                    join(group, random, next++, topics, homogeneous ? shared : null);
                    break;
                case 1:
                    if (group.members().size() > 1) {
                        List<String> ids = new ArrayList<>(group.members());
                        group.leave(ids.get(random.nextInt(ids.size())));
                    }
                    break;
                case 2:
                    Uuid grown = topics.get(random.nextInt(topics.size()));
                    counts.merge(grown, 2, (a, b) -> a * b);
                    group.topic(grown, counts.get(grown));
                    break;
                case 3:
                    store.held.clear(); // the store has loaded
                    break;
                case 4:
                    List<String> ids = new ArrayList<>(group.members());
                    String spoiled = ids.get(random.nextInt(ids.size()));
                    group.target(spoiled, garbage(random, group.target(spoiled), topics));
                    break;
                default:
                    break; // nothing changed: the same targets again
            }
        }
    }

    private static void join(TestGroup group, SplittableRandom random, int index, List<Uuid> topics, Set<Uuid> shared) {
        String id = "m" + Integer.toString(index + 1000, 36) + random.nextInt(10);
        List<Uuid> subscribed = new ArrayList<>();
        if (shared != null) {
            subscribed.addAll(shared);
        } else {
            topics.stream().filter(t -> random.nextBoolean()).forEach(subscribed::add);
        }
        group.member(id, subscribed);
        if (random.nextInt(3) == 0) {
            group.rack(id, "r" + random.nextInt(3));
        }
    }

    /** A target with one of the things a broken or hostile target may hold. */
    private static Map<Uuid, Set<Integer>> garbage(SplittableRandom random, Map<Uuid, Set<Integer>> target,
                                                   List<Uuid> topics) {
        Map<Uuid, Set<Integer>> spoiled = new HashMap<>(target);
        Uuid topic = topics.get(random.nextInt(topics.size()));
        Set<Integer> partitions = new HashSet<>(spoiled.getOrDefault(topic, Set.of()));
        switch (random.nextInt(6)) {
            case 0: spoiled.put(new Uuid(99, 99), Set.of(0, 1)); break;
            case 1: partitions.add(-1); partitions.add(1_000); spoiled.put(topic, partitions); break;
            case 2: partitions.add(null); spoiled.put(topic, partitions); break;
            case 3: spoiled.put(topic, null); break;
            case 4: spoiled.put(topic, Set.of()); break;
            default: partitions.add(0); spoiled.put(topic, partitions); break; // perhaps another member's
        }
        return spoiled;
    }

    private static String canonical(GroupAssignment assignment) {
        Map<String, Map<String, TreeSet<Integer>>> sorted = new TreeMap<>();
        assignment.members().forEach((member, assigned) -> {
            Map<String, TreeSet<Integer>> topics = new TreeMap<>();
            assigned.partitions().forEach((topic, ps) -> topics.put(String.valueOf(topic), new TreeSet<>(ps)));
            sorted.put(member, topics);
        });
        return sorted + "\n";
    }

    /** A loaded store except for the topics in {@link #held}, whose T it does not know yet. */
    private static final class PartlyLoadedStore implements TaskCountStore {
        final Set<Uuid> held = new HashSet<>();
        private final InMemoryTaskCountStore stored = new InMemoryTaskCountStore();

        void stored(Uuid topic, int taskCount) {
            stored.stored(topic, taskCount);
        }

        @Override
        public TaskCount lookup(Uuid topicId) {
            return held.contains(topicId) ? TaskCount.notYetKnown() : stored.lookup(topicId);
        }

        @Override
        public int propose(Uuid topicId, int proposed, int partitionCount) {
            return stored.propose(topicId, proposed, partitionCount);
        }

        @Override
        public void close() {
        }
    }
}
