package io.kscale.lab.placement;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An assignor's answer at one rebalance.
 *
 * @param clients the copies of every client of the round, by id
 * @param followUp when to rebalance again, if the assignor wants that
 */
public record RoundDecision(Map<String, Copies> clients, Optional<Duration> followUp) {

    public RoundDecision {
        clients = new TreeMap<>(clients);
    }
}
