package io.kscale.assignor.internals.server;

/**
 * Members by load, least loaded first, ties to the lowest index: a binary heap of member indexes
 * over a load array the caller owns, in place of a {@code PriorityQueue<Integer>} with a
 * comparator (which boxes, and calls through the comparator at every step: most of a fresh
 * group's placement of 10,000 single-partition units). A member's load must not change while it
 * is in the heap: take it out ({@link #poll} or {@link #remove}), change it, put it back.
 *
 * <p>Each member's place in the heap is kept in a {@code position} array indexed by member, so
 * that any member can be taken out in O(log n), not only the least loaded. Heaps whose members
 * are disjoint (one per rack) may share one position array.
 */
final class MemberHeap {

    private final long[] load;
    private final int[] heap;
    /** By member: its index in {@link #heap} while it is in this heap; shared, so not cleared. */
    private final int[] position;
    private int size;

    /**
     * @param load     by member: its load, read at every comparison
     * @param capacity the most members this heap holds at once
     * @param position by member, at least as long as {@code load}: scratch space for the heap's
     *                 index of each of its members
     */
    MemberHeap(long[] load, int capacity, int[] position) {
        this.load = load;
        this.heap = new int[Math.max(1, capacity)];
        this.position = position;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** @return the least loaded member, still in the heap */
    int peek() {
        return heap[0];
    }

    void add(int member) {
        heap[size] = member;
        position[member] = size;
        siftUp(size++);
    }

    /** @return the least loaded member, taken out */
    int poll() {
        int first = heap[0];
        removeAt(0);
        return first;
    }

    /** Takes out a member that is in this heap. */
    void remove(int member) {
        removeAt(position[member]);
    }

    private void removeAt(int i) {
        int last = heap[--size];
        if (i == size) {
            return;
        }
        heap[i] = last;
        position[last] = i;
        siftDown(i);
        siftUp(position[last]);
    }

    private void siftUp(int i) {
        int member = heap[i];
        while (i > 0) {
            int parent = (i - 1) / 2;
            if (!before(member, heap[parent])) {
                break;
            }
            heap[i] = heap[parent];
            position[heap[i]] = i;
            i = parent;
        }
        heap[i] = member;
        position[member] = i;
    }

    private void siftDown(int i) {
        int member = heap[i];
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && before(heap[child + 1], heap[child])) {
                child++;
            }
            if (!before(heap[child], member)) {
                break;
            }
            heap[i] = heap[child];
            position[heap[i]] = i;
            i = child;
        }
        heap[i] = member;
        position[member] = i;
    }

    private boolean before(int a, int b) {
        return load[a] != load[b] ? load[a] < load[b] : a < b;
    }
}
