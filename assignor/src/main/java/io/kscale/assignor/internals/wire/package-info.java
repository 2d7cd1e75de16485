/**
 * The payloads the assignor puts on the wire: what each member reports in its subscription
 * ({@link io.kscale.assignor.internals.wire.MemberReport}) and what the leader sends back in each
 * assignment ({@link io.kscale.assignor.internals.wire.AssignmentInfo}). Everything decoded here
 * comes from other members and is untrusted: a malformed or foreign payload decodes to empty,
 * never to an exception.
 */
package io.kscale.assignor.internals.wire;
