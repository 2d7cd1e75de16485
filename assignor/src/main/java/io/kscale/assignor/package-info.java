/**
 * Consumer-group assignment that keeps every key on its consumer when a topic's partition count
 * is multiplied (Samza SEP-5) and keeps a task on its caught-up prior owner while a new owner
 * warms up (KIP-441).
 *
 * <p>Not built yet: {@code KeyPreservingAssignor} (issue 4) and the placement engine in
 * {@code io.kscale.assignor.placement} (issue 5) land here.
 */
package io.kscale.assignor;
