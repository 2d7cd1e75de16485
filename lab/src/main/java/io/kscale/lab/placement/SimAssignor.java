package io.kscale.lab.placement;

/**
 * A task assignor as the simulation drives it: one call per rebalance. Only what a real group
 * leader could keep between rebalances may carry over (kscale's restore-rate history lives in the
 * leader's JVM); {@link #newGroup} forgets it before each run.
 */
public interface SimAssignor {

    /** Forgets whatever the group leader kept: the next call is the first rebalance of a new group. */
    default void newGroup() {
    }

    /** @return the name the report and the command line use */
    String name();

    /**
     * Assigns the tasks of a round.
     *
     * @param input the clients, their prior tasks and lags, and the settings
     * @return every task active on exactly one client of the input, plus standby and warmup copies
     */
    RoundDecision assign(RoundInput input);
}
