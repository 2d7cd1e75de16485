/**
 * The expansion barrier's per-task merge: the partitions of one task are delivered in
 * timestamp order across an expansion ({@link io.kscale.assignor.internals.barrier.TaskMerge}),
 * and a record is released early only for a cause that
 * {@link io.kscale.assignor.internals.barrier.ReleaseCause} names and counts.
 */
package io.kscale.assignor.internals.barrier;
