package io.kscale.assignor.internals.server;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * An immutable set of partition numbers backed by a sorted {@code int[]}: what a member's
 * assignment of one topic holds. A million partitions as boxed {@code HashSet}s would cost tens
 * of megabytes per assignment; this costs four bytes a partition, and {@code contains} is a
 * binary search. Equal to any {@code Set<Integer>} with the same elements.
 */
final class SortedPartitions extends AbstractSet<Integer> {

    private final int[] partitions;

    /** @param partitions ascending, no duplicates; not copied, so the caller must not change it */
    SortedPartitions(int[] partitions) {
        this.partitions = partitions;
    }

    /**
     * @return the set's partition numbers, a null as -1: this set's own array (not to be changed)
     *         or a new one, so that a large target is read without boxing
     */
    static int[] numbers(Set<Integer> set) {
        if (set instanceof SortedPartitions) {
            return ((SortedPartitions) set).partitions;
        }
        int[] numbers = new int[set.size()];
        int i = 0;
        for (Integer p : set) {
            if (i == numbers.length) {
                break; // a set that yields more than its size: read no further
            }
            numbers[i++] = p == null ? -1 : p;
        }
        return i == numbers.length ? numbers : Arrays.copyOf(numbers, i);
    }

    @Override
    public boolean contains(Object o) {
        return o instanceof Integer && Arrays.binarySearch(partitions, (Integer) o) >= 0;
    }

    @Override
    public Iterator<Integer> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < partitions.length;
            }

            @Override
            public Integer next() {
                if (next >= partitions.length) {
                    throw new NoSuchElementException();
                }
                return partitions[next++];
            }
        };
    }

    @Override
    public int size() {
        return partitions.length;
    }
}
