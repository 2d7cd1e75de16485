package io.kscale.lab.expansion;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One task's counts as the faulted expansion's members commit them: per key the records counted
 * and the highest number seen, and which copy of the task's state wrote it. Encoded into the
 * offset commit metadata of the task's first partition ({@code t} for task {@code t}), for
 * example {@code v1|member-0#2|key-3=41:40,key-7=40:39}: well under the broker's
 * {@code offset.metadata.max.bytes} (4,096 by default) for the scenario's 200 keys over 4 tasks.
 */
final class TaskSnapshot {

    private static final String VERSION = "v1";

    private final String writer;
    private final Map<String, long[]> counts;

    TaskSnapshot(String writer, Map<String, long[]> counts) {
        this.writer = writer;
        this.counts = counts;
    }

    /** @return an empty snapshot with no writer, for a task nobody has committed yet */
    static TaskSnapshot empty() {
        return new TaskSnapshot(null, new HashMap<>());
    }

    /**
     * @param metadata the committed metadata of the task's first partition, null or empty if none
     * @return the snapshot
     * @throws IllegalArgumentException if the metadata is not a snapshot
     */
    static TaskSnapshot decode(String metadata) {
        if (metadata == null || metadata.isEmpty()) {
            return empty();
        }
        String[] parts = metadata.split("\\|", -1);
        if (parts.length != 3 || !VERSION.equals(parts[0])) {
            throw new IllegalArgumentException("not a task snapshot: '" + metadata + "'");
        }
        Map<String, long[]> counts = new HashMap<>();
        if (!parts[2].isEmpty()) {
            for (String entry : parts[2].split(",")) {
                int eq = entry.indexOf('=');
                int colon = entry.indexOf(':', eq);
                counts.put(entry.substring(0, eq), new long[] {
                    Long.parseLong(entry.substring(eq + 1, colon)), Long.parseLong(entry.substring(colon + 1))});
            }
        }
        return new TaskSnapshot(parts[1], counts);
    }

    String encode() {
        StringBuilder out = new StringBuilder(VERSION).append('|').append(writer).append('|');
        boolean first = true;
        for (Map.Entry<String, long[]> entry : counts.entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            out.append(entry.getKey()).append('=').append(entry.getValue()[0]).append(':').append(entry.getValue()[1]);
        }
        return out.toString();
    }

    /** @return the copy of the task's state that committed this snapshot, if any did */
    Optional<String> writer() {
        return Optional.ofNullable(writer);
    }

    /** @return per key: {records counted, highest number seen}; a copy the caller may change */
    Map<String, long[]> counts() {
        Map<String, long[]> copy = new HashMap<>();
        counts.forEach((key, value) -> copy.put(key, value.clone()));
        return copy;
    }
}
