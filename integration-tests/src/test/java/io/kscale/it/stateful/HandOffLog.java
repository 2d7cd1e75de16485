package io.kscale.it.stateful;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the members of one run did with their tasks, in time order: each assignment as active
 * (with the records the new owner still had to restore at that moment), each moment a task
 * became ready to process, each revocation. Appended from the members' poll threads.
 */
final class HandOffLog {

    enum Kind { ASSIGNED, READY, REVOKED }

    /** One event; {@code recordsToRestore} is set for ASSIGNED only. */
    static final class Event {
        final Kind kind;
        final String member;
        final int task;
        final long atMs;
        final long recordsToRestore;

        Event(Kind kind, String member, int task, long atMs, long recordsToRestore) {
            this.kind = kind;
            this.member = member;
            this.task = task;
            this.atMs = atMs;
            this.recordsToRestore = recordsToRestore;
        }

        @Override
        public String toString() {
            return kind + " " + member + " task " + task + " at " + atMs
                    + (kind == Kind.ASSIGNED ? " restore " + recordsToRestore : "");
        }
    }

    private final List<Event> events = new ArrayList<>();
    /** Records a member was handed for a task it did not own or had not restored: must stay 0. */
    final AtomicLong processedWhileRestoring = new AtomicLong();

    synchronized void add(Kind kind, String member, int task, long recordsToRestore) {
        events.add(new Event(kind, member, task, System.currentTimeMillis(), recordsToRestore));
    }

    synchronized List<Event> events() {
        return new ArrayList<>(events);
    }
}
