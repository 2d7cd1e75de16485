/**
 * The layout's copy on a compacted topic, so that a group whose members all restart still
 * knows its task counts: {@link io.kscale.assignor.internals.store.KafkaLayoutStore} does the I/O
 * with the consumer's own security settings, {@link io.kscale.assignor.internals.store.LayoutPersistence}
 * keeps it off {@code assign()}'s critical path and within its time budget.
 */
package io.kscale.assignor.internals.store;
