package io.kscale.assignor.internals.placement;

import java.util.Arrays;

/**
 * How many tasks of each co-location group each client holds: the counts behind every
 * group-spread tie break of a balancing pass. Mutable; used by one thread for one {@link Pool}.
 *
 * <p>Balancing asks for a count far more often than it changes one: placing a task compares its
 * group's count on every candidate client. So the counts sit in an open-addressing table of
 * primitive {@code (group, client)} keys, without a boxed {@code Long} key and {@code Integer}
 * value per lookup, and a count per group answers 0 without any lookup while no client holds a
 * task of the group. By default a consumer's task is a group of its own, so that is every lookup
 * made while a fresh group's tasks are handed out: 1,000 units tried on 2,000 members made the
 * boxed map most of a fresh assignment's time.
 *
 * <p>Example: 3 clients, task 7 of group 2 placed on client 1: key {@code 2 * 3 + 1 = 7} counts
 * 1, the count of group 2 is 1; {@code count(2, 0)} finds no key 6 and answers 0, and
 * {@code count(5, c)} answers 0 from the count of group 5 alone.
 */
final class GroupCounts {

    private static final long EMPTY = -1;

    private final int clientCount;
    /** By group: how many of its tasks the clients hold in all. */
    private final int[] groupTotals;
    private long[] keys;
    private int[] counts;
    private int size;

    GroupCounts(int groupCount, int clientCount) {
        this.clientCount = clientCount;
        this.groupTotals = new int[groupCount];
        this.keys = new long[16];
        Arrays.fill(keys, EMPTY);
        this.counts = new int[16];
    }

    /** @return how many tasks of the group the client holds */
    int count(int group, int client) {
        if (groupTotals[group] == 0) {
            return 0;
        }
        int slot = slot(key(group, client));
        return keys[slot] == EMPTY ? 0 : counts[slot];
    }

    /** Adds {@code delta} (1 or -1) to the client's count of the group. */
    void add(int group, int client, int delta) {
        groupTotals[group] += delta;
        long key = key(group, client);
        int slot = slot(key);
        if (keys[slot] == EMPTY) {
            keys[slot] = key;
            size++;
        }
        counts[slot] += delta;
        if (size * 2 > keys.length) {
            grow();
        }
    }

    private long key(int group, int client) {
        return (long) group * clientCount + client;
    }

    /** @return the slot holding the key, or the empty slot where it goes */
    private int slot(long key) {
        int mask = keys.length - 1;
        int slot = mix(key) & mask;
        while (keys[slot] != EMPTY && keys[slot] != key) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    private static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldCounts = counts;
        keys = new long[oldKeys.length * 2];
        Arrays.fill(keys, EMPTY);
        counts = new int[oldKeys.length * 2];
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != EMPTY) {
                int slot = slot(oldKeys[i]);
                keys[slot] = oldKeys[i];
                counts[slot] = oldCounts[i];
            }
        }
    }
}
