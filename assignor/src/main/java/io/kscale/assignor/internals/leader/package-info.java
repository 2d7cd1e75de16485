/**
 * What the group leader does in {@code assign()}: it checks every member's subscription against
 * its metadata ({@link io.kscale.assignor.internals.leader.MemberInputs}), decodes every member's
 * report, agrees on one layout (reports, the store, the metadata), keeps tasks on their prior
 * owners, plans warmups for stateful units and aligns racks, then encodes each member's
 * assignment. Entry point: {@link io.kscale.assignor.internals.leader.LeaderAssignment}; should it
 * throw, {@link io.kscale.assignor.internals.leader.FallbackAssignment} still gives the group a
 * valid assignment.
 */
package io.kscale.assignor.internals.leader;
