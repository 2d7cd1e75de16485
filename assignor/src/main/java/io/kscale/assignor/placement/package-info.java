/**
 * The placement engine: given tasks, clients with their prior tasks and lags, and settings, it
 * decides each client's active, standby and warmup tasks and when to rebalance again. Pure Java,
 * no Kafka types: the consumer assignor and the Kafka Streams assignor translate their own types
 * into a {@link io.kscale.assignor.placement.PlacementRequest} and back.
 *
 * <p>Entry point: {@link io.kscale.assignor.placement.PlacementEngine#place(PlacementRequest)}.
 * Input: {@link io.kscale.assignor.placement.TaskDescription},
 * {@link io.kscale.assignor.placement.ClientDescription},
 * {@link io.kscale.assignor.placement.PlacementSettings}. Output:
 * {@link io.kscale.assignor.placement.Placement}, {@link io.kscale.assignor.placement.ClientPlacement},
 * {@link io.kscale.assignor.placement.FollowUp}, {@link io.kscale.assignor.placement.PlacementOutcome}.
 * A build check keeps {@code org.apache.kafka} out of this package.
 */
package io.kscale.assignor.placement;
