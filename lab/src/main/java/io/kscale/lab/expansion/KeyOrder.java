package io.kscale.lab.expansion;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-key order as the application sees it, across all members of a group: every record handed
 * to the application is checked against the highest number of its key handed out before, by any
 * member. A record with a lower number came out of order: the key's later records reached some
 * member first (a child partition read before its parent, or a key split across members).
 */
final class KeyOrder {

    private final ConcurrentHashMap<String, Long> highest = new ConcurrentHashMap<>();
    private final Set<String> keysOutOfOrder = ConcurrentHashMap.newKeySet();
    private final AtomicLong recordsOutOfOrder = new AtomicLong();

    void delivered(String key, long sequence) {
        highest.compute(key, (k, max) -> {
            if (max != null && sequence < max) {
                recordsOutOfOrder.incrementAndGet();
                keysOutOfOrder.add(key);
                return max;
            }
            return sequence;
        });
    }

    /** @return keys with at least one record handed out after a higher number of the same key */
    int keysOutOfOrder() {
        return keysOutOfOrder.size();
    }

    /** @return records handed out after a higher number of their key */
    long recordsOutOfOrder() {
        return recordsOutOfOrder.get();
    }
}
