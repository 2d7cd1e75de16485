/**
 * The assignor's and the barrier's metrics, on a {@code Metrics} registry of their own
 * (reported to JMX under the consumer's prefix), shared by the users of one client id and closed
 * with the last of them.
 */
package io.kscale.assignor.internals.metrics;
