/**
 * What each member keeps between rebalances, in its own JVM: the layout and follow-up
 * deadline it last received ({@link io.kscale.assignor.internals.member.MemberLayouts}), its
 * stateful tasks and warmups ({@link io.kscale.assignor.internals.member.MemberTaskState}), the
 * early follow-up request. (The watch that closes an assignor with its consumer, shared with the
 * Kafka Streams adapter, is in {@code internals.lifecycle}.)
 */
package io.kscale.assignor.internals.member;
