/**
 * What the group leader does in {@code assign()}: it decodes every member's report, agrees
 * on one layout (reports, the store, the metadata), keeps tasks on their prior owners, plans
 * warmups for stateful units and aligns racks, then encodes each member's assignment. Entry
 * point: {@link io.kscale.assignor.internals.leader.LeaderAssignment}.
 */
package io.kscale.assignor.internals.leader;
