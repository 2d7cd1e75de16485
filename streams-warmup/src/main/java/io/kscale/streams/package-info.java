/**
 * Kafka Streams task placement ({@code task.assignor.class}, KIP-924) with warmups and
 * prior-owner retention, built on the placement engine of {@code io.kscale.assignor.internals.placement}.
 *
 * <p>Entry point: {@link io.kscale.streams.WarmupTaskAssignor}. Everything else in the package is
 * package-private: the translation of Streams' {@code ApplicationState} into a placement request
 * and of the placement back into a {@code TaskAssignment}, and the safe assignment used if a
 * result ever fails Streams' validation.
 */
package io.kscale.streams;
