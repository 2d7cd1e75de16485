package io.kscale.assignor.internals.placement;

import java.util.Arrays;

/**
 * Which clients may run a stateful task as active without a long restore: the first rule of the
 * cost function (KIP-441, "caught-up clients").
 *
 * <p>A client's <em>lag</em> on a task is what it reported; if it reported nothing, 0 when it is
 * the prior active owner (it was running the task) and unknown otherwise. A client is
 * <em>caught up</em> when its lag is at most {@code acceptableRecoveryLag}. The
 * <em>preferred</em> clients of a task, among clients with capacity, are:
 * <ol>
 *   <li>the caught-up ones, if any;</li>
 *   <li>else the ones with the smallest known lag (the "most caught-up", as Kafka Streams'
 *       HighAvailabilityTaskAssignor falls back to), if any lag is known;</li>
 *   <li>else every client: nobody has state, so any of them restores as long as any other.</li>
 * </ol>
 * A stateful task is only ever active on a preferred client. Example: acceptable lag 100; A ran
 * task t and reports nothing, B reports 40, C reports 5,000, D nothing. A and B are caught up and
 * preferred. Had A left, B alone would be preferred; had B reported 400 too, B (400 &lt; 5,000).
 * Stateless tasks have lag 0 everywhere, so every client is preferred.
 */
public final class CaughtUpClients {

    private final Model model;
    /** Per task, the preferred clients in ascending order; null means every client with capacity. */
    private final int[][] preferred;

    private CaughtUpClients(Model model) {
        this.model = model;
        this.preferred = new int[model.taskCount()][];
        for (int t = 0; t < model.taskCount(); t++) {
            preferred[t] = model.stateful[t] ? preferredFor(t) : null;
        }
    }

    static CaughtUpClients of(Model model) {
        return new CaughtUpClients(model);
    }

    /** @return the client's lag on the task as described above; {@link Model#UNKNOWN} if unknown */
    long lag(int task, int client) {
        if (!model.stateful[task]) {
            return 0;
        }
        long reported = model.reportedLag(task, client);
        if (reported == Model.UNKNOWN && model.priorOwner[task] == client) {
            return 0;
        }
        return reported;
    }

    boolean isCaughtUp(int task, int client) {
        return lag(task, client) <= model.settings.acceptableRecoveryLag();
    }

    /** @return whether the client has capacity and may run the task as active */
    boolean isPreferred(int task, int client) {
        return model.eligible(client) && (preferred[task] == null || Arrays.binarySearch(preferred[task], client) >= 0);
    }

    /** @return the preferred clients, ascending, or null if every client with capacity is */
    int[] preferred(int task) {
        return preferred[task];
    }

    private int[] preferredFor(int task) {
        int[] candidates = candidates(task);
        int[] caughtUp = Arrays.stream(candidates).filter(c -> isCaughtUp(task, c)).toArray();
        if (caughtUp.length > 0) {
            return caughtUp;
        }
        long least = Arrays.stream(candidates).mapToLong(c -> lag(task, c)).min().orElse(Model.UNKNOWN);
        if (least == Model.UNKNOWN) {
            return null;
        }
        return Arrays.stream(candidates).filter(c -> lag(task, c) == least).toArray();
    }

    /** @return clients with capacity that have a lag: those that reported one, and the prior owner */
    private int[] candidates(int task) {
        int owner = model.priorOwner[task];
        return java.util.stream.IntStream.concat(Arrays.stream(model.clientsWithLag(task)),
                        owner >= 0 ? java.util.stream.IntStream.of(owner) : java.util.stream.IntStream.empty())
                .filter(model::eligible).distinct().sorted().toArray();
    }
}
