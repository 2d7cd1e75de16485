package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.Property;
import io.kscale.assignor.Seeds;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

/**
 * The broker-side assignor against Kafka's own {@code uniform} ({@link UniformAssignor}), on the
 * same seeded groups: 1 to 50 members, 1 to 6 fresh topics (so T is each topic's partition
 * count), one property with every member reading every topic, one with random subsets. Both
 * assign the fresh group; then both start from the same targets (one or the other's fresh
 * assignment, drawn) and face the same member change: one joins, or one leaves. Measures:
 * <b>moves</b>, the partitions revoked from members that stay; <b>spread</b>, {@code max - min}
 * partitions per member.
 * <ul>
 *   <li>Same topics for all: kscale's spread is at most uniform's, fresh and after the change,
 *       and it moves no more partitions.</li>
 *   <li>Different topics: the spread is at most uniform's too, fresh and after the change. At
 *       equal spread kscale moves at most {@value #EQUAL_SPREAD_SLACK} partition more than
 *       uniform: its cheapest paths are taken one by one, not as one min-cost flow, and 2 of
 *       9,000 tries needed that one (21 against 20, 78 against 77); 21,000 tries passed. Where
 *       kscale ends strictly better balanced, it may move more: it reaches the least spread any
 *       assignment has, uniform may stop above it, and narrowing takes moves uniform does not
 *       make ({@link #shouldMoveAPartitionUniformKeepsOnlyToReachTheLeastSpread}, the smallest
 *       case). Neither can be had without the other unless kscale knew where uniform stops.</li>
 * </ul>
 * The topics have distinct partition counts, so no two share T and every unit is one partition,
 * as fine-grained as uniform. With topics of equal count and equal subscribers kscale puts task
 * t of each on one member (co-partitioning, the point of the layout rule): a unit then weighs as
 * many partitions as it has topics and only whole units move, so the comparison cannot hold by
 * construction (3 topics of 4 partitions on 3 members: units of 3 partitions, loads 6/3/3 against
 * uniform's 4/4/4). That case is checked for the task rule ({@link ServerAssignmentBuilderTest}).
 */
class ServerVersusUniformPropertyTest {

    private static final int TRIES = 100;
    /** Partitions kscale may move beyond uniform's at equal spread, with different topics (see the class comment). */
    private static final int EQUAL_SPREAD_SLACK = 1;

    @Property
    Stream<DynamicTest> shouldMoveNoMoreAndBalanceNoWorseThanUniformWhenAllMembersReadTheSameTopics() {
        return Seeds.tries(TRIES, random -> checkCase(random, false));
    }

    @Property
    Stream<DynamicTest> shouldMoveNoMoreAndBalanceNoWorseThanUniformWhenMembersReadDifferentTopics() {
        return Seeds.tries(TRIES, random -> checkCase(random, true));
    }

    private static void checkCase(SplittableRandom random, boolean heterogeneous) {
        int topicCount = Seeds.intBetween(random, 1, 6);
        List<Uuid> topics = new ArrayList<>();
        TreeSet<Integer> counts = new TreeSet<>();
        while (counts.size() < topicCount) {
            counts.add(Seeds.intBetween(random, 1, 64));
        }
        List<Integer> countList = new ArrayList<>(counts);
        int members = Seeds.intBetween(random, 1, 50);
        TestGroup ours = new TestGroup();
        TestGroup theirs = new TestGroup();
        for (int t = 0; t < topicCount; t++) {
            Uuid id = new Uuid(random.nextLong(), t + 1);
            topics.add(id);
            ours.topic(id, countList.get(t));
            theirs.topic(id, countList.get(t));
        }
        Map<String, List<Uuid>> subscriptions = new HashMap<>();
        for (int m = 0; m < members + 1; m++) {
            List<Uuid> subscribed = heterogeneous ? subset(random, topics) : topics;
            subscriptions.put(member(m), subscribed);
        }
        for (int m = 0; m < members; m++) {
            ours.member(member(m), subscriptions.get(member(m)));
            theirs.member(member(m), subscriptions.get(member(m)));
        }
        boolean join = members == 1 || random.nextBoolean();
        String changed = join ? member(members) : member(random.nextInt(members));
        String input = (heterogeneous ? "heterogeneous" : "homogeneous") + ", partitions " + countList + ", members "
                + members + ", " + (join ? "joins " : "leaves ") + changed + ", subscriptions " + subscriptions;
        Seeds.sample("%s", input);

        InMemoryTaskCountStore store = new InMemoryTaskCountStore();
        UniformAssignor uniform = new UniformAssignor();
        GroupAssignment oursFresh = assign(ours, store);
        GroupAssignment theirsFresh = uniform.assign(theirs.spec(), theirs.describer());
        ServerChecks.assertComplete(ours, oursFresh, new HashSet<>(subscribedTopics(subscriptions, members)));
        assertThat(spread(ours, oursFresh)).as("fresh spread; %s", input).isLessThanOrEqualTo(spread(theirs, theirsFresh));

        // The change, from the same targets for both: each partition is a unit of its own here, so
        // any complete assignment is a valid kscale target too.
        GroupAssignment start = random.nextBoolean() ? oursFresh : theirsFresh;
        ours.apply(start);
        theirs.apply(start);
        if (join) {
            ours.member(changed, subscriptions.get(changed));
            theirs.member(changed, subscriptions.get(changed));
        } else {
            ours.leave(changed);
            theirs.leave(changed);
        }
        GroupAssignment oursAfter = assign(ours, store);
        GroupAssignment theirsAfter = uniform.assign(theirs.spec(), theirs.describer());
        ServerChecks.owners(ours, oursAfter);
        String outcome = String.format("kscale moved %d, spread %d; uniform moved %d, spread %d; starting from %s's; %s",
                ServerChecks.moved(ours, oursAfter), spread(ours, oursAfter), ServerChecks.moved(theirs, theirsAfter),
                spread(theirs, theirsAfter), start == oursFresh ? "kscale" : "uniform", input);
        assertThat(spread(ours, oursAfter)).as("spread after the change: %s", outcome)
                .isLessThanOrEqualTo(spread(theirs, theirsAfter));
        int theirMoves = ServerChecks.moved(theirs, theirsAfter);
        if (spread(ours, oursAfter) < spread(theirs, theirsAfter)) {
            // Only with different topics: kscale reaches the least spread, uniform may stop above it,
            // and the chain that narrows it moves partitions uniform keeps (see the example below).
            assertThat(heterogeneous).as("better balanced than uniform with the same topics: %s", outcome).isTrue();
            return;
        }
        int slack = heterogeneous ? EQUAL_SPREAD_SLACK : 0;
        assertThat(ServerChecks.moved(ours, oursAfter)).as("partitions moved (slack %d): %s", slack, outcome)
                .isLessThanOrEqualTo(theirMoves + slack);
    }

    /**
     * The minimal case where reaching the least spread costs a move uniform does not make: A reads
     * x and y, B reads y and z, C reads z, E reads y; E leaves. Both put E's y-0 on A (least loaded
     * of y's readers, A first on a tie): 3/2/1, where no direct move helps (B + 1 is not below A,
     * C + 1 not below B). Uniform stops there (spread 2, nothing moved); kscale shifts y-0 to B
     * and one of B's z to C (spread 0, one partition moved).
     */
    @Test
    void shouldMoveAPartitionUniformKeepsOnlyToReachTheLeastSpread() {
        Uuid x = new Uuid(1, 1);
        Uuid y = new Uuid(1, 2);
        Uuid z = new Uuid(1, 3);
        TestGroup ours = new TestGroup();
        TestGroup theirs = new TestGroup();
        for (TestGroup group : List.of(ours, theirs)) {
            group.topic(x, 2).topic(y, 1).topic(z, 3)
                    .member("a", x, y).member("b", y, z).member("c", z).member("e", y)
                    .target("a", target(x, 0, 1)).target("b", target(z, 0, 1)).target("c", target(z, 2))
                    .target("e", target(y, 0))
                    .leave("e");
        }
        GroupAssignment oursAfter = assign(ours, new InMemoryTaskCountStore());
        GroupAssignment theirsAfter = new UniformAssignor().assign(theirs.spec(), theirs.describer());

        assertThat(List.of(ServerChecks.moved(theirs, theirsAfter), spread(theirs, theirsAfter))).containsExactly(0, 2);
        assertThat(List.of(ServerChecks.moved(ours, oursAfter), spread(ours, oursAfter))).containsExactly(1, 0);
    }

    /** Unmodifiable, as the coordinator's (Kafka's uniform checks that it is). */
    private static Map<Uuid, Set<Integer>> target(Uuid topic, Integer... partitions) {
        return Collections.unmodifiableMap(new HashMap<>(Map.of(topic, Collections.unmodifiableSet(new TreeSet<>(List.of(partitions))))));
    }

    private static GroupAssignment assign(TestGroup group, TaskCountStore store) {
        return new ServerAssignmentBuilder(group.spec(), group.describer(), store, new TaskCountLog(),
                new ServerAssignorMetrics(() -> 0)).build();
    }

    private static List<Uuid> subset(SplittableRandom random, List<Uuid> topics) {
        List<Uuid> subset = new ArrayList<>();
        while (subset.isEmpty()) {
            topics.stream().filter(t -> random.nextInt(3) > 0).forEach(subset::add);
        }
        return subset;
    }

    private static List<Uuid> subscribedTopics(Map<String, List<Uuid>> subscriptions, int members) {
        List<Uuid> all = new ArrayList<>();
        for (int m = 0; m < members; m++) {
            subscriptions.get(member(m)).stream().filter(t -> !all.contains(t)).forEach(all::add);
        }
        return all;
    }

    private static String member(int m) {
        return String.format("m%02d", m);
    }

    /** {@code max - min} partitions per member, over every member (each subscribes to an existing topic). */
    static int spread(TestGroup group, GroupAssignment assignment) {
        Map<String, Integer> loads = ServerChecks.loads(group, assignment);
        int max = loads.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        int min = loads.values().stream().mapToInt(Integer::intValue).min().orElse(0);
        return max - min;
    }
}
