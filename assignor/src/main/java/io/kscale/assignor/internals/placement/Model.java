package io.kscale.assignor.internals.placement;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A checked {@link PlacementRequest} turned into arrays: clients and tasks become indices in id
 * order, so that every later step iterates in one deterministic order and ties break by id.
 *
 * <p>Lags and prior standbys are sparse (a client reports only tasks it holds state of), kept per
 * task as client indices in ascending order with a parallel array of lags.
 */
public final class Model {

    /** The lag of a copy nobody reported: larger than any real lag. */
    static final long UNKNOWN = Long.MAX_VALUE;
    private static final int[] NONE = new int[0];
    private static final long[] NO_LAGS = new long[0];

    final PlacementSettings settings;
    final String[] clientIds;
    final int[] capacity;
    final String[] rack;
    /** By client: records per second it restores, its own or the settings'; 0 if unknown. */
    final long[] restoreRate;
    /** By client: the delay predicted for its copies while its rate is unknown; null: the probing interval. */
    final Duration[] measureAfter;
    /** By client: weight it carries from tasks outside the request ({@link ClientDescription#baseLoad()}). */
    final long[] baseLoad;
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
        restoreRate = clients.stream().mapToLong(client -> client.restoreRecordsPerSecond() > 0
                ? client.restoreRecordsPerSecond() : settings.restoreRecordsPerSecond()).toArray();
        measureAfter = clients.stream().map(client -> client.measureAfter().orElse(null)).toArray(Duration[]::new);
        baseLoad = clients.stream().mapToLong(ClientDescription::baseLoad).toArray();
        taskIds = tasks.stream().map(TaskDescription::id).toArray(String[]::new);
        stateful = new boolean[tasks.size()];
        weight = tasks.stream().mapToLong(TaskDescription::weight).toArray();
        // Groups numbered in name order; by default every task is a group of its own.
        String[] groups = tasks.stream().map(TaskDescription::group).distinct().sorted().toArray(String[]::new);
        Map<String, Integer> groupIndex = new HashMap<>(groups.length * 4 / 3 + 1);
        for (int g = 0; g < groups.length; g++) {
            groupIndex.put(groups[g], g);
        }
        groupCount = groups.length;
        group = new int[tasks.size()];
        for (int t = 0; t < tasks.size(); t++) {
            stateful[t] = tasks.get(t).isStateful();
            group[t] = groupIndex.get(tasks.get(t).group());
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
        // Two passes, counting then filling, with one shared empty array for the many tasks
        // without standbys or lags: streams and lists per task were most of the engine's time
        // for 10,000 tasks.
        int[] standbyCount = new int[taskIds.length];
        int[] lagCount = new int[taskIds.length];
        for (ClientDescription client : clients) {
            client.priorStandby().forEach(task -> standbyCount[taskIndex.get(task)]++);
            client.lags().keySet().forEach(task -> lagCount[taskIndex.get(task)]++);
        }
        for (int t = 0; t < taskIds.length; t++) {
            priorStandbys[t] = stateful[t] && standbyCount[t] > 0 ? new int[standbyCount[t]] : NONE;
            lagClients[t] = stateful[t] && lagCount[t] > 0 ? new int[lagCount[t]] : NONE;
            lagValues[t] = stateful[t] && lagCount[t] > 0 ? new long[lagCount[t]] : NO_LAGS;
        }
        Arrays.fill(standbyCount, 0);
        Arrays.fill(lagCount, 0);
        // Clients in index order: each task's arrays come out ascending by client.
        for (int c = 0; c < clients.size(); c++) {
            ClientDescription client = clients.get(c);
            for (String task : client.priorActive()) {
                priorOwner[taskIndex.get(task)] = c;
            }
            for (String task : client.priorStandby()) {
                int t = taskIndex.get(task);
                if (stateful[t]) {
                    priorStandbys[t][standbyCount[t]++] = c;
                }
            }
            for (Map.Entry<String, Long> lag : client.lags().entrySet()) {
                int t = taskIndex.get(lag.getKey());
                if (stateful[t]) {
                    lagClients[t][lagCount[t]] = c;
                    lagValues[t][lagCount[t]++] = lag.getValue();
                }
            }
        }
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
