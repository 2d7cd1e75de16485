/**
 * Ending, with its client, what a plug-in keeps in static state: Kafka never closes an assignor,
 * so {@link io.kscale.assignor.internals.lifecycle.ConsumerCloseWatch} observes the consumer's
 * close and runs the plug-in's close. Shared by every adapter; depends on none of them.
 */
package io.kscale.assignor.internals.lifecycle;
