package io.kscale.lab.placement;

import java.util.Map;
import java.util.Set;

/**
 * What an assignor learns about one client at a rebalance, as Kafka Streams' subscription
 * carries it: capacity, the tasks it held and the lag of its local state per stateful task.
 *
 * @param id the client id
 * @param capacity stream threads
 * @param priorActive tasks it ran as active
 * @param priorStandby tasks it held as standby or warmup
 * @param lags records behind the changelog end, for every stateful task; the whole changelog
 *             where it holds no state (what Streams computes for a task without an offset sum)
 */
public record ClientView(String id, int capacity, Set<String> priorActive, Set<String> priorStandby,
                         Map<String, Long> lags) {

    public ClientView {
        priorActive = Set.copyOf(priorActive);
        priorStandby = Set.copyOf(priorStandby);
        lags = Map.copyOf(lags);
    }
}
