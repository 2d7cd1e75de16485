package io.kscale.assignor.internals.placement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything one placement decision depends on: the tasks, the clients with their prior
 * ownership and lags, and the settings. Immutable, and checked once here so the engine can trust
 * it.
 *
 * <p>Rules (each broken one is an {@link IllegalArgumentException} that names the ids involved):
 * task ids are unique, client ids are unique; the total weight fits a {@code long}; every task
 * id a client lists (prior active, prior standby, lag) is one of the tasks; a task is prior
 * active on at most one client. Adapters translate untrusted wire data, so they resolve these
 * before calling: drop tasks that no longer exist, pick one owner when two members claim a task
 * (the one with the highest generation, as Kafka's sticky assignor does).
 *
 * <p>Not errors, and what they mean: no clients, or only clients of capacity 0, give a
 * placement with outcome {@link PlacementOutcome#NO_CAPACITY}; prior standbys and lags of a
 * stateless task are ignored (a task may have lost its state stores in a new topology).
 */
public final class PlacementRequest {

    private final List<TaskDescription> tasks;
    private final List<ClientDescription> clients;
    private final PlacementSettings settings;

    /**
     * Creates and checks a request.
     *
     * @param tasks the tasks to place, in any order
     * @param clients the clients that may run them, in any order
     * @param settings the settings
     * @throws IllegalArgumentException if a rule in the class description is broken
     */
    public PlacementRequest(Collection<TaskDescription> tasks, Collection<ClientDescription> clients,
                            PlacementSettings settings) {
        this.tasks = sorted(tasks, Comparator.comparing(TaskDescription::id));
        this.clients = sorted(clients, Comparator.comparing(ClientDescription::id));
        this.settings = Objects.requireNonNull(settings, "settings");
        Map<String, TaskDescription> byId = checkTasks(this.tasks);
        checkClients(this.clients, byId);
    }

    /**
     * Creates and checks a request.
     *
     * @param tasks the tasks to place
     * @param clients the clients that may run them
     * @param settings the settings
     * @return the request
     * @throws IllegalArgumentException if a rule in the class description is broken
     */
    public static PlacementRequest of(Collection<TaskDescription> tasks, Collection<ClientDescription> clients,
                                      PlacementSettings settings) {
        return new PlacementRequest(tasks, clients, settings);
    }

    /** @return the tasks in id order */
    public List<TaskDescription> tasks() {
        return tasks;
    }

    /** @return the clients in id order */
    public List<ClientDescription> clients() {
        return clients;
    }

    /** @return the settings */
    public PlacementSettings settings() {
        return settings;
    }

    private static <T> List<T> sorted(Collection<T> items, Comparator<T> order) {
        List<T> list = new ArrayList<>(items.size());
        for (T item : items) {
            list.add(Objects.requireNonNull(item, "null element"));
        }
        list.sort(order);
        return Collections.unmodifiableList(list);
    }

    private static Map<String, TaskDescription> checkTasks(List<TaskDescription> tasks) {
        Map<String, TaskDescription> byId = new HashMap<>();
        long totalWeight = 0;
        for (TaskDescription task : tasks) {
            if (byId.put(task.id(), task) != null) {
                throw new IllegalArgumentException("duplicate task id '" + task.id() + "': task ids must be unique");
            }
            if (totalWeight > Long.MAX_VALUE / 4 - task.weight()) {
                throw new IllegalArgumentException("the total weight of the tasks exceeds Long.MAX_VALUE / 4 at task '"
                        + task.id() + "'; use smaller weights");
            }
            totalWeight += task.weight();
        }
        return byId;
    }

    private static void checkClients(List<ClientDescription> clients, Map<String, TaskDescription> tasks) {
        Map<String, String> activeOwner = new HashMap<>();
        String previous = null;
        for (ClientDescription client : clients) {
            if (client.id().equals(previous)) {
                throw new IllegalArgumentException("duplicate client id '" + client.id() + "': client ids must be unique");
            }
            previous = client.id();
            for (String task : client.priorActive()) {
                known(tasks, client, task, "a prior active task");
                String other = activeOwner.put(task, client.id());
                if (other != null) {
                    throw new IllegalArgumentException("task '" + task + "' is a prior active task of two clients, '"
                            + other + "' and '" + client.id() + "'; pass one owner (the member with the highest generation)");
                }
            }
            for (String task : client.priorStandby()) {
                known(tasks, client, task, "a prior standby task");
            }
            for (String task : client.lags().keySet()) {
                known(tasks, client, task, "a lag for task");
            }
        }
    }

    private static void known(Map<String, TaskDescription> tasks, ClientDescription client, String task, String what) {
        if (!tasks.containsKey(task)) {
            throw new IllegalArgumentException("client '" + client.id() + "' reports " + what + " '" + task
                    + "' that is not among the tasks of the request; drop ids of tasks that no longer exist");
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PlacementRequest)) {
            return false;
        }
        PlacementRequest that = (PlacementRequest) o;
        return tasks.equals(that.tasks) && clients.equals(that.clients) && settings.equals(that.settings);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tasks, clients, settings);
    }

    @Override
    public String toString() {
        return "PlacementRequest(tasks " + tasks + ", clients " + clients + ", " + settings + ")";
    }
}
