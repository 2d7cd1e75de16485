/**
 * {@link io.kscale.assignor.internals.time.Clock}, the clock every adapter and the shared internals
 * read, so that tests can move time by hand. Shared by every adapter; depends on nothing.
 */
package io.kscale.assignor.internals.time;
