package io.kscale.assignor.internals.placement;

import static io.kscale.assignor.internals.placement.PlacementFixtures.activeOwners;
import static io.kscale.assignor.internals.placement.PlacementFixtures.converge;
import static io.kscale.assignor.internals.placement.PlacementFixtures.place;
import static io.kscale.assignor.internals.placement.PlacementFixtures.totalMoves;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.Property;
import io.kscale.assignor.Seeds;
import io.kscale.assignor.internals.placement.PlacementFixtures.Round;
import io.kscale.assignor.internals.placement.RandomRequests.Shape;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * Properties of the engine over random requests ({@link RandomRequests}): the hard constraints
 * always hold, the output depends only on the request, repeated rounds converge within the
 * stated bound, and a joining client moves only its share. Each try draws its request from its
 * seed ({@link Seeds}); a failure prints the seed, which replays it, and the arguments, which
 * rebuild the request: {@code RandomRequests.generate(seed, clients, tasks, settings, shape)}.
 */
class PlacementPropertyTest {

    private static PlacementSettings settings(SplittableRandom random, int minWarmups) {
        return PlacementSettings.builder().acceptableRecoveryLag(Seeds.pick(random, 0L, 100L, 10_000L))
                .maxWarmups(Seeds.intBetween(random, minWarmups, 4)).standbyCount(Seeds.intBetween(random, 0, 3))
                .restoreRecordsPerSecond(Seeds.pick(random, 0L, 1_000L)).probingInterval(Duration.ofMinutes(1)).build();
    }

    /** The arguments of one try: {@code RandomRequests.generate(seed, clients, tasks, settings, shape)} rebuilds its request. */
    private static final class Sample {
        final long seed;
        final int clients;
        final int tasks;
        final PlacementSettings settings;

        Sample(SplittableRandom random, int minClients, int maxClients, int minWarmups) {
            seed = Seeds.anyLong(random);
            clients = Seeds.intBetween(random, minClients, maxClients);
            tasks = Seeds.intBetween(random, 0, 30);
            settings = settings(random, minWarmups);
            Seeds.sample("RandomRequests.generate(%dL, %d, %d, %s, shape)", seed, clients, tasks, settings);
        }

        PlacementRequest request(Shape shape) {
            return RandomRequests.generate(seed, clients, tasks, settings, shape);
        }
    }

    @Property
    Stream<DynamicTest> constraintsAlwaysHold() {
        return Seeds.tries(400, random -> place(new Sample(random, 0, 7, 0).request(Shape.ANYTHING)));
    }

    @Property
    Stream<DynamicTest> theSameRequestGivesTheSamePlacementWhateverTheInputOrder() {
        return Seeds.tries(200, random -> {
            Sample sample = new Sample(random, 0, 7, 0);
            PlacementRequest request = sample.request(Shape.ANYTHING);
            List<TaskDescription> shuffledTasks = new ArrayList<>(request.tasks());
            List<ClientDescription> shuffledClients = new ArrayList<>(request.clients());
            Collections.shuffle(shuffledTasks, new java.util.Random(sample.seed + 1));
            Collections.shuffle(shuffledClients, new java.util.Random(sample.seed + 2));

            Placement first = place(request);

            assertThat(place(request)).isEqualTo(first);
            assertThat(place(PlacementRequest.of(shuffledTasks, shuffledClients, sample.settings))).isEqualTo(first);
        });
    }

    /**
     * The bound of the engine's class comment: tasks of equal weight (any capacities, groups,
     * racks, partial lags, owners that left), {@code m} pending moves after the first placement
     * and {@code w >= 1} warmups: at most {@code ceil(m / w) + 2} placements until one returns
     * its own input, which is then balanced, and the same again when repeated; one more when the
     * first placement runs a task active on a client that must restore it (an orphan), whose
     * warmups then wait a round.
     */
    @Property
    Stream<DynamicTest> convergesWithinTheBoundWhenWeightsAreEqual() {
        return Seeds.tries(300, random -> {
            Sample sample = new Sample(random, 1, 7, 1);
            PlacementRequest request = sample.request(Shape.EQUAL_WEIGHTS);
            Placement first = place(request);

            assertConvergesBalancedAndStable(request, ceilDiv(first.pendingMoves(), sample.settings.maxWarmups()) + 2
                    + (restoresAnActive(request, first) ? 1 : 0));
        });
    }

    /**
     * Unequal weights take the greedy path ({@code GreedyBalancer}), which may re-plan after
     * moves complete: {@code ceil(m / w) + 2} is exceeded by 1 to 3 placements in about 1% of
     * random requests. Checked here: it still converges, within twice that. A guard against
     * livelock, not a proved bound: it caught one (seed -3271424708107532334, a caught-up warmup
     * abandoned on every re-plan, pinned by {@code PlacementEngineTest}), about 1 in 15,000 random
     * requests before the fix; none in 92,000 after it.
     */
    @Property
    Stream<DynamicTest> convergesWhenWeightsDifferToo() {
        return Seeds.tries(300, random -> {
            Sample sample = new Sample(random, 1, 7, 1);
            PlacementRequest request = sample.request(Shape.ANYTHING);
            int pending = place(request).pendingMoves();

            assertConvergesBalancedAndStable(request, 2 * (ceilDiv(pending, sample.settings.maxWarmups()) + 2));
        });
    }

    private static void assertConvergesBalancedAndStable(PlacementRequest request, int bound) {
        List<Round> rounds = converge(request, bound);

        Round last = rounds.get(rounds.size() - 1);
        boolean anyCapacity = request.clients().stream().anyMatch(client -> client.capacity() > 0);
        assertThat(last.placement().outcome())
                .isEqualTo(anyCapacity || request.tasks().isEmpty() ? PlacementOutcome.COMPLETE : PlacementOutcome.NO_CAPACITY);
        PlacementInvariants.assertBalanced(last.request(), last.placement());
        assertThat(place(last.request())).as("stable under a repeated identical input").isEqualTo(last.placement());
    }

    /**
     * From a balanced, stable placement of {@code n} clients (weight 1, capacity 1), one client
     * joins. Until the next stable placement, stateful tasks move no more than the newcomer's
     * share {@code s = ceil(stateful / (n + 1))}, each once. Stateless tasks move their share
     * {@code ceil(stateless / (n + 1))}, plus at most two moves per stateful task that waits for
     * its warmup: one to even the load meanwhile, one back when the stateful task arrives (even
     * load ranks above fewest movements).
     */
    @Property
    Stream<DynamicTest> aJoiningClientMovesOnlyItsShare() {
        return Seeds.tries(200, random -> movesOnlyItsShare(new Sample(random, 1, 6, 1)));
    }

    private static void movesOnlyItsShare(Sample sample) {
        int clients = sample.clients;
        int tasks = sample.tasks;
        PlacementSettings settings = sample.settings;
        PlacementRequest start = sample.request(Shape.UNIFORM);
        List<Round> settle = converge(start, 40);
        PlacementRequest stable = settle.get(settle.size() - 1).request();
        List<ClientDescription> withNewcomer = new ArrayList<>(stable.clients());
        withNewcomer.add(ClientDescription.builder("newcomer").build());
        PlacementRequest joined = PlacementRequest.of(stable.tasks(), withNewcomer, settings);

        List<Round> rounds = converge(joined, 40);

        Map<String, String> before = activeOwners(settle.get(settle.size() - 1).placement());
        Set<String> stateful = stable.tasks().stream().filter(TaskDescription::isStateful).map(TaskDescription::id)
                .collect(Collectors.toSet());
        int statefulShare = ceilDiv(stateful.size(), clients + 1);
        int statelessShare = ceilDiv(tasks - stateful.size(), clients + 1);
        int statefulMoves = totalMoves(before, rounds, stateful::contains);
        int statelessMoves = totalMoves(before, rounds, task -> !stateful.contains(task));
        String context = String.format("%d stateful and %d stateless tasks, %d clients", stateful.size(),
                tasks - stateful.size(), clients);
        assertThat(statefulMoves).as("stateful moves, %s", context).isLessThanOrEqualTo(statefulShare);
        assertThat(statelessMoves).as("stateless moves, %s", context)
                .isLessThanOrEqualTo(statelessShare + 2 * Math.min(statefulShare, tasks - stateful.size()));
        PlacementInvariants.assertBalanced(rounds.get(rounds.size() - 1).request(), rounds.get(rounds.size() - 1).placement());
    }

    /** @return whether some client runs an active stateful task it is more than the acceptable lag behind on */
    private static boolean restoresAnActive(PlacementRequest request, Placement placement) {
        Set<String> stateful = request.tasks().stream().filter(TaskDescription::isStateful).map(TaskDescription::id)
                .collect(Collectors.toSet());
        for (ClientDescription client : request.clients()) {
            for (String task : placement.client(client.id()).active()) {
                long lag = client.lag(task).orElse(client.priorActive().contains(task) ? 0 : Long.MAX_VALUE);
                if (stateful.contains(task) && lag > request.settings().acceptableRecoveryLag()) {
                    return true;
                }
            }
        }
        return false;
    }

    private static int ceilDiv(int x, int y) {
        return (x + y - 1) / y;
    }
}
