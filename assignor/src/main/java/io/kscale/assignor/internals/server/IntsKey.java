package io.kscale.assignor.internals.server;

import java.util.Arrays;

/**
 * An int array as a hash map key, equal by content: a topic's readers, by which topics are told
 * apart into classes. A list of boxed integers, what this replaced, allocated an object per element.
 */
final class IntsKey {

    private final int[] values;
    private final int hash;

    /** @param values kept, not copied: the caller never changes them */
    IntsKey(int[] values) {
        this.values = values;
        this.hash = Arrays.hashCode(values);
    }

    int[] values() {
        return values;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IntsKey && hash == ((IntsKey) o).hash && Arrays.equals(values, ((IntsKey) o).values);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
