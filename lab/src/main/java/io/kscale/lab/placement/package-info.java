/**
 * {@code kscale-lab placement}: a seeded, discrete-time simulation of rebalance rounds that plays
 * kscale's placement engine and Kafka Streams' HighAvailabilityTaskAssignor on the same scenarios,
 * each in its own simulated world. No cluster, no clock: seconds are simulated.
 *
 * <p>The pieces: {@link io.kscale.lab.placement.PlacementScenarios} draws the
 * {@link io.kscale.lab.placement.PlacementScenario}s (tasks, clients, membership changes);
 * {@link io.kscale.lab.placement.World} holds the clients' local state and restores it at each
 * client's rate; {@link io.kscale.lab.placement.SimAssignor} is what an assignor looks like to the
 * simulation, with one adapter per assignor ({@link io.kscale.lab.placement.KscaleSimAssignor},
 * {@link io.kscale.lab.placement.HighAvailabilitySimAssignor});
 * {@link io.kscale.lab.placement.Simulation} runs the round loop and measures each phase
 * ({@link io.kscale.lab.placement.PhaseResult}); {@link io.kscale.lab.placement.PlacementReport}
 * prints the table and writes the CSV.
 */
package io.kscale.lab.placement;
