package io.kscale.lab.placement;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One simulated run: the tasks, the clients at the start, and the membership changes, each of
 * which opens a phase. Each assignor starts from its own settled assignment of the starting
 * clients (every copy caught up), then the changes happen one after the other: a change waits
 * until the previous phase has settled (no follow-up wanted, every copy caught up) and a minute
 * has passed.
 *
 * @param name short name for the command line and the report
 * @param seed the seed it was drawn from
 * @param tasks the tasks
 * @param initialClients the clients at the start
 * @param changes the membership changes, in order
 * @param settings what both assignors are told
 */
public record PlacementScenario(String name, long seed, List<SimTask> tasks, List<SimClient> initialClients,
                                List<MembershipChange> changes, SimSettings settings) {

    public PlacementScenario {
        tasks = List.copyOf(tasks);
        initialClients = List.copyOf(initialClients);
        changes = List.copyOf(changes);
        Set<String> ids = new HashSet<>();
        for (SimTask task : tasks) {
            if (!ids.add(task.id())) {
                throw new IllegalArgumentException("scenario " + name + " has task " + task.id() + " twice");
            }
        }
    }
}
