package io.kscale.assignor.internals.server;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.IntConsumer;

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
     * Hands each of the set's partition numbers to {@code action}, a null as -1, without boxing
     * this set's numbers or copying another set's: a large target is read once. Reads no more
     * than the set's size, even from a set that yields more.
     */
    static void forEachNumber(Set<Integer> set, IntConsumer action) {
        if (set instanceof SortedPartitions) {
            for (int p : ((SortedPartitions) set).partitions) {
                action.accept(p);
            }
            return;
        }
        if (set instanceof PartitionsAdded) {
            ((PartitionsAdded) set).forEachNumber(action);
            return;
        }
        int left = set.size();
        for (Integer p : set) {
            if (left-- == 0) {
                break;
            }
            action.accept(p == null ? -1 : p);
        }
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
