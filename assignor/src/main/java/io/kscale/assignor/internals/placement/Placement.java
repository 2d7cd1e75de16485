package io.kscale.assignor.internals.placement;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The result of {@link PlacementEngine#place(PlacementRequest)}: what every client of the
 * request runs, and when to look again. Immutable.
 *
 * <p>Guarantees, whatever the outcome: a client holds at most one copy of a task (active,
 * standby or warmup); clients of capacity 0 hold nothing; only stateful tasks have standbys and
 * warmups; there are at most {@code maxWarmups} warmups. Unless the outcome is
 * {@link PlacementOutcome#NO_CAPACITY}, every task is active on exactly one client, and a
 * stateful task is active on a caught-up client whenever one exists.
 */
public final class Placement {

    private final Map<String, ClientPlacement> clients;
    private final PlacementOutcome outcome;
    private final FollowUp followUp;
    private final Set<String> unassignedTasks;
    private final int pendingMoves;
    private final int deferredMoves;
    private final int missingStandbys;

    Placement(Collection<ClientPlacement> clients, PlacementOutcome outcome, FollowUp followUp,
              Collection<String> unassignedTasks, int pendingMoves, int deferredMoves, int missingStandbys) {
        Map<String, ClientPlacement> byId = new LinkedHashMap<>();
        clients.forEach(client -> byId.put(client.clientId(), client));
        this.clients = Collections.unmodifiableMap(byId);
        this.outcome = outcome;
        this.followUp = followUp;
        this.unassignedTasks = Collections.unmodifiableSet(new TreeSet<>(unassignedTasks));
        this.pendingMoves = pendingMoves;
        this.deferredMoves = deferredMoves;
        this.missingStandbys = missingStandbys;
    }

    /** @return every client of the request by id, in id order, including those given nothing */
    public Map<String, ClientPlacement> clients() {
        return clients;
    }

    /**
     * One client's placement.
     *
     * @param clientId the id of a client of the request
     * @return its placement
     * @throws IllegalArgumentException if the client was not in the request
     */
    public ClientPlacement client(String clientId) {
        ClientPlacement client = clients.get(clientId);
        if (client == null) {
            throw new IllegalArgumentException("client '" + clientId + "' was not in the request; clients: " + clients.keySet());
        }
        return client;
    }

    /** @return whether the balanced target was reached, is being approached, or could not be placed */
    public PlacementOutcome outcome() {
        return outcome;
    }

    /**
     * When to rebalance again so caught-up warmups take their tasks over.
     *
     * <p>The rule: a follow-up is wanted while some copy (warmup, or standby placed on the
     * target client) is catching up for a pending move. Its delay is the shortest predicted
     * catch-up time over those copies, where a copy with a known lag {@code L} on a client that
     * restores {@code n} copies at once (its warmups, and its active and standby tasks beyond the
     * acceptable lag) needs {@code n * (L - acceptableRecoveryLag) / rate} seconds, where the
     * rate is the client's own {@link ClientDescription#restoreRecordsPerSecond()} if set, else
     * {@link PlacementSettings#restoreRecordsPerSecond()}. A copy on a client with no known rate
     * needs the client's {@link ClientDescription#measureAfter()} if set (a measuring follow-up,
     * see {@link RestoreRateLearner}), else {@code probingInterval}; a copy whose lag is unknown
     * needs {@code probingInterval}. The result is bounded to
     * {@code [minFollowUpDelay, probingInterval]}. Kafka Streams' HighAvailabilityTaskAssignor
     * always waits {@code probingInterval} (10 minutes by default); a member can also trigger
     * the rebalance earlier when it sees its warmup caught up. A client that restores an active
     * task gets no warmup until it has caught up; that active task then counts as a copy catching
     * up, so the follow-up comes when the held-back warmups can start. No follow-up is wanted when
     * no copy is catching up, including when moves wait for warmup budget that is 0.
     *
     * @return the follow-up, or {@link FollowUp#none()}
     */
    public FollowUp followUp() {
        return followUp;
    }

    /** @return the tasks active nowhere; empty unless the outcome is {@link PlacementOutcome#NO_CAPACITY} */
    public Set<String> unassignedTasks() {
        return unassignedTasks;
    }

    /** @return stateful tasks kept on a caught-up client while their target client catches up or waits for budget */
    public int pendingMoves() {
        return pendingMoves;
    }

    /**
     * @return the pending moves whose target client got no copy this time because the warmup budget
     *         was spent (not those held back while their target restores an active task)
     */
    public int deferredMoves() {
        return deferredMoves;
    }

    /** @return standby copies short of {@code standbyCount} per stateful task, for lack of clients */
    public int missingStandbys() {
        return missingStandbys;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Placement)) {
            return false;
        }
        Placement that = (Placement) o;
        return pendingMoves == that.pendingMoves && deferredMoves == that.deferredMoves
                && missingStandbys == that.missingStandbys && clients.equals(that.clients) && outcome == that.outcome
                && followUp.equals(that.followUp) && unassignedTasks.equals(that.unassignedTasks);
    }

    @Override
    public int hashCode() {
        return Objects.hash(clients, outcome, followUp, unassignedTasks, pendingMoves, deferredMoves, missingStandbys);
    }

    @Override
    public String toString() {
        return "Placement(" + outcome + ", " + followUp + ", pending " + pendingMoves + ", deferred " + deferredMoves
                + ", missing standbys " + missingStandbys + ", unassigned " + unassignedTasks + ", " + clients.values() + ")";
    }
}
