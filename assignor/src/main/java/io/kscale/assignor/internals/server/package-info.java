/**
 * The broker-side (KIP-848) adapter: {@code KeyPreservingServerAssignor} runs inside the group
 * coordinator, sees topic ids and member subscriptions only, and keeps each topic's task count T
 * in a {@link io.kscale.assignor.internals.server.TaskCountStore}. It depends on the pure layout
 * core and the shared internals, never on the consumer (classic) adapter.
 */
package io.kscale.assignor.internals.server;
