/**
 * Consumer-group assignment that keeps every key on its consumer when a topic's partition count
 * is multiplied (Samza SEP-5), and keeps each key's records in order across that expansion.
 *
 * <p>Public API: {@link io.kscale.assignor.KeyPreservingAssignor} (set it with
 * {@code partition.assignment.strategy}), its settings {@link io.kscale.assignor.KeyPreservingAssignorConfig},
 * the member-side {@link io.kscale.assignor.ExpansionBarrier} for the poll loop, and for
 * stateful consumers {@link io.kscale.assignor.TaskStateListener} with
 * {@link io.kscale.assignor.TaskRef} and {@link io.kscale.assignor.FollowUpRebalance}. The task
 * layout ({@code io.kscale.assignor.layout}) and the placement engine
 * ({@code io.kscale.assignor.placement}, shared with the Kafka Streams assignor) are public for
 * those modules; everything else here is internal.
 */
package io.kscale.assignor;
