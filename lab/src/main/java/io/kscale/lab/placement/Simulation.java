package io.kscale.lab.placement;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * The round loop: plays a scenario against one assignor in its own {@link World}.
 *
 * <p>Start: the assignor assigns the starting clients until its answer repeats, every copy
 * caught up at once (not measured). Then, per membership change: a minute passes, the change
 * happens, and a rebalance follows at once; the next rebalance comes when the assignor asks for
 * it (kscale: its follow-up delay; Kafka's: the probing interval, when it reports that a probing
 * rebalance is needed), in whole seconds, at least one. The phase ends when the assignor wants no
 * follow-up and every copy has caught up, or after {@value #MAX_ROUNDS} rebalances or
 * {@link #MAX_PHASE} of simulated time.
 */
public final class Simulation {

    /** Rebalances per phase before the simulation gives up on it. */
    public static final int MAX_ROUNDS = 200;
    /** Simulated time per phase before the simulation gives up on it. */
    public static final Duration MAX_PHASE = Duration.ofDays(2);
    /** Time between the end of one phase and the next membership change. */
    public static final Duration PAUSE = Duration.ofMinutes(1);
    private static final int MAX_START_ROUNDS = 20;

    private Simulation() {
    }

    /**
     * Plays a scenario.
     *
     * @return one result per membership change, in order
     * @throws IllegalStateException if the assignor returns an invalid assignment (the message says where)
     */
    public static List<PhaseResult> run(PlacementScenario scenario, SimAssignor assignor) {
        World world = new World(scenario.tasks());
        assignor.newGroup();
        scenario.initialClients().forEach(world::join);
        settleStart(world, assignor, scenario);
        List<PhaseResult> results = new ArrayList<>();
        for (MembershipChange change : scenario.changes()) {
            world.advance(PAUSE.toSeconds());
            results.add(phase(world, assignor, scenario, change));
        }
        return results;
    }

    private static void settleStart(World world, SimAssignor assignor, PlacementScenario scenario) {
        Map<String, Copies> previous = null;
        for (int round = 1; round <= MAX_START_ROUNDS; round++) {
            RoundDecision decision = assign(world, assignor, scenario, "start", round);
            world.catchUpAssigned();
            if (decision.followUp().isEmpty() && world.assignment().equals(previous)) {
                return;
            }
            previous = world.assignment();
        }
        throw new IllegalStateException(assignor.name() + " did not settle on the starting clients of " + scenario.name()
                + " within " + MAX_START_ROUNDS + " rebalances");
    }

    private static PhaseResult phase(World world, SimAssignor assignor, PlacementScenario scenario, MembershipChange change) {
        World.Totals before = world.totals();
        long start = world.now();
        change.leaving().forEach(world::leave);
        change.joining().forEach(world::join);
        List<Map<String, Copies>> actives = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        Optional<Duration> followUp;
        do {
            RoundDecision decision = assign(world, assignor, scenario, change.label(), actives.size() + 1);
            actives.add(activesOnly(world.assignment()));
            times.add(world.now() - start);
            followUp = decision.followUp();
            if (followUp.isPresent()) {
                world.advance(Math.max(1, ceilSeconds(followUp.get())));
            }
        } while (followUp.isPresent() && actives.size() < MAX_ROUNDS && world.now() - start < MAX_PHASE.toSeconds());
        boolean quiet = followUp.isEmpty();
        while (!world.settled() && world.now() - start < MAX_PHASE.toSeconds()) {
            world.step();
        }
        boolean settled = quiet && world.settled();
        World.Totals totals = world.totals().since(before);
        int idle = 0;
        for (int round = 1; round < actives.size(); round++) {
            if (actives.get(round).equals(actives.get(round - 1))) {
                idle++;
            }
        }
        String kind = change.kind() + (scenario.settings().standbys() > 0 ? ", standby" : "");
        int last = actives.size() - 1;
        if (!settled || !Balance.isBalanced(actives.get(last), world.clients())) {
            return new PhaseResult(scenario.name(), scenario.seed(), change.label(), kind, assignor.name(), actives.size(), idle,
                    OptionalInt.empty(), OptionalLong.empty(), totals, settled);
        }
        int first = last;
        while (first > 0 && actives.get(first - 1).equals(actives.get(last))) {
            first--;
        }
        return new PhaseResult(scenario.name(), scenario.seed(), change.label(), kind, assignor.name(), actives.size(), idle,
                OptionalInt.of(first + 1), OptionalLong.of(times.get(first)), totals, true);
    }

    private static RoundDecision assign(World world, SimAssignor assignor, PlacementScenario scenario, String phase,
                                        int round) {
        RoundInput input = world.view(scenario.settings());
        RoundDecision decision = assignor.assign(input);
        try {
            world.apply(decision, scenario.settings().acceptableRecoveryLag());
        } catch (IllegalStateException e) {
            throw new IllegalStateException(assignor.name() + " returned an invalid assignment in " + scenario.name()
                    + ", phase '" + phase + "', rebalance " + round + ": " + e.getMessage() + "; input: " + input, e);
        }
        return decision;
    }

    private static Map<String, Copies> activesOnly(Map<String, Copies> assignment) {
        Map<String, Copies> actives = new TreeMap<>();
        assignment.forEach((client, copies) -> actives.put(client, new Copies(copies.active(), Set.of(),
                Set.of())));
        return actives;
    }

    private static long ceilSeconds(Duration duration) {
        long seconds = duration.toSeconds();
        return duration.equals(Duration.ofSeconds(seconds)) ? seconds : seconds + 1;
    }
}
