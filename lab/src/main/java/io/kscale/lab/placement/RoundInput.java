package io.kscale.lab.placement;

import java.util.List;

/**
 * Everything an assignor sees at one rebalance.
 *
 * @param tasks every task, in scenario order
 * @param clients the clients in the group, in id order
 * @param settings the shared settings
 * @param slowestRestoreRate the slowest restore rate among the clients, in records per second:
 *                           the one number an operator could configure as a restore-rate hint
 * @param nowMs the group leader's clock, in ms: the simulated time of the rebalance (every assignor
 *              gets it; only kscale's restore-rate learner reads it)
 */
public record RoundInput(List<SimTask> tasks, List<ClientView> clients, SimSettings settings, long slowestRestoreRate,
                         long nowMs) {

    public RoundInput {
        tasks = List.copyOf(tasks);
        clients = List.copyOf(clients);
    }
}
