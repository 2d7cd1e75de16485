package io.kscale.lab.placement;

import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What one assignor did in one phase of a scenario: from a membership change until it wanted no
 * more follow-up rebalances and every copy had caught up.
 *
 * @param scenario the scenario name
 * @param seed the scenario's seed
 * @param phase the membership change's label
 * @param kind what kind of change: join, leave or crash, with ", standby" when the scenario keeps standbys
 * @param assignor the assignor name
 * @param rebalances rebalances in the phase, follow-ups included
 * @param idleRebalances follow-up rebalances that moved no active task
 * @param roundsToBalance the rebalance (1 is the one the change caused) from which the active
 *                        assignment was balanced ({@link Balance}) and never changed again in the
 *                        phase; empty if the phase ended unbalanced or was cut off
 * @param secondsToBalance simulated seconds from the change to that rebalance
 * @param totals downtime, restored records, moves and warmups of the phase
 * @param settled whether the phase settled within the simulation's cut-off
 */
public record PhaseResult(String scenario, long seed, String phase, String kind, String assignor, int rebalances,
                          int idleRebalances, OptionalInt roundsToBalance,
                          OptionalLong secondsToBalance, World.Totals totals, boolean settled) {
}
