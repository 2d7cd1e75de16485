package io.kscale.assignor.internals.placement;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * The largest set of moves to caught-up takers that the counts allow, so that as many moves as
 * possible need no warmup. A maximum flow: source → giver (capacity: tasks it must give) → its
 * task → a taker caught up on that task → sink (capacity: tasks the taker must take).
 *
 * <p>Why a flow and not a greedy: A must give one task and C must take one, B gives t2 and C,
 * D take one each; D is caught up on t1 (A's) and t2, C only on t2. A greedy taking t2 for D
 * first leaves t1 with no caught-up taker; the flow sends t1 to D and t2 to C. In particular,
 * every set of warmups placed last round that has caught up is a feasible flow this round, so
 * the moves made now are at least as many: the guarantee behind the convergence bound of
 * {@link PlacementEngine}.
 *
 * <p>Edmonds-Karp on a graph with one edge per caught-up pair, which is sparse (caught-up copies
 * are standbys and warmups), with nodes and edges in id order so the result is deterministic.
 * It starts from a given set of moves (the caller's choice for spread, see {@link UnitBalancer})
 * and augments it: an augmenting path reroutes a move only where that makes room for one more,
 * so the result is still a maximum, and keeps most of the starting choice.
 */
public final class ReadyMoves {

    private final List<int[]> edges = new ArrayList<>();
    private final List<List<Integer>> out = new ArrayList<>();
    private final int source;
    private final int sink;

    private ReadyMoves(int nodes) {
        for (int n = 0; n < nodes + 2; n++) {
            out.add(new ArrayList<>());
        }
        source = nodes;
        sink = nodes + 1;
    }

    /**
     * Plans the moves.
     *
     * @param giverOf for each task that may move (in task id order), the client giving it
     * @param takersOf for each task (same index), the takers caught up on it, ascending
     * @param give by client: how many tasks it must give
     * @param take by client: how many tasks it must take
     * @param start for each task (same index), the taker it starts with, or -1; together within
     *        {@code give} and {@code take}, each a taker caught up on the task
     * @return for each task (same index), its taker, or -1 if it does not move now
     */
    static int[] plan(int[] giverOf, int[][] takersOf, long[] give, long[] take, int[] start) {
        int clients = give.length;
        int tasks = giverOf.length;
        // nodes: clients as givers [0, clients), clients as takers [clients, 2 clients), tasks after
        ReadyMoves flow = new ReadyMoves(2 * clients + tasks);
        for (int c = 0; c < clients; c++) {
            flow.edge(flow.source, c, give[c]);
            flow.edge(clients + c, flow.sink, take[c]);
        }
        int[][] taskEdges = new int[tasks][];
        for (int i = 0; i < tasks; i++) {
            int node = 2 * clients + i;
            flow.edge(giverOf[i], node, 1);
            taskEdges[i] = new int[takersOf[i].length];
            for (int k = 0; k < takersOf[i].length; k++) {
                taskEdges[i][k] = flow.edge(node, clients + takersOf[i][k], 1);
            }
        }
        for (int i = 0; i < tasks; i++) {
            int k = start[i] < 0 ? -1 : Arrays.binarySearch(takersOf[i], start[i]);
            if (k >= 0) {
                flow.push(taskEdges[i][k], giverOf[i], clients + start[i]);
            }
        }
        flow.maximize();
        int[] takerOf = new int[tasks];
        Arrays.fill(takerOf, -1);
        for (int i = 0; i < tasks; i++) {
            for (int k = 0; k < takersOf[i].length; k++) {
                if (flow.edges.get(taskEdges[i][k])[2] == 0) {
                    takerOf[i] = takersOf[i][k];
                }
            }
        }
        return takerOf;
    }

    /** Adds an edge and its residual twin; returns the edge's index. Edge: {from, to, capacity left}. */
    private int edge(int from, int to, long capacity) {
        int index = edges.size();
        edges.add(new int[] {from, to, (int) Math.min(capacity, Integer.MAX_VALUE)});
        edges.add(new int[] {to, from, 0});
        out.get(from).add(index);
        out.get(to).add(index + 1);
        return index;
    }

    /**
     * Sends one unit along source, giver, task (the tail of {@code taskEdge}), taker, sink: the
     * edges next to the source and the sink are the first of their nodes (added first).
     */
    private void push(int taskEdge, int giverNode, int takerNode) {
        int taskNode = edges.get(taskEdge)[0];
        send(out.get(source).get(giverNode));
        send(giverEdge(giverNode, taskNode));
        send(taskEdge);
        send(out.get(takerNode).get(0));
    }

    private int giverEdge(int giverNode, int taskNode) {
        for (int e : out.get(giverNode)) {
            if (edges.get(e)[1] == taskNode && (e & 1) == 0) {
                return e;
            }
        }
        throw new IllegalStateException("no edge from giver " + giverNode + " to task " + taskNode);
    }

    private void send(int edge) {
        edges.get(edge)[2] -= 1;
        edges.get(edge ^ 1)[2] += 1;
    }

    private void maximize() {
        for (int[] via = shortestPath(); via != null; via = shortestPath()) {
            for (int node = sink; node != source; node = edges.get(via[node])[0]) {
                send(via[node]);
            }
        }
    }

    /** @return by node, the edge a breadth-first search reached it through; null if the sink is unreachable */
    private int[] shortestPath() {
        int[] via = new int[out.size()];
        Arrays.fill(via, -1);
        Deque<Integer> queue = new ArrayDeque<>();
        queue.add(source);
        while (!queue.isEmpty()) {
            int node = queue.poll();
            for (int e : out.get(node)) {
                int to = edges.get(e)[1];
                if (edges.get(e)[2] > 0 && via[to] < 0 && to != source) {
                    via[to] = e;
                    if (to == sink) {
                        return via;
                    }
                    queue.add(to);
                }
            }
        }
        return null;
    }
}
