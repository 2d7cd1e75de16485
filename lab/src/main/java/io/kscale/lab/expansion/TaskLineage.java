package io.kscale.lab.expansion;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the members of the faulted expansion did to each task's state, seen from outside them: a
 * referee in the test's JVM. A task's durable state is a chain of copies: a member that gets the
 * task restores the last committed snapshot (written by the previous copy) and commits its own
 * after it. The chain forks when a copy commits after another copy restored from it: two members
 * then counted the task's keys side by side, each from its own state, which is a split. A frozen
 * or crashed member's copy is not a fork as long as its commits are refused (the group moved on).
 *
 * <p>Also keeps every delivery, to count records never delivered and records delivered again.
 */
final class TaskLineage {

    /** "task/copy" of every copy another copy restored from: such a copy must not commit again. */
    private final Set<String> superseded = ConcurrentHashMap.newKeySet();
    private final Set<Integer> forkedTasks = ConcurrentHashMap.newKeySet();
    private final Set<Integer> splitTasks = ConcurrentHashMap.newKeySet();
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final Map<String, Set<Long>> received = new ConcurrentHashMap<>();
    private final AtomicLong deliveries = new AtomicLong();
    private final AtomicLong outOfOrder = new AtomicLong();
    private final AtomicLong barrierOutOfOrder = new AtomicLong();
    private final AtomicLong barrierWithoutTaskCount = new AtomicLong();

    /** A copy of the task's state started from the snapshot that {@code writer} committed. */
    void restored(int task, String copy, Optional<String> writer) {
        writer.ifPresent(w -> superseded.add(task + "/" + w));
    }

    /** A copy's commit was accepted by the group. */
    void committed(int task, String copy) {
        if (superseded.contains(task + "/" + copy)) {
            if (forkedTasks.add(task)) {
                problem("task " + task + ": " + copy + " committed after another copy had restored from it (a split)");
            }
        }
    }

    /** The task's partitions are owned by two members; reported once per task. */
    void splitTask(int task, String problem) {
        if (splitTasks.add(task)) {
            problem(problem);
        }
    }

    /** @return tasks whose state forked or whose partitions two members owned at once */
    Set<Integer> splitTasks() {
        Set<Integer> split = new HashSet<>(forkedTasks);
        split.addAll(splitTasks);
        return split;
    }

    void delivered(String key, long sequence, boolean inOrder) {
        deliveries.incrementAndGet();
        received.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(sequence);
        if (!inOrder) {
            outOfOrder.incrementAndGet();
        }
    }

    void problem(String problem) {
        problems.add(problem);
    }

    List<String> problems() {
        return List.copyOf(problems);
    }

    long deliveries() {
        return deliveries.get();
    }

    long distinctRecords() {
        return received.values().stream().mapToLong(Set::size).sum();
    }

    /** @return records handed to the application after a higher number of their key, in the task's state */
    long outOfOrder() {
        return outOfOrder.get();
    }

    /** A member's barrier counted these records returned out of order (its {@code out-of-order-records-total}). */
    void barrierCounted(long records) {
        barrierOutOfOrder.addAndGet(records);
    }

    /** @return the records the members' barriers counted as returned out of order, all members together */
    long barrierOutOfOrder() {
        return barrierOutOfOrder.get();
    }

    /**
     * A member's barrier returned this many partitions' records unmerged because their topic's T
     * was not read in time (its {@code unknown-task-count-releases-total}; consumer protocol only).
     */
    void barrierReleasedWithoutTaskCount(long partitions) {
        barrierWithoutTaskCount.addAndGet(partitions);
    }

    /** @return the partitions the members' barriers released unmerged for want of T, all members together */
    long barrierWithoutTaskCount() {
        return barrierWithoutTaskCount.get();
    }

    /** @return records acknowledged to the producer but never delivered to any member */
    long missing(Map<String, Long> sentPerKey) {
        return CountingGroup.missing(received, sentPerKey);
    }
}
