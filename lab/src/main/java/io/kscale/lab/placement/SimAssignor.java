package io.kscale.lab.placement;

/** A task assignor as the simulation drives it: one call per rebalance, no memory between calls. */
public interface SimAssignor {

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
