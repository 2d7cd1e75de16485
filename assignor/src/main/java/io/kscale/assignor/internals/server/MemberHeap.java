package io.kscale.assignor.internals.server;

import java.util.Arrays;

/**
 * Members by load, least loaded first, ties to the lowest index: a binary heap of member indexes
 * over a load array the caller owns, in place of a {@code PriorityQueue<Integer>} with a
 * comparator (which boxes, and calls through the comparator at every step: most of a fresh
 * group's placement of 10,000 single-partition units). A member's load must not change while it
 * is in the heap: take it out, change it, put it back.
 */
final class MemberHeap {

    private final long[] load;
    private int[] heap;
    private int size;

    /** @param load by member: its load, read at every comparison */
    MemberHeap(long[] load, int capacity) {
        this.load = load;
        this.heap = new int[Math.max(1, capacity)];
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** @return the least loaded member, still in the heap */
    int peek() {
        return heap[0];
    }

    void add(int member) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) / 2;
            if (!before(member, heap[parent])) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = member;
    }

    /** @return the least loaded member, taken out */
    int poll() {
        int first = heap[0];
        int last = heap[--size];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && before(heap[child + 1], heap[child])) {
                child++;
            }
            if (!before(heap[child], last)) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        if (size > 0) {
            heap[i] = last;
        }
        return first;
    }

    private boolean before(int a, int b) {
        return load[a] != load[b] ? load[a] < load[b] : a < b;
    }
}
