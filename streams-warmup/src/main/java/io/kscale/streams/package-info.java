/**
 * Kafka Streams task placement ({@code task.assignor.class}, KIP-924) with warmups and
 * prior-owner retention, built on the placement engine of {@code io.kscale.assignor.placement}.
 *
 * <p>Not built yet: {@code WarmupTaskAssignor} (issue 6) lands here.
 */
package io.kscale.streams;
