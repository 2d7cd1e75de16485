package io.kscale.assignor.internals.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * The bookkeeping of one balancing pass over a set of tasks (the stateful ones, or the stateless
 * ones on top of the stateful load): who holds what, the load per client and how many tasks of
 * each co-location group a client holds. Mutable; used by one thread for one placement.
 *
 * <p>Load is compared per unit of capacity: client X with load 6 and capacity 2 is less loaded
 * than Y with load 4 and capacity 1 (3 &lt; 4).
 */
public final class Pool {

    final Model model;
    final CaughtUpClients caught;
    /** The pool's tasks, ascending. */
    final int[] tasks;
    /** By task: the client holding it, or -1 if unplaced or not in this pool. */
    final int[] owner;
    /** By task: the client holding it before balancing moved anything (see {@link #markStart}). */
    final int[] start;
    /** By client: the load, including the base load from outside the pool. */
    final long[] load;
    /**
     * By task: placed off its balanced home to restore sooner ({@link OrphanRestores}); balancing
     * moves other tasks instead, so the restore it started is not thrown away.
     */
    private final boolean[] pinned;
    private final int[] pinnedCount;
    private final List<NavigableSet<Integer>> held;
    private final GroupCounts groupCounts;

    Pool(Model model, CaughtUpClients caught, int[] tasks, long[] baseLoad) {
        this.model = model;
        this.caught = caught;
        this.tasks = tasks.clone();
        this.owner = new int[model.taskCount()];
        Arrays.fill(owner, -1);
        this.start = new int[model.taskCount()];
        Arrays.fill(start, -1);
        this.load = baseLoad.clone();
        this.pinned = new boolean[model.taskCount()];
        this.pinnedCount = new int[model.clientCount()];
        this.held = new ArrayList<>(model.clientCount());
        for (int c = 0; c < model.clientCount(); c++) {
            held.add(new TreeSet<>());
        }
        this.groupCounts = new GroupCounts(model.groupCount, model.clientCount());
    }

    void place(int task, int client) {
        owner[task] = client;
        load[client] += model.weight[task];
        held.get(client).add(task);
        groupCounts.add(model.group[task], client, 1);
    }

    /** Keeps a placed task where it is for this pass: balancing does not move it. */
    void pin(int task) {
        if (!pinned[task]) {
            pinned[task] = true;
            pinnedCount[owner[task]]++;
        }
    }

    boolean isPinned(int task) {
        return pinned[task];
    }

    /** @return how many of the client's pool tasks balancing may move */
    int movable(int client) {
        return held.get(client).size() - pinnedCount[client];
    }

    /** Records the current owners as the start: where each task runs if its move must wait. */
    void markStart() {
        System.arraycopy(owner, 0, start, 0, owner.length);
    }

    void move(int task, int to) {
        int from = owner[task];
        load[from] -= model.weight[task];
        held.get(from).remove(task);
        groupCounts.add(model.group[task], from, -1);
        place(task, to);
    }

    /** @return the pool tasks the client holds, ascending (a live view: copy before moving) */
    NavigableSet<Integer> held(int client) {
        return held.get(client);
    }

    int groupCount(int group, int client) {
        return groupCounts.count(group, client);
    }

    /** @return the comparison of the two clients' load per capacity */
    int compareLoad(int c1, int c2) {
        return Ratios.compare(load[c1], model.capacity[c1], load[c2], model.capacity[c2]);
    }

    /**
     * Whether moving a task of this weight makes the pair better balanced: the receiver's load
     * per capacity afterwards is below the giver's now. Each such move lowers the largest load of
     * the pair, so a sequence of them ends (the descending list of loads falls lexicographically).
     */
    boolean improves(int from, int to, long weight) {
        return Ratios.compare(load[to] + weight, model.capacity[to], load[from], model.capacity[from]) < 0;
    }

    /** @return the clients with capacity, ascending by id */
    int[] eligibleClients() {
        int[] clients = new int[model.clientCount()];
        int n = 0;
        for (int c = 0; c < clients.length; c++) {
            if (model.eligible(c)) {
                clients[n++] = c;
            }
        }
        return Arrays.copyOf(clients, n);
    }
}
