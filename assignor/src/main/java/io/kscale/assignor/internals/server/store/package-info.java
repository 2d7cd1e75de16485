/**
 * The broker-side task count store: {@link io.kscale.assignor.internals.server.store.KafkaTaskCountStore}
 * keeps each topic id's T in an append-only topic of the cluster, read and written by clients
 * inside the broker; {@link io.kscale.assignor.internals.server.store.SharedTaskCountStores} gives
 * every assignor instance of a broker JVM the same store. Depends on the pure layout core only.
 */
package io.kscale.assignor.internals.server.store;
