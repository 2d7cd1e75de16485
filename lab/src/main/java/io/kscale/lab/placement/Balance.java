package io.kscale.lab.placement;

import java.util.Map;

/**
 * The one definition of balance the report applies to every assignor: the active tasks per
 * thread of the busiest and the idlest client differ by at most one. That is the "balance
 * factor" of 1 that Kafka Streams' HighAvailabilityTaskAssignor used to aim for (KIP-441), and a
 * state both assignors accept by their own rules. Every task counts as one, as that assignor
 * weighs them.
 *
 * <p>Example, 32 tasks on capacities 1, 1, 4, 3, 3: counts 2, 2, 11, 8, 9 are balanced (2 to 3
 * tasks per thread); counts 4, 2, 10, 8, 8 are not (2 to 4).
 */
public final class Balance {

    private Balance() {
    }

    /**
     * @param assignment copies per client in the group
     * @param clients the clients in the group, by id
     * @return whether active tasks per thread differ by at most one across the clients
     */
    public static boolean isBalanced(Map<String, Copies> assignment, Map<String, SimClient> clients) {
        for (SimClient busier : clients.values()) {
            for (SimClient idler : clients.values()) {
                // n_a / k_a - n_b / k_b <= 1, in integers
                long difference = count(assignment, busier) * idler.capacity() - count(assignment, idler) * busier.capacity();
                if (difference > (long) busier.capacity() * idler.capacity()) {
                    return false;
                }
            }
        }
        return true;
    }

    private static long count(Map<String, Copies> assignment, SimClient client) {
        return assignment.getOrDefault(client.id(), Copies.NONE).active().size();
    }
}
