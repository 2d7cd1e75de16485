package io.kscale.lab.placement;

import java.util.Map;

/**
 * The one definition of balance the report applies to every assignor: each client runs its share
 * of the active tasks by capacity, within one task. With {@code T} active tasks and total
 * capacity {@code C}, a client of capacity {@code k} is balanced when its active count {@code n}
 * satisfies {@code |n - T k / C| < 1}. Example: 10 tasks on capacities 1, 1, 2 (shares 2.5, 2.5, 5):
 * counts 3, 2, 5 are balanced, 4, 2, 4 are not. Every task counts as one, as Kafka Streams'
 * HighAvailabilityTaskAssignor weighs them.
 */
public final class Balance {

    private Balance() {
    }

    /**
     * @param assignment copies per client in the group
     * @param clients the clients in the group, by id
     * @return whether every client's active count is within one task of its share
     */
    public static boolean isBalanced(Map<String, Copies> assignment, Map<String, SimClient> clients) {
        long tasks = assignment.values().stream().mapToLong(copies -> copies.active().size()).sum();
        long capacity = clients.values().stream().mapToLong(SimClient::capacity).sum();
        for (SimClient client : clients.values()) {
            long count = assignment.getOrDefault(client.id(), Copies.NONE).active().size();
            // |count - tasks * k / capacity| < 1, in integers
            if (Math.abs(count * capacity - tasks * client.capacity()) >= capacity) {
                return false;
            }
        }
        return true;
    }
}
