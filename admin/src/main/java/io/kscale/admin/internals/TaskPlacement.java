package io.kscale.admin.internals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How one group's current assignment of a topic sits on its tasks: task {@code t} holds every
 * partition {@code p < partitions} with {@code p % T == t}, and is <em>whole</em> when one member
 * owns all of them. Pure: built from a described assignment. Immutable.
 *
 * <p>Example, T = 4, 8 partitions, member a owns 0, 4, 1, 5 and member b owns 2, 6, 3: tasks 0
 * and 1 are whole on a, task 2 is whole on b, task 3 is not (partition 7 is unassigned).
 * After an expansion from 4 partitions, new partition 7 is placed with its task once b owns it.
 */
public final class TaskPlacement {

    private final int taskCount;
    private final int partitions;
    private final SortedSet<Integer> unassigned = new TreeSet<>();
    /** task -> the members that own a partition of it, for tasks owned by more than one. */
    private final Map<Integer, SortedSet<String>> splitTasks = new TreeMap<>();
    /** partition -> its owner, for partitions owned by more than one member. */
    private final SortedSet<Integer> ownedTwice = new TreeSet<>();
    private final String[] owner;

    /**
     * @param taskCount T, at least 1
     * @param partitions the topic's partition count
     * @param owners member -> partitions of the topic it owns
     */
    public TaskPlacement(int taskCount, int partitions, Map<String, ? extends SortedSet<Integer>> owners) {
        if (taskCount < 1 || partitions < 1) {
            throw new IllegalArgumentException("task count " + taskCount + " and partition count " + partitions
                    + " must be at least 1");
        }
        this.taskCount = taskCount;
        this.partitions = partitions;
        this.owner = new String[partitions];
        owners.forEach((member, owned) -> {
            for (int p : owned) {
                if (p < 0 || p >= partitions) {
                    continue; // described before the metadata we compare with: ignored
                }
                if (owner[p] != null && !owner[p].equals(member)) {
                    ownedTwice.add(p);
                }
                owner[p] = member;
            }
        });
        Map<Integer, SortedSet<String>> membersOfTask = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            if (owner[p] == null) {
                unassigned.add(p);
            } else {
                membersOfTask.computeIfAbsent(p % taskCount, t -> new TreeSet<>()).add(owner[p]);
            }
        }
        membersOfTask.forEach((task, members) -> {
            if (members.size() > 1) {
                splitTasks.put(task, members);
            }
        });
    }

    /** @return whether every partition is owned and every task whole: the group has settled */
    public boolean settled() {
        return unassigned.isEmpty() && splitTasks.isEmpty() && ownedTwice.isEmpty();
    }

    public SortedSet<Integer> unassigned() {
        return unassigned;
    }

    /** @return task -> its members, for each task whose partitions more than one member owns */
    public Map<Integer, SortedSet<String>> splitTasks() {
        return splitTasks;
    }

    /**
     * @param from the first partition to count (the partition count before the expansion)
     * @return partitions from {@code from} on that are owned and whose task is whole
     */
    public int placedWithTask(int from) {
        int placed = 0;
        for (int p = Math.max(0, from); p < partitions; p++) {
            if (owner[p] != null && !splitTasks.containsKey(p % taskCount) && !ownedTwice.contains(p)) {
                placed++;
            }
        }
        return placed;
    }

    /** @return why the group has not settled, one clause per kind of problem; empty if it has */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (!unassigned.isEmpty()) {
            problems.add("partitions " + unassigned + " unassigned");
        }
        splitTasks.forEach((task, members) -> problems.add("task " + task + " split across " + members));
        if (!ownedTwice.isEmpty()) {
            problems.add("partitions " + ownedTwice + " owned by two members");
        }
        return problems;
    }

    public int taskCount() {
        return taskCount;
    }
}
