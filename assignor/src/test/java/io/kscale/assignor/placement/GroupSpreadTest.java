package io.kscale.assignor.placement;

import static io.kscale.assignor.placement.PlacementFixtures.A;
import static io.kscale.assignor.placement.PlacementFixtures.B;
import static io.kscale.assignor.placement.PlacementFixtures.C;
import static io.kscale.assignor.placement.PlacementFixtures.client;
import static io.kscale.assignor.placement.PlacementFixtures.converge;
import static io.kscale.assignor.placement.PlacementFixtures.place;
import static io.kscale.assignor.placement.PlacementFixtures.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.placement.PlacementFixtures.Round;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Examples of the third rule: each co-location group spread across clients. */
class GroupSpreadTest {

    /** Tasks {@code g0, g1, ...} of group g and {@code h0, h1, ...} of group h. */
    private static List<TaskDescription> twoGroups(int perGroup, boolean stateful) {
        List<TaskDescription> tasks = new ArrayList<>();
        for (String group : List.of("g", "h")) {
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
}
