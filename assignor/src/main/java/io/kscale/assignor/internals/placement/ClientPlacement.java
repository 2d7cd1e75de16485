package io.kscale.assignor.internals.placement;

import java.util.Collection;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one client runs after a placement. Immutable. The three sets are disjoint: a client
 * holds at most one copy of a task.
 *
 * <p>A warmup is a standby the client holds only to catch up before the task moves to it; it is
 * dropped once the task has moved. Kafka Streams has no warmup type: its adapter hands
 * {@link #standby()} and {@link #warmup()} together as standbys.
 */
public final class ClientPlacement {

    private final String clientId;
    private final Set<String> active;
    private final Set<String> standby;
    private final Set<String> warmup;

    ClientPlacement(String clientId, Collection<String> active, Collection<String> standby, Collection<String> warmup) {
        this.clientId = clientId;
        this.active = Collections.unmodifiableSet(new TreeSet<>(active));
        this.standby = Collections.unmodifiableSet(new TreeSet<>(standby));
        this.warmup = Collections.unmodifiableSet(new TreeSet<>(warmup));
    }

    /** @return the client id */
    public String clientId() {
        return clientId;
    }

    /** @return the tasks to run as active, in id order */
    public Set<String> active() {
        return active;
    }

    /** @return the stateful tasks to keep a standby copy of, in id order */
    public Set<String> standby() {
        return standby;
    }

    /** @return the stateful tasks to restore before they move here, in id order */
    public Set<String> warmup() {
        return warmup;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ClientPlacement)) {
            return false;
        }
        ClientPlacement that = (ClientPlacement) o;
        return clientId.equals(that.clientId) && active.equals(that.active) && standby.equals(that.standby)
                && warmup.equals(that.warmup);
    }

    @Override
    public int hashCode() {
        return Objects.hash(clientId, active, standby, warmup);
    }

    @Override
    public String toString() {
        return clientId + "(active " + active + ", standby " + standby + ", warmup " + warmup + ")";
    }
}
