package io.kscale.assignor.internals.placement;

import static io.kscale.assignor.internals.placement.PlacementFixtures.A;
import static io.kscale.assignor.internals.placement.PlacementFixtures.B;
import static io.kscale.assignor.internals.placement.PlacementFixtures.C;
import static io.kscale.assignor.internals.placement.PlacementFixtures.D;
import static io.kscale.assignor.internals.placement.PlacementFixtures.client;
import static io.kscale.assignor.internals.placement.PlacementFixtures.converge;
import static io.kscale.assignor.internals.placement.PlacementFixtures.place;
import static io.kscale.assignor.internals.placement.PlacementFixtures.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.placement.PlacementFixtures.Round;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Examples of the third rule: each co-location group spread across clients. */
class GroupSpreadTest {

    /** Tasks {@code g0, g1, ...} of group g and {@code h0, h1, ...} of group h. */
    private static List<TaskDescription> twoGroups(int perGroup, boolean stateful) {
        return groups(perGroup, stateful, "g", "h");
    }

    /** Tasks {@code <group>0, <group>1, ...} of each named group (one letter each). */
    private static List<TaskDescription> groups(int perGroup, boolean stateful, String... groups) {
        List<TaskDescription> tasks = new ArrayList<>();
        for (String group : groups) {
            for (int i = 0; i < perGroup; i++) {
                String id = group + i;
                tasks.add((stateful ? TaskDescription.stateful(id) : TaskDescription.stateless(id)).inGroup(group));
            }
        }
        return tasks;
    }

    /** @return per client, how many tasks of each group it runs */
    private static Map<String, Map<Character, Integer>> groupCounts(Placement placement) {
        Map<String, Map<Character, Integer>> counts = new TreeMap<>();
        placement.clients().values().forEach(client -> {
            Map<Character, Integer> perGroup = new TreeMap<>();
            client.active().forEach(task -> perGroup.merge(task.charAt(0), 1, Integer::sum));
            counts.put(client.clientId(), perGroup);
        });
        return counts;
    }

    @Test
    void shouldSpreadEachGroupWhenPlacingFromScratch() {
        Placement placement = place(request(twoGroups(6, true), client(A).build(), client(B).build(), client(C).build()));

        groupCounts(placement).forEach((client, counts) ->
                assertThat(counts).as("groups on %s", client).containsEntry('g', 2).containsEntry('h', 2));
    }

    @Test
    void shouldSpreadEachGroupWhenAClientJoins() {
        List<TaskDescription> tasks = twoGroups(4, false);
        Placement placement = place(request(tasks, client(A).priorActive("g0", "g1", "g2", "g3", "h0", "h1", "h2", "h3").build(),
                client(B).build()));

        groupCounts(placement).forEach((client, counts) ->
                assertThat(counts).as("groups on %s", client).containsEntry('g', 2).containsEntry('h', 2));
    }

    @Test
    void shouldSwapTasksToSpreadABalancedButClusteredAssignment() {
        Placement placement = place(request(twoGroups(2, false), client(A).priorActive("g0", "g1").build(),
                client(B).priorActive("h0", "h1").build()));

        assertThat(placement.client(A).active()).containsExactly("g1", "h0");
        assertThat(placement.client(B).active()).containsExactly("g0", "h1");
    }

    @Test
    void shouldNotSwapStatefulTasksForSpreadAlone() {
        // A deliberate limit (see GroupSpread): a swap buys no balance and costs two restores.
        PlacementRequest request = request(twoGroups(2, true), client(A).priorActive("g0", "g1").build(),
                client(B).priorActive("h0", "h1").build());

        Placement placement = place(request);

        assertThat(PlacementFixtures.returnsItsInput(request, placement)).isTrue();
    }

    @Test
    void shouldSpreadStatefulGroupsThroughTheTasksThatBalanceMoves() {
        List<TaskDescription> tasks = twoGroups(4, true);
        PlacementRequest request = request(tasks, client(A).priorActive(PlacementFixtures.ids(tasks)).build(), client(B).build());

        List<Round> rounds = converge(request, 10);

        Placement last = rounds.get(rounds.size() - 1).placement();
        groupCounts(last).forEach((client, counts) ->
                assertThat(counts).as("groups on %s", client).containsEntry('g', 2).containsEntry('h', 2));
    }

    /**
     * Regression (the Streams assignor's convergence test found it): over a scale-out that takes
     * one round per warmup, each round keeps the moves already warmed up and re-plans the rest.
     * With group counts taken once before any move, every task of a group tied, the lowest ids
     * moved first, and the last round ended with a group clustered (A kept h3, k2, k3; D ran g1,
     * g2, h1). Counting groups as moves are picked gives one task of each group per client.
     */
    @Test
    void shouldEndAMultiRoundScaleOutWithEachStatefulGroupSpread() {
        List<TaskDescription> tasks = groups(4, true, "g", "h", "k");
        PlacementSettings oneWarmup = PlacementSettings.builder().maxWarmups(1).build();
        PlacementRequest request = request(tasks, oneWarmup, client(A).priorActive(PlacementFixtures.ids(tasks)).build(),
                client(B).build(), client(C).build(), client(D).build());

        List<Round> rounds = converge(request, 12);

        assertThat(rounds).as("9 moves, 1 warmup: the bound ceil(9 / 1) + 2").hasSizeLessThanOrEqualTo(11);
        groupCounts(rounds.get(rounds.size() - 1).placement()).forEach((client, counts) ->
                assertThat(counts).as("groups on %s", client).containsOnly(Map.entry('g', 1), Map.entry('h', 1),
                        Map.entry('k', 1)));
    }

    /**
     * With standbys, many moves can go to caught-up standbys at once, and any maximum set of them
     * keeps the counts: the engine starts from the set that spreads groups, so a client whose
     * standbys are mostly of one group does not take only that group.
     */
    @Test
    void shouldSpreadGroupsAmongTheMovesToCaughtUpStandbys() {
        List<TaskDescription> tasks = twoGroups(6, true);
        PlacementSettings standbys = PlacementSettings.builder().standbyCount(1).maxWarmups(2).build();
        PlacementRequest request = request(tasks, standbys, client(A).priorActive(PlacementFixtures.ids(tasks)).build(),
                client(B).build(), client(C).build());

        List<Round> rounds = converge(request, 12);

        groupCounts(rounds.get(rounds.size() - 1).placement()).forEach((client, counts) ->
                assertThat(counts).as("groups on %s", client).containsEntry('g', 2).containsEntry('h', 2));
    }
}
