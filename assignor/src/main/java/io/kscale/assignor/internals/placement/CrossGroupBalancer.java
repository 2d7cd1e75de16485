package io.kscale.assignor.internals.placement;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Evens the load of clients that several placements share: a consumer group whose members read
 * different topics places each group of topics (the topics read by the same members) on its own
 * members, one {@link PlacementEngine} call each, every call on top of the load the others gave
 * (see {@link ClientDescription#baseLoad()}). Each call leaves its own group balanced, but a surplus
 * that only a chain of groups can carry stays: A reads x and y, B reads y and z, C reads z; A
 * holds 4, B 3, C 2, and no single move lowers a pair (A can give only to B, 3 + 1 is not below
 * 4). Moving one unit of y from A to B and one of z from B to C gives 3/3/3.
 *
 * <p>So this pass shifts units along such chains, <b>cost-reducing paths</b>: from a client
 * {@code u} through clients that each give one unit of weight {@code w} to the next (a unit of a
 * group both are in) to a client {@code v} with {@code load(v) + w < load(u)}. The clients in
 * between give and take one unit each, so only u and v change, and the sum of squared loads
 * falls, so the pass ends. Paths are searched breadth first from the most loaded clients, all at
 * once, for each weight; the first found is taken. With all units of one weight, an assignment
 * without such a path minimises the largest load and maximises the smallest at once (Harvey,
 * Ladner, Lovász, Tamir: "Semi-matchings for bipartite graphs and load balancing", 2006), so its
 * spread is the least any assignment of these units to these clients reaches.
 *
 * <p>Only the units the caller hands in move (the stateless ones: a stateful unit moves through
 * the engine's warmups); the rest of each client's load is fixed. Which unit a client gives along
 * a path: one it did not own before this rebalance if it has one (moving it costs nothing), else
 * its last by handle. Deterministic: clients, groups and units are visited in the order given.
 *
 * <p>Cost: one search visits each client-group membership and each unit at most once; a pass
 * makes at most a few searches per shift, and a group that is already even needs none. Pure: no
 * Kafka types. Mutable; one instance per rebalance.
 */
public final class CrossGroupBalancer {

    private final List<String> clientIds = new ArrayList<>();
    private final Map<String, Integer> clientIndex = new HashMap<>();
    private long[] load = new long[0];
    private final List<int[]> groupClients = new ArrayList<>();
    /** By client: the groups it is in. */
    private final List<List<Integer>> groupsOfClient = new ArrayList<>();
    private final List<Integer> unitGroup = new ArrayList<>();
    private final List<Long> unitWeight = new ArrayList<>();
    private final List<Integer> unitOwner = new ArrayList<>();
    private final List<Integer> unitPriorOwner = new ArrayList<>();

    /** Creates an empty balancer. */
    public CrossGroupBalancer() {
    }

    /**
     * Adds a client, or more load to one.
     *
     * @param id a client id
     * @param weight load it carries, fixed or movable (movable units add their weight here too)
     */
    public void load(String id, long weight) {
        int c = client(id);
        load[c] += weight;
    }

    private int client(String id) {
        Integer c = clientIndex.get(id);
        if (c == null) {
            c = clientIds.size();
            clientIds.add(id);
            clientIndex.put(id, c);
            groupsOfClient.add(new ArrayList<>());
            load = Arrays.copyOf(load, c + 1);
        }
        return c;
    }

    /**
     * Adds a group: the clients that may hold its units.
     *
     * @param clients client ids, each given to {@link #load} before or after
     * @return the group's handle
     */
    public int group(List<String> clients) {
        int g = groupClients.size();
        int[] members = clients.stream().mapToInt(this::client).toArray();
        groupClients.add(members);
        for (int c : members) {
            groupsOfClient.get(c).add(g);
        }
        return g;
    }

    /**
     * Adds a unit that may move to any client of its group. Its weight must already be in its
     * owner's {@link #load}.
     *
     * @param group the group's handle
     * @param weight the unit's weight, at least 1
     * @param owner the client holding it now, one of the group's
     * @param priorOwner the client that held it before this rebalance, or null
     * @return the unit's handle
     */
    public int unit(int group, long weight, String owner, String priorOwner) {
        unitGroup.add(group);
        unitWeight.add(weight);
        unitOwner.add(client(owner));
        unitPriorOwner.add(priorOwner == null ? -1 : client(priorOwner));
        return unitOwner.size() - 1;
    }

    /** @return the client holding a unit (after {@link #balance()}: where it goes) */
    public String owner(int unit) {
        return clientIds.get(unitOwner.get(unit));
    }

    /**
     * Shifts units along cost-reducing paths until none is left.
     *
     * @return the number of units moved
     */
    public int balance() {
        if (groupClients.size() < 2 || unitOwner.isEmpty()) {
            return 0;
        }
        Holdings holdings = new Holdings();
        TreeSet<Long> weights = new TreeSet<>(unitWeight);
        int moved = 0;
        boolean shifted = true;
        while (shifted) {
            shifted = false;
            for (long w : weights.descendingSet()) {
                int length = shiftOnce(w, holdings);
                if (length > 0) {
                    moved += length;
                    shifted = true;
                    break;
                }
            }
        }
        return moved;
    }

    /**
     * Finds one cost-reducing path for weight w and shifts along it: sources are tried by
     * falling load level, all clients of a level at once.
     *
     * @return the number of units moved, 0 if there is no such path
     */
    private int shiftOnce(long w, Holdings holdings) {
        long[] levels = Arrays.stream(load).distinct().sorted().toArray();
        for (int i = levels.length - 1; i > 0; i--) {
            long level = levels[i];
            if (levels[0] + w >= level) {
                return 0; // no client is light enough for any source at this level or below
            }
            int moved = search(level, w, holdings);
            if (moved > 0) {
                return moved;
            }
        }
        return 0;
    }

    /** Breadth-first search from every client at {@code level}; shifts along the first path found. */
    private int search(long level, long w, Holdings holdings) {
        int n = clientIds.size();
        int[] parent = new int[n];
        int[] viaGroup = new int[n];
        Arrays.fill(parent, -2);
        boolean[] groupSeen = new boolean[groupClients.size()];
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int c = 0; c < n; c++) {
            if (load[c] == level) {
                parent[c] = -1;
                queue.add(c);
            }
        }
        while (!queue.isEmpty()) {
            int u = queue.poll();
            for (int g : groupsOfClient.get(u)) {
                if (groupSeen[g] || holdings.held(g, u, w).isEmpty()) {
                    continue;
                }
                groupSeen[g] = true;
                for (int v : groupClients.get(g)) {
                    if (parent[v] != -2) {
                        continue;
                    }
                    parent[v] = u;
                    viaGroup[v] = g;
                    if (load[v] + w < level) {
                        return shift(v, parent, viaGroup, w, holdings);
                    }
                    queue.add(v);
                }
            }
        }
        return 0;
    }

    private int shift(int end, int[] parent, int[] viaGroup, long w, Holdings holdings) {
        int moved = 0;
        for (int v = end; parent[v] >= 0; v = parent[v]) {
            int u = parent[v];
            int unit = holdings.pick(viaGroup[v], u, w);
            holdings.move(unit, viaGroup[v], u, v, w);
            unitOwner.set(unit, v);
            moved++;
        }
        int start = end;
        while (parent[start] >= 0) {
            start = parent[start];
        }
        load[start] -= w;
        load[end] += w;
        return moved;
    }

    /** The movable units each client holds in each group, by weight. */
    private final class Holdings {
        private final Map<List<Long>, List<Integer>> held = new HashMap<>();

        Holdings() {
            for (int unit = 0; unit < unitOwner.size(); unit++) {
                held.computeIfAbsent(key(unitGroup.get(unit), unitOwner.get(unit), unitWeight.get(unit)),
                        k -> new ArrayList<>()).add(unit);
            }
        }

        List<Integer> held(int group, int client, long w) {
            return held.getOrDefault(key(group, client, w), List.of());
        }

        /** A unit the client did not own before this rebalance, else its last. */
        int pick(int group, int client, long w) {
            List<Integer> units = held(group, client, w);
            for (int unit : units) {
                if (unitPriorOwner.get(unit) != client) {
                    return unit;
                }
            }
            return units.get(units.size() - 1);
        }

        void move(int unit, int group, int from, int to, long w) {
            held.get(key(group, from, w)).remove(Integer.valueOf(unit));
            held.computeIfAbsent(key(group, to, w), k -> new ArrayList<>()).add(unit);
        }

        private List<Long> key(int group, int client, long w) {
            return List.of((long) group, (long) client, w);
        }
    }
}
