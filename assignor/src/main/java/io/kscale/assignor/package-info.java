/**
 * Consumer-group assignment that keeps every key on its consumer when a topic's partition count
 * is multiplied (Samza SEP-5), and keeps each key's records in order across that expansion.
 *
 * <p>The public API is this package: {@link io.kscale.assignor.KeyPreservingAssignor} (set it
 * with {@code partition.assignment.strategy}), its settings
 * {@link io.kscale.assignor.KeyPreservingAssignorConfig}, the member-side
 * {@link io.kscale.assignor.ExpansionBarrier} for the poll loop with
 * {@link io.kscale.assignor.ExpansionBarrierConfig}, and for stateful consumers
 * {@link io.kscale.assignor.TaskStateListener} with {@link io.kscale.assignor.TaskRef} and
 * {@link io.kscale.assignor.FollowUpRebalance}.
 *
 * <p>Everything else lives in {@code io.kscale.assignor.internals} and may change in any
 * release, as Kafka's own {@code internals} packages do. Its packages, by what each part is:
 * {@code layout} (the task layout math, pure), {@code placement} (the KIP-441 placement engine,
 * pure, shared with the Kafka Streams assignor), {@code leader} (what the group leader does in
 * {@code assign()}), {@code wire} (the subscription and assignment payloads), {@code store} (the
 * layout's copy on a compacted topic), {@code member} (what each member keeps between
 * rebalances), {@code barrier} (the expansion barrier's per-task merge) and {@code metrics}.
 */
package io.kscale.assignor;
