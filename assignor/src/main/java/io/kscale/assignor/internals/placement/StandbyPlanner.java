package io.kscale.assignor.internals.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Places {@code standbyCount} standby copies of every stateful task on clients other than its
 * active one, so a failover finds a caught-up copy.
 *
 * <p>For each stateful task in id order, each copy goes to the best client that does not hold
 * the task yet, ranked by:
 * <ol>
 *   <li>below its standby quota: the copies it may hold in proportion to its capacity,
 *       rounded up (so state preference cannot pile every standby onto a former owner);</li>
 *   <li>caught up, then smaller lag: it already holds state, so nothing is restored;</li>
 *   <li>a rack not used yet by the task's active and standbys, when racks are known;</li>
 *   <li>a prior standby of the task (sticky: equally good answers do not flap);</li>
 *   <li>the target client of a pending move of the task: the copy doubles as its warmup and
 *       spends no warmup budget;</li>
 *   <li>fewer standbys per capacity, then the lowest id.</li>
 * </ol>
 * When fewer clients than {@code standbyCount + 1} have capacity, the copies that do not fit are
 * counted in {@link Placement#missingStandbys()}.
 *
 * <p>Example, one standby, racks r1 (A, B) and r2 (C): task t is active on A; B has a caught-up
 * copy, C has none. Both are below quota; B wins on state. Had C a caught-up copy too, C would
 * win on rack.
 */
public final class StandbyPlanner {

    /** By task: its standby clients, in the order they were chosen. */
    final int[][] standbys;
    int missing;

    private final Model model;
    private final CaughtUpClients caught;
    private final int[] clients;
    private final int[] count;
    private final long[] quota;
    private final int[] pendingTarget;

    private StandbyPlanner(Model model, CaughtUpClients caught, ActivePlanner actives) {
        this.model = model;
        this.caught = caught;
        this.clients = java.util.stream.IntStream.range(0, model.clientCount()).filter(model::eligible).toArray();
        this.standbys = new int[model.taskCount()][];
        this.count = new int[model.clientCount()];
        this.quota = quotas(model, clients);
        this.pendingTarget = new int[model.taskCount()];
        Arrays.fill(pendingTarget, -1);
        actives.pending.forEach(move -> pendingTarget[move.task] = move.target);
    }

    static StandbyPlanner plan(Model model, CaughtUpClients caught, ActivePlanner actives) {
        StandbyPlanner plan = new StandbyPlanner(model, caught, actives);
        for (int t = 0; t < model.taskCount(); t++) {
            plan.standbys[t] = model.stateful[t] ? plan.place(t, actives.active[t]) : new int[0];
        }
        return plan;
    }

    private static long[] quotas(Model model, int[] clients) {
        int perTask = Math.max(0, Math.min(model.settings.standbyCount(), clients.length - 1));
        long statefulTasks = 0;
        for (boolean stateful : model.stateful) {
            statefulTasks += stateful ? 1 : 0;
        }
        long slots = statefulTasks * perTask;
        long totalCapacity = Arrays.stream(clients).mapToLong(c -> model.capacity[c]).sum();
        long[] quota = new long[model.clientCount()];
        for (int c : clients) {
            // ceil(slots * capacity / totalCapacity); slots and capacities are small enough not to overflow
            quota[c] = (slots * model.capacity[c] + totalCapacity - 1) / Math.max(1, totalCapacity);
        }
        return quota;
    }

    private int[] place(int task, int active) {
        List<Integer> chosen = new ArrayList<>();
        Set<String> racks = new HashSet<>();
        addRack(racks, active);
        for (int slot = 0; slot < model.settings.standbyCount(); slot++) {
            int best = -1;
            for (int c : clients) {
                if (c != active && !chosen.contains(c) && (best < 0 || compare(task, c, best, racks) < 0)) {
                    best = c;
                }
            }
            if (best < 0) {
                missing += model.settings.standbyCount() - slot;
                break;
            }
            chosen.add(best);
            count[best]++;
            addRack(racks, best);
        }
        return chosen.stream().mapToInt(Integer::intValue).toArray();
    }

    private void addRack(Set<String> racks, int client) {
        if (model.rack[client] != null) {
            racks.add(model.rack[client]);
        }
    }

    private int compare(int task, int c1, int c2, Set<String> racks) {
        int order = Boolean.compare(count[c2] < quota[c2], count[c1] < quota[c1]);
        if (order == 0) {
            order = Boolean.compare(caught.isCaughtUp(task, c2), caught.isCaughtUp(task, c1));
        }
        if (order == 0) {
            order = Long.compare(caught.lag(task, c1), caught.lag(task, c2));
        }
        if (order == 0) {
            order = Boolean.compare(isNewRack(c2, racks), isNewRack(c1, racks));
        }
        if (order == 0) {
            order = Boolean.compare(model.isPriorStandby(task, c2), model.isPriorStandby(task, c1));
        }
        if (order == 0) {
            order = Boolean.compare(pendingTarget[task] == c2, pendingTarget[task] == c1);
        }
        if (order == 0) {
            order = Ratios.compare(count[c1], model.capacity[c1], count[c2], model.capacity[c2]);
        }
        return order != 0 ? order : Integer.compare(c1, c2);
    }

    private boolean isNewRack(int client, Set<String> racks) {
        return model.rack[client] != null && !racks.contains(model.rack[client]);
    }
}
