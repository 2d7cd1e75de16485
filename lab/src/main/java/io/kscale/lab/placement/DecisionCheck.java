package io.kscale.lab.placement;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks that an assignor's decision is a valid assignment of the group before the world installs
 * it: only clients of the group, every task active exactly once, one copy of a task per client,
 * copies of stateful tasks only. A simulation that meets an invalid decision stops and says where.
 */
final class DecisionCheck {

    private DecisionCheck() {
    }

    /**
     * @param decision an assignor's decision
     * @param clients ids of the clients in the group
     * @param tasks every task
     * @throws IllegalStateException naming what is wrong
     */
    static void check(RoundDecision decision, Set<String> clients, List<SimTask> tasks) {
        Map<String, SimTask> byId = new HashMap<>();
        tasks.forEach(task -> byId.put(task.id(), task));
        Map<String, String> owners = new HashMap<>();
        for (Map.Entry<String, Copies> entry : decision.clients().entrySet()) {
            String client = entry.getKey();
            Copies copies = entry.getValue();
            if (!clients.contains(client)) {
                throw new IllegalStateException("the decision assigns to " + client + ", which is not in the group");
            }
            for (String task : copies.active()) {
                known(byId, task);
                String other = owners.put(task, client);
                if (other != null) {
                    throw new IllegalStateException("task " + task + " is active on " + other + " and " + client);
                }
                if (copies.holdsCopy(task)) {
                    throw new IllegalStateException(client + " holds task " + task + " as active and as a copy");
                }
            }
            for (Set<String> role : List.of(copies.standby(), copies.warmup())) {
                for (String task : role) {
                    if (!known(byId, task).stateful()) {
                        throw new IllegalStateException(client + " holds a copy of stateless task " + task);
                    }
                }
            }
            Set<String> both = new HashSet<>(copies.standby());
            both.retainAll(copies.warmup());
            if (!both.isEmpty()) {
                throw new IllegalStateException(client + " holds " + both + " as standby and as warmup");
            }
        }
        for (SimTask task : tasks) {
            if (!owners.containsKey(task.id())) {
                throw new IllegalStateException("task " + task.id() + " is active nowhere");
            }
        }
    }

    private static SimTask known(Map<String, SimTask> tasks, String task) {
        SimTask known = tasks.get(task);
        if (known == null) {
            throw new IllegalStateException("unknown task " + task);
        }
        return known;
    }
}
