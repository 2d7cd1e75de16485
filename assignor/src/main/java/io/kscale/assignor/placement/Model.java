package io.kscale.assignor.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A checked {@link PlacementRequest} turned into arrays: clients and tasks become indices in id
 * order, so that every later step iterates in one deterministic order and ties break by id.
 *
 * <p>Lags and prior standbys are sparse (a client reports only tasks it holds state of), kept per
 * task as client indices in ascending order with a parallel array of lags.
 */
final class Model {

    /** The lag of a copy nobody reported: larger than any real lag. */
    static final long UNKNOWN = Long.MAX_VALUE;

    final PlacementSettings settings;
    final String[] clientIds;
    final int[] capacity;
    final String[] rack;
    final String[] taskIds;
    final boolean[] stateful;
    final long[] weight;
    final int[] group;
    final int groupCount;
    final int[] priorOwner;
    private final int[][] priorStandbys;
    private final int[][] lagClients;
    private final long[][] lagValues;

    private Model(PlacementRequest request) {
        List<ClientDescription> clients = request.clients();
        List<TaskDescription> tasks = request.tasks();
        settings = request.settings();
        clientIds = clients.stream().map(ClientDescription::id).toArray(String[]::new);
        capacity = clients.stream().mapToInt(ClientDescription::capacity).toArray();
        rack = clients.stream().map(client -> client.rack().orElse(null)).toArray(String[]::new);
        taskIds = tasks.stream().map(TaskDescription::id).toArray(String[]::new);
        stateful = new boolean[tasks.size()];
        weight = tasks.stream().mapToLong(TaskDescription::weight).toArray();
        List<String> groups = new ArrayList<>(new TreeSet<>(tasks.stream().map(TaskDescription::group).collect(Collectors.toSet())));
        groupCount = groups.size();
        group = new int[tasks.size()];
        for (int t = 0; t < tasks.size(); t++) {
            stateful[t] = tasks.get(t).isStateful();
            group[t] = Collections.binarySearch(groups, tasks.get(t).group());
        }
        priorOwner = new int[tasks.size()];
        Arrays.fill(priorOwner, -1);
        priorStandbys = new int[tasks.size()][];
        lagClients = new int[tasks.size()][];
        lagValues = new long[tasks.size()][];
        index(clients);
    }

    static Model of(PlacementRequest request) {
        return new Model(request);
    }

    private void index(List<ClientDescription> clients) {
        Map<String, Integer> taskIndex = new HashMap<>();
        for (int t = 0; t < taskIds.length; t++) {
            taskIndex.put(taskIds[t], t);
        }
        List<List<Integer>> standbys = emptyLists();
        List<List<Integer>> lagHolders = emptyLists();
        List<List<Long>> lags = emptyLists();
        for (int c = 0; c < clients.size(); c++) {
            ClientDescription client = clients.get(c);
            for (String task : client.priorActive()) {
                priorOwner[taskIndex.get(task)] = c;
            }
            for (String task : client.priorStandby()) {
                int t = taskIndex.get(task);
                if (stateful[t]) {
                    standbys.get(t).add(c);
                }
            }
            for (Map.Entry<String, Long> lag : client.lags().entrySet()) {
                int t = taskIndex.get(lag.getKey());
                if (stateful[t]) {
                    lagHolders.get(t).add(c);
                    lags.get(t).add(lag.getValue());
                }
            }
        }
        for (int t = 0; t < taskIds.length; t++) {
            priorStandbys[t] = standbys.get(t).stream().mapToInt(Integer::intValue).toArray();
            lagClients[t] = lagHolders.get(t).stream().mapToInt(Integer::intValue).toArray();
            lagValues[t] = lags.get(t).stream().mapToLong(Long::longValue).toArray();
        }
    }

    private <T> List<List<T>> emptyLists() {
        List<List<T>> lists = new ArrayList<>(taskIds.length);
        for (int t = 0; t < taskIds.length; t++) {
            lists.add(new ArrayList<>(0));
        }
        return lists;
    }

    int clientCount() {
        return clientIds.length;
    }

    int taskCount() {
        return taskIds.length;
    }

    boolean eligible(int client) {
        return capacity[client] > 0;
    }

    /** @return the clients that reported a lag for a task, ascending; empty for stateless tasks */
    int[] clientsWithLag(int task) {
        return lagClients[task];
    }

    /** @return the reported lag, or {@link #UNKNOWN} */
    long reportedLag(int task, int client) {
        int i = Arrays.binarySearch(lagClients[task], client);
        return i >= 0 ? lagValues[task][i] : UNKNOWN;
    }

    boolean isPriorStandby(int task, int client) {
        return Arrays.binarySearch(priorStandbys[task], client) >= 0;
    }
}
