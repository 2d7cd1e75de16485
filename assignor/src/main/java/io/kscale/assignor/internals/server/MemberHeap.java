package io.kscale.assignor.internals.server;

/**
 * Members by load, least loaded first, ties to the lowest index ({@link #lightestFirst}), or
 * the reverse ({@link #heaviestFirst}): a binary heap of member indexes over a load array the
 * caller owns, in place of a {@code PriorityQueue<Integer>} or a {@code TreeSet<Integer>} with a
 * comparator (which box, and call through the comparator at every step: most of a fresh group's
 * placement of 10,000 single-partition units). When a member's load changes while it is in the
 * heap, {@link #update} must be called for it before any other call.
 *
 * <p>Each member's place in the heap is kept in a {@code position} array indexed by member, so
 * that any member's load can change ({@link #update}) in O(log n), not only the first's. Heaps
 * whose members are disjoint (one per rack) may share one position array.
 */
final class MemberHeap {

    private final long[] load;
    /** Whether the most loaded member comes first (ties to the highest index). */
    private final boolean heaviestFirst;
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
    private MemberHeap(long[] load, int capacity, int[] position, boolean heaviestFirst) {
        this.load = load;
        this.heaviestFirst = heaviestFirst;
        this.heap = new int[Math.max(1, capacity)];
        this.position = position;
    }

    /** @return an empty heap whose first member is the least loaded, ties to the lowest index (see the constructor) */
    static MemberHeap lightestFirst(long[] load, int capacity, int[] position) {
        return new MemberHeap(load, capacity, position, false);
    }

    /** @return an empty heap whose first member is the most loaded, ties to the highest index (see the constructor) */
    static MemberHeap heaviestFirst(long[] load, int capacity, int[] position) {
        return new MemberHeap(load, capacity, position, true);
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** @return whether the member is in this heap */
    boolean contains(int member) {
        int i = position[member];
        return i >= 0 && i < size && heap[i] == member; // position is shared and never cleared
    }

    /** @return the first member (the least loaded, or the most), still in the heap */
    int peek() {
        return heap[0];
    }

    /**
     * Adds members to an empty heap in O(n) (bottom-up, Floyd's construction), where n adds would
     * take O(n log n): a heaviest-first heap filled in index order sifts each member to the top.
     * The heap's order is total (load, then index), so which member comes first does not depend on
     * how it was built.
     */
    void addAll(int[] members) {
        if (size != 0) {
            throw new IllegalStateException("addAll needs an empty heap, it holds " + size);
        }
        System.arraycopy(members, 0, heap, 0, members.length);
        size = members.length;
        for (int i = 0; i < size; i++) {
            position[heap[i]] = i;
        }
        for (int i = size / 2 - 1; i >= 0; i--) {
            siftDown(i);
        }
    }

    void add(int member) {
        heap[size] = member;
        position[member] = size;
        siftUp(size++);
    }

    /** @return the first member, taken out */
    int poll() {
        int first = heap[0];
        removeAt(0);
        return first;
    }

    /** Restores the order after the load of a member in this heap changed: O(log n), in place of a removal and an add. */
    void update(int member) {
        int i = position[member];
        siftUp(i);
        siftDown(position[member]);
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
        if (heaviestFirst) {
            return load[a] != load[b] ? load[a] > load[b] : a > b;
        }
        return load[a] != load[b] ? load[a] < load[b] : a < b;
    }
}
