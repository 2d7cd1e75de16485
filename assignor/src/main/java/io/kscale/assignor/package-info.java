/**
 * Consumer-group assignment that keeps every key on its consumer when a topic's partition count
 * is multiplied (Samza SEP-5) and keeps a task on its caught-up prior owner while a new owner
 * warms up (KIP-441).
 *
 * <p>The pure placement engine that decides active, standby and warmup tasks lives in
 * {@code io.kscale.assignor.placement} (issue 5). Not built yet: {@code KeyPreservingAssignor}
 * (issue 4), which will land in this package and call the engine.
 */
package io.kscale.assignor;
