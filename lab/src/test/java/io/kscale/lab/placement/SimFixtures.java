package io.kscale.lab.placement;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/** Small hand-checkable worlds and assignors shared by the placement tests. */
final class SimFixtures {

    /** Streams' defaults: acceptable lag 10,000, 2 warmups, no standby, probing every 600 s. */
    static final SimSettings SETTINGS = new SimSettings(10_000, 2, 0, Duration.ofSeconds(600));
    static final long RATE = 10_000;
    static final SimClient FIRST = new SimClient("c01", 1, RATE);
    static final SimClient SECOND = new SimClient("c02", 1, RATE);

    private SimFixtures() {
    }

    /** Two stateful tasks of the given size that receive no writes; c01 runs both; c02 joins. */
    static PlacementScenario secondClientJoins(long stateRecords) {
        return secondClientJoins(2, stateRecords);
    }

    /** Stateful tasks of the given size that receive no writes; c01 runs them all; c02 joins. */
    static PlacementScenario secondClientJoins(int taskCount, long stateRecords) {
        List<SimTask> tasks = new java.util.ArrayList<>();
        for (int p = 0; p < taskCount; p++) {
            tasks.add(SimTask.stateful(0, p, stateRecords, 0));
        }
        return new PlacementScenario("join", 0, tasks, List.of(FIRST), List.of(MembershipChange.join("c02 joins",
                List.of(SECOND))), SETTINGS);
    }

    /** Puts every task active on the last client of the round, nothing else, and never follows up. */
    static final SimAssignor EVERYTHING_ON_THE_NEWEST = new SimAssignor() {
        @Override
        public String name() {
            return "newest";
        }

        @Override
        public RoundDecision assign(RoundInput input) {
            Map<String, Copies> copies = new TreeMap<>();
            input.clients().forEach(client -> copies.put(client.id(), Copies.NONE));
            Set<String> all = new java.util.TreeSet<>();
            input.tasks().forEach(task -> all.add(task.id()));
            copies.put(input.clients().get(input.clients().size() - 1).id(), new Copies(all, Set.of(), Set.of()));
            return new RoundDecision(copies, Optional.empty());
        }
    };

    static Copies active(String... tasks) {
        return new Copies(Set.of(tasks), Set.of(), Set.of());
    }

    static Copies warmup(String... tasks) {
        return new Copies(Set.of(), Set.of(), Set.of(tasks));
    }

    static RoundDecision decision(String client1, Copies copies1, String client2, Copies copies2) {
        return new RoundDecision(Map.of(client1, copies1, client2, copies2), Optional.empty());
    }
}
