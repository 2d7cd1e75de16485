package io.kscale.lab.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The simulated world of one assignor: the clients in the group, the local state each holds, the
 * changelogs, the current assignment, and a clock in whole seconds.
 *
 * <p>The rules, applied once per simulated second by {@link #step()}:
 * <ol>
 *   <li>an active task whose client's state is at the changelog end is <em>processing</em>: its
 *       changelog grows by the task's write rate, and every assigned copy that was at the end
 *       follows it (keeping up is free);</li>
 *   <li>every other assigned copy is <em>restoring</em>: a client splits its restore rate evenly
 *       over the copies it is restoring (active, standby or warmup); an active task that restores
 *       counts one second of downtime;</li>
 *   <li>state a client holds but was not assigned stays where it is, falling behind as the
 *       changelog grows (Streams keeps such state on disk for a while, and reports its lag).</li>
 * </ol>
 * A client that leaves takes its state with it. A new copy on a client without state restores
 * from offset 0. Example: a 50,000-record task moved to a client restoring at 10,000 records/s
 * with nothing else to restore is down for 5 seconds.
 */
public final class World {

    /** What a client's offset holds when it has no local state of a task. */
    static final long NO_STATE = -1;
    private static final int[] NOTHING = {};

    private final List<SimTask> tasks;
    private final Map<String, Integer> taskIndex = new HashMap<>();
    private final long[] changelogEnd;
    private final Map<String, SimClient> clients = new TreeMap<>();
    private final Map<String, long[]> offsets = new HashMap<>();
    private Map<String, Copies> assignment = new TreeMap<>();
    /** Per client of {@link #assignment}: the stateful tasks it holds in any role, as ascending task indexes. */
    private Map<String, int[]> held = new TreeMap<>();
    /** Per task, its active client in {@link #assignment}, or null. */
    private final String[] activeOwner;
    /** Per task: its active copy was placed behind while another client was caught up (at the last rebalance). */
    private final boolean[] avoidable;
    private long now;
    private long downtimeSeconds;
    private long avoidableDowntimeSeconds;
    private long restoredRecords;
    private long moves;
    private long warmups;

    /** @param tasks the tasks; each changelog starts at its state size */
    public World(List<SimTask> tasks) {
        this.tasks = List.copyOf(tasks);
        this.changelogEnd = new long[tasks.size()];
        this.activeOwner = new String[tasks.size()];
        this.avoidable = new boolean[tasks.size()];
        for (int t = 0; t < tasks.size(); t++) {
            taskIndex.put(tasks.get(t).id(), t);
            changelogEnd[t] = tasks.get(t).stateRecords();
        }
    }

    /** @return simulated seconds since the start */
    public long now() {
        return now;
    }

    /** A client joins with no local state. */
    public void join(SimClient client) {
        if (clients.putIfAbsent(client.id(), client) != null) {
            throw new IllegalArgumentException("client " + client.id() + " is already in the group");
        }
        long[] none = new long[tasks.size()];
        Arrays.fill(none, NO_STATE);
        offsets.put(client.id(), none);
    }

    /** A client leaves (or crashes) with its local state; its tasks stop until the next rebalance. */
    public void leave(String clientId) {
        if (clients.remove(clientId) == null) {
            throw new IllegalArgumentException("client " + clientId + " is not in the group");
        }
        offsets.remove(clientId);
        held.remove(clientId);
    }

    /** @return records the client's state of the task is behind its changelog; the whole changelog if it has none */
    public long lag(String clientId, String taskId) {
        int t = index(taskId);
        long offset = offsets.get(clientId)[t];
        return changelogEnd[t] - Math.max(offset, 0);
    }

    /** @return what an assignor sees now: the clients in the group with their prior tasks and lags */
    public RoundInput view(SimSettings settings) {
        List<ClientView> views = new ArrayList<>();
        long slowest = Long.MAX_VALUE;
        for (SimClient client : clients.values()) {
            Copies held = assignment.getOrDefault(client.id(), Copies.NONE);
            Set<String> standby = new HashSet<>(held.standby());
            standby.addAll(held.warmup());
            Map<String, Long> lags = new HashMap<>();
            for (SimTask task : tasks) {
                if (task.stateful()) {
                    lags.put(task.id(), lag(client.id(), task.id()));
                }
            }
            views.add(new ClientView(client.id(), client.capacity(), held.active(), standby, lags));
            slowest = Math.min(slowest, client.restoreRecordsPerSecond());
        }
        return new RoundInput(tasks, views, settings, clients.isEmpty() ? 0 : slowest, now * 1_000);
    }

    /**
     * Installs an assignor's decision: counts active tasks that left a client still in the group
     * (moves) and copies placed on a client that was not caught up (warmups), starts new copies
     * from the client's local state or from scratch, and marks active tasks placed behind while
     * another client was caught up.
     *
     * @throws IllegalStateException if the decision is not a valid assignment of this group
     */
    public void apply(RoundDecision decision, long acceptableRecoveryLag) {
        DecisionCheck.check(decision, clients.keySet(), tasks);
        Map<String, Copies> next = new TreeMap<>();
        clients.keySet().forEach(id -> next.put(id, decision.clients().getOrDefault(id, Copies.NONE)));
        for (Map.Entry<String, Copies> entry : next.entrySet()) {
            String client = entry.getKey();
            Copies before = assignment.getOrDefault(client, Copies.NONE);
            for (String task : entry.getValue().active()) {
                String previous = activeOwner[index(task)];
                if (previous != null && clients.containsKey(previous) && !previous.equals(client)) {
                    moves++;
                }
            }
            for (String task : copiesOf(entry.getValue())) {
                if (!before.holdsCopy(task) && lag(client, task) > acceptableRecoveryLag) {
                    warmups++;
                }
            }
        }
        Arrays.fill(activeOwner, null);
        for (Map.Entry<String, Copies> entry : next.entrySet()) {
            for (String task : entry.getValue().active()) {
                activeOwner[index(task)] = entry.getKey();
            }
        }
        for (int t = 0; t < tasks.size(); t++) {
            String owner = activeOwner[t];
            String task = tasks.get(t).id();
            avoidable[t] = tasks.get(t).stateful() && lag(owner, task) > acceptableRecoveryLag
                    && clients.keySet().stream().anyMatch(c -> lag(c, task) <= acceptableRecoveryLag);
        }
        Map<String, int[]> nextHeld = new TreeMap<>();
        next.forEach((client, copies) -> {
            int[] stateful = heldStateful(copies);
            long[] local = offsets.get(client);
            for (int t : stateful) {
                local[t] = Math.max(local[t], 0);
            }
            nextHeld.put(client, stateful);
        });
        assignment = next;
        held = nextHeld;
    }

    /** Advances the clock by one second (see the class description). */
    public void step() {
        for (int t = 0; t < tasks.size(); t++) {
            String owner = activeOwner[t];
            long end = changelogEnd[t];
            if (!tasks.get(t).stateful() || owner == null || !clients.containsKey(owner) || offsets.get(owner)[t] != end) {
                continue;
            }
            long next = end + tasks.get(t).writesPerSecond();
            for (Map.Entry<String, int[]> entry : held.entrySet()) {
                long[] local = offsets.get(entry.getKey());
                if (local != null && local[t] == end && Arrays.binarySearch(entry.getValue(), t) >= 0) {
                    local[t] = next;
                }
            }
            changelogEnd[t] = next;
        }
        for (SimClient client : clients.values()) {
            long[] local = offsets.get(client.id());
            List<Integer> behind = new ArrayList<>();
            for (int t : held.getOrDefault(client.id(), NOTHING)) {
                if (local[t] < changelogEnd[t]) {
                    behind.add(t);
                }
            }
            if (behind.isEmpty()) {
                continue;
            }
            long share = Math.max(1, client.restoreRecordsPerSecond() / behind.size());
            for (int t : behind) {
                if (client.id().equals(activeOwner[t])) {
                    downtimeSeconds++;
                    if (avoidable[t]) {
                        avoidableDowntimeSeconds++;
                    }
                }
                long restored = Math.min(share, changelogEnd[t] - local[t]);
                local[t] += restored;
                restoredRecords += restored;
            }
        }
        now++;
    }

    /** Advances the clock by some seconds. */
    public void advance(long seconds) {
        for (long s = 0; s < seconds; s++) {
            step();
        }
    }

    /** Brings every assigned copy to its changelog end at once, without counting it: a settled start. */
    public void catchUpAssigned() {
        held.forEach((client, stateful) -> {
            long[] local = offsets.get(client);
            for (int t : stateful) {
                local[t] = changelogEnd[t];
            }
        });
    }

    /** @return whether every assigned copy is at its changelog end and every task has an active client in the group */
    public boolean settled() {
        for (int t = 0; t < tasks.size(); t++) {
            if (activeOwner[t] == null || !clients.containsKey(activeOwner[t])) {
                return false;
            }
        }
        for (Map.Entry<String, int[]> entry : held.entrySet()) {
            long[] local = offsets.get(entry.getKey());
            for (int t : entry.getValue()) {
                if (local[t] != changelogEnd[t]) {
                    return false;
                }
            }
        }
        return true;
    }

    /** @return the clients in the group, by id */
    public Map<String, SimClient> clients() {
        return Map.copyOf(clients);
    }

    /** @return the current assignment of the clients in the group, by client id */
    public Map<String, Copies> assignment() {
        Map<String, Copies> current = new TreeMap<>();
        clients.keySet().forEach(id -> current.put(id, assignment.getOrDefault(id, Copies.NONE)));
        return current;
    }

    /** @return the running totals since the start */
    public Totals totals() {
        return new Totals(downtimeSeconds, avoidableDowntimeSeconds, restoredRecords, moves, warmups);
    }

    /**
     * Running totals of a world.
     *
     * @param downtimeSeconds task-seconds during which an active task was restoring
     * @param avoidableDowntimeSeconds the part of it where the task had been placed on a client that
     *                                 was not caught up while another client was
     * @param restoredRecords changelog records restored by all copies
     * @param moves active tasks that changed client while their previous client stayed in the group
     * @param warmups non-active copies placed on a client that was not caught up on the task
     */
    public record Totals(long downtimeSeconds, long avoidableDowntimeSeconds, long restoredRecords, long moves,
                         long warmups) {

        /** No downtime, nothing restored, moved or warmed up. */
        public static final Totals ZERO = new Totals(0, 0, 0, 0, 0);

        /** @return these totals plus others */
        public Totals plus(Totals other) {
            return new Totals(downtimeSeconds + other.downtimeSeconds,
                    avoidableDowntimeSeconds + other.avoidableDowntimeSeconds,
                    restoredRecords + other.restoredRecords, moves + other.moves, warmups + other.warmups);
        }

        /** @return these totals minus earlier ones */
        public Totals since(Totals earlier) {
            return new Totals(downtimeSeconds - earlier.downtimeSeconds,
                    avoidableDowntimeSeconds - earlier.avoidableDowntimeSeconds,
                    restoredRecords - earlier.restoredRecords, moves - earlier.moves, warmups - earlier.warmups);
        }
    }

    private static Set<String> copiesOf(Copies copies) {
        Set<String> all = new HashSet<>(copies.standby());
        all.addAll(copies.warmup());
        return all;
    }

    /** @return the stateful tasks the client holds in any role, as task indexes in ascending order */
    private int[] heldStateful(Copies copies) {
        return java.util.stream.IntStream.range(0, tasks.size())
                .filter(t -> tasks.get(t).stateful() && copies.holds(tasks.get(t).id())).toArray();
    }

    private int index(String taskId) {
        Integer t = taskIndex.get(taskId);
        if (t == null) {
            throw new IllegalStateException("unknown task " + taskId);
        }
        return t;
    }
}
