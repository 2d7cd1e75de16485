package io.kscale.assignor.internals.server.store;

import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.server.TaskCount;
import io.kscale.assignor.internals.store.TaskCountRecord;
import io.kscale.assignor.internals.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link KafkaTaskCountStore} knows of the task count topic, and the rules that turn it into
 * {@link TaskCount} answers. No I/O: the store's thread feeds it the records it reads
 * ({@link #onRecord}, {@link #onUnreadable}) and takes from it the proposals to write
 * ({@link #takeWrites}); the assignor's threads call {@link #lookup} and {@link #propose}, which
 * touch a {@link ConcurrentHashMap} and never block.
 *
 * <p><b>First record wins.</b> The topic is an append-only log (never compacted, never expired:
 * see {@link StoreTopic}), and the first record of a topic id in it is that topic's T forever.
 * A later record of the same id with another T can only come from a broker that decided before it
 * had read the first one (two groups on a new topic, on two brokers, within the same second); it
 * is ignored with an ERROR. So the entries here are never wrong, only possibly incomplete: an
 * entry, once read from the log, never changes; an entry this broker proposed changes at most once,
 * when the log shows that another broker's record came first.
 *
 * <p>Worked example. The log holds {@code [0] A->4}. Broker 1 loads it: {@code lookup(A)} is
 * known(4), {@code lookup(B)} is none stored. A group's {@code assign()} on broker 1 proposes
 * B->8: from then on {@code lookup(B)} is known(8) on broker 1 while the write is on its way.
 * Meanwhile broker 2, not having read it yet, proposed B->16 and its record landed first:
 * {@code [1] B->16, [2] B->8}. Reading offset 1, broker 1 switches B to 16 and logs an ERROR with
 * both counts (the groups on broker 1 that used 8 move their keys once), counted in
 * {@link #racesLost()}; offset 2, its own losing record, is ignored.
 *
 * <p><b>When "none stored" may be said.</b> Only when the topic has been read to its end not
 * longer than {@code maxStalenessMs} ago ({@link #caughtUp}). The danger it guards against: broker
 * 2 recorded T=4 for a new topic, an operator doubled the topic, and broker 1, whose reading has
 * been stuck since before broker 2's record, answers none stored: its group would take 8 from the
 * partition count, and keys would move when the record is read. While the reading lags more than
 * the bound, an id not known here answers not yet known (the assignor holds the group's new
 * partitions); ids known keep their answer, which cannot be wrong. A topic first used while the
 * reading lagged less than the bound could only be mis-counted if it was also expanded within
 * that bound of its first record, before this broker read it.
 *
 * <p><b>Unreadable records.</b> A record whose key names a topic id but whose value does not
 * decode may hold that topic's T: if it is the id's first record, the id answers not yet known for
 * good (its groups keep their targets and leave new partitions unassigned) and the ERROR says so.
 * A record whose key names no topic id cannot hold any topic's T and is only counted.
 *
 * <p><b>Migration seeds.</b> For an id neither the log nor a proposal knows, a T found in the
 * classic assignor's layouts under the id's fingerprint ({@link ClassicSeeds}) is taken as if
 * this broker proposed it, if it fits the topic's partition count: {@link #lookup} answers none
 * stored, and {@link #propose}, which the assignor calls next with the partition count, records
 * the seed instead of the proposal and the store writes it as the id's record.
 */
final class KnownTaskCounts {

    private static final Logger log = LoggerFactory.getLogger(KafkaTaskCountStore.class);

    /** Where an entry's T comes from. */
    enum Source {
        /** The id's first record in the log: final. */
        LOGGED,
        /** This broker's proposal (or a migration seed), not yet sent. */
        PROPOSED,
        /** This broker's proposal, sent, not yet read back. */
        SENT
    }

    /** One topic id's T and where it comes from. Immutable. */
    static final class Entry {
        final int taskCount;
        final int partitionCount;
        final long chosenAtMs;
        final Source source;
        /** The T this broker proposed and lost to an earlier record, or 0. */
        final int lostTaskCount;

        Entry(int taskCount, int partitionCount, long chosenAtMs, Source source, int lostTaskCount) {
            this.taskCount = taskCount;
            this.partitionCount = partitionCount;
            this.chosenAtMs = chosenAtMs;
            this.source = source;
            this.lostTaskCount = lostTaskCount;
        }

        Entry with(Source newSource) {
            return new Entry(taskCount, partitionCount, chosenAtMs, newSource, lostTaskCount);
        }
    }

    /** A proposal to write: the id and the record. */
    static final class Write {
        final Uuid topicId;
        final TaskCountRecord record;

        Write(Uuid topicId, TaskCountRecord record) {
            this.topicId = topicId;
            this.record = record;
        }
    }

    private final Clock time;
    private final long maxStalenessMs;
    private final String writer;
    private final ConcurrentHashMap<Uuid, Entry> entries = new ConcurrentHashMap<>();
    private final Set<Uuid> unreadable = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<Uuid> toWrite = new ConcurrentLinkedQueue<>();
    private volatile Map<Long, ClassicSeeds.Seed> seeds = Map.of();
    private volatile boolean loaded;
    private volatile boolean closed;
    /** The time the reading last reached the end offset it had asked for just before. */
    private volatile long caughtUpAsOfMs;
    /** Whether the topic read was lost and the one now of its name not yet read to its end. */
    private volatile boolean reloading;
    private final AtomicLong racesLost = new AtomicLong();
    private final AtomicLong seededTopics = new AtomicLong();
    private final AtomicLong conflictingRecords = new AtomicLong();

    /**
     * @param time           the clock
     * @param maxStalenessMs how old the last complete reading may be for "none stored" to be said
     * @param writer         this broker's name in the records it writes
     */
    KnownTaskCounts(Clock time, long maxStalenessMs, String writer) {
        this.time = time;
        this.maxStalenessMs = maxStalenessMs;
        this.writer = writer;
    }

    TaskCount lookup(Uuid topicId) {
        if (closed || !loaded || topicId == null) {
            return TaskCount.notYetKnown();
        }
        Entry entry = entries.get(topicId);
        if (entry != null) {
            return TaskCount.known(entry.taskCount);
        }
        if (unreadable.contains(topicId) || !caughtUp()) {
            return TaskCount.notYetKnown();
        }
        // A migration seed, if any, is taken by propose, which knows the topic's partition count.
        return TaskCount.noneStored();
    }

    int propose(Uuid topicId, int proposed, int partitionCount) {
        if (topicId == null || proposed < 1 || proposed > TopicLayout.MAX_COUNT) {
            log.error("Not recording task count {} for topic id {}: T must be 1..{} and the id given",
                    proposed, topicId, TopicLayout.MAX_COUNT);
            return proposed;
        }
        int count = partitionCount >= 0 && partitionCount <= TopicLayout.MAX_COUNT ? partitionCount : 0;
        ClassicSeeds.Seed seed = seeds.get(ClassicSeeds.fingerprint(topicId));
        int seeded = seed == null || count == 0 ? 0 : seed.taskCountFor(count);
        if (seed != null && seeded == 0) {
            log.warn("Topic id {} ({} partitions): not seeding T from the classic assignor's layouts {}: none fits the "
                    + "partition count (T at most the count and a divisor of it, seen with no more partitions). T is "
                    + "{}, as without classic layouts; a group that ran the classic assignor on it regroups its keys "
                    + "once.", topicId, partitionCount, seed, proposed);
        }
        Entry mine = seeded > 0 ? new Entry(seeded, seed.partitionCount(seeded), time.milliseconds(), Source.PROPOSED, 0)
                : new Entry(proposed, count, time.milliseconds(), Source.PROPOSED, 0);
        Entry known = entries.putIfAbsent(topicId, mine);
        if (known != null) {
            return known.taskCount;
        }
        if (seeded > 0) {
            seededTopics.incrementAndGet();
            log.info("Topic id {}: T={} from the classic assignor's layout of group(s) {}; recording it as the "
                    + "topic's task count", topicId, seeded, seed.groups(seeded));
        }
        if (unreadable.contains(topicId)) {
            log.error("Topic id {}: T={} proposed although the id's stored record is unreadable; not writing it",
                    topicId, mine.taskCount);
            return mine.taskCount;
        }
        toWrite.add(topicId);
        return mine.taskCount;
    }

    /**
     * Takes the record of the id's first record in the log, or ignores it if the id has one.
     *
     * @param topicId the record's topic id
     * @param record  the decoded record
     * @param offset  its offset, for the logs
     */
    void onRecord(Uuid topicId, TaskCountRecord record, long offset) {
        Entry logged = new Entry(record.taskCount(), record.partitionCount(), record.chosenAtMs(), Source.LOGGED, 0);
        if (unreadable.contains(topicId)) {
            conflictingRecords.incrementAndGet();
            log.error("Ignoring {} of topic id {} at offset {}: the id's first record is unreadable, so its task count "
                    + "stays unknown", record, topicId, offset);
            return;
        }
        Entry[] before = new Entry[1];
        Entry after = entries.compute(topicId, (id, current) -> {
            before[0] = current;
            if (current == null) {
                return logged;
            }
            if (current.source == Source.LOGGED) {
                return current;
            }
            return current.taskCount == record.taskCount() ? current.with(Source.LOGGED)
                    : new Entry(record.taskCount(), record.partitionCount(), record.chosenAtMs(), Source.LOGGED,
                            current.taskCount);
        });
        Entry current = before[0];
        if (current == null || current.taskCount == record.taskCount()) {
            return;
        }
        if (current.source != Source.LOGGED) {
            racesLost.incrementAndGet();
            log.error("Topic id {}: this broker chose T={}, but the task count topic's first record of the id, at "
                    + "offset {}, is {}: another broker chose first. Using T={} from now on; groups on this broker "
                    + "that used T={} move their keys once.", topicId, current.taskCount, offset, record,
                    after.taskCount, current.taskCount);
        } else if (record.taskCount() == current.lostTaskCount) {
            log.info("Topic id {}: ignoring this broker's own losing record T={} at offset {}; T={} stays",
                    topicId, record.taskCount(), offset, current.taskCount);
        } else {
            conflictingRecords.incrementAndGet();
            log.error("Topic id {}: ignoring {} at offset {}: the id's first record holds T={}, which stays (two "
                    + "brokers chose before reading each other's record)", topicId, record, offset, current.taskCount);
        }
    }

    /**
     * A record that names the topic id but does not decode: if it is the id's first, the id's T
     * is unknown for good. This broker's own unconfirmed proposal is dropped with it: the log may
     * hold another T.
     */
    void onUnreadable(Uuid topicId, long offset, int valueBytes) {
        Entry[] dropped = new Entry[1];
        entries.computeIfPresent(topicId, (id, current) -> {
            if (current.source == Source.LOGGED) {
                return current;
            }
            dropped[0] = current;
            return null;
        });
        Entry known = entries.get(topicId);
        if (known != null) {
            log.warn("Ignoring the unreadable record of topic id {} at offset {} ({} bytes): the id's first record "
                    + "holds T={}, which stays", topicId, offset, valueBytes, known.taskCount);
            return;
        }
        unreadable.add(topicId);
        log.error("The first record of topic id {} in the task count topic, at offset {} ({} bytes), is unreadable: "
                + "it may hold the topic's T, so the topic's task count stays unknown, and groups on it keep their "
                + "targets and leave new partitions unassigned{}. Look at the record with the console consumer "
                + "(see docs/operations.md).", topicId, offset, valueBytes,
                dropped[0] == null ? "" : " (this broker's T=" + dropped[0].taskCount + " is dropped)");
    }

    /** @return the proposals to write now, marked sent */
    List<Write> takeWrites() {
        List<Write> writes = new ArrayList<>();
        for (Uuid id = toWrite.poll(); id != null; id = toWrite.poll()) {
            Entry entry = entries.get(id);
            if (entry != null && entry.source == Source.PROPOSED && !unreadable.contains(id)
                    && entries.replace(id, entry, entry.with(Source.SENT))) {
                writes.add(new Write(id, new TaskCountRecord(entry.taskCount, entry.partitionCount, entry.chosenAtMs,
                        writer)));
            }
        }
        return writes;
    }

    /** A write failed: it is written again with the next ones, unless the log has the id by then. */
    void onWriteFailed(Uuid topicId) {
        Entry entry = entries.get(topicId);
        if (entry != null && entry.source == Source.SENT && entries.replace(topicId, entry, entry.with(Source.PROPOSED))) {
            toWrite.add(topicId);
        }
    }

    /** The topic was read to the end offset asked for at {@code asOfMs}. */
    void caughtUpAsOf(long asOfMs) {
        caughtUpAsOfMs = asOfMs;
        reloading = false;
    }

    boolean caughtUp() {
        return !reloading && time.milliseconds() - caughtUpAsOfMs <= maxStalenessMs;
    }

    /**
     * The topic that was read is gone (deleted, or deleted and re-created): ids not known here
     * answer not yet known until {@link #caughtUpAsOf} says that the topic now of that name was
     * read from its beginning, and every T known here is to be written again into it, unless
     * its log holds the id by then. Entries stay: they are each id's first record of the old log,
     * or this broker's proposal, and the new log's first record of an id still wins over them
     * ({@link #onRecord}).
     *
     * @return how many task counts are to be written again
     */
    int storeTopicLost() {
        reloading = true;
        int again = 0;
        for (Map.Entry<Uuid, Entry> known : entries.entrySet()) {
            Entry entry = known.getValue();
            if (entry.source != Source.PROPOSED) {
                entries.replace(known.getKey(), entry, entry.with(Source.PROPOSED));
            }
            toWrite.add(known.getKey());
            again++;
        }
        return again;
    }

    void markLoaded() {
        loaded = true;
    }

    boolean loaded() {
        return loaded && !closed;
    }

    void close() {
        closed = true;
    }

    void seeds(Map<Long, ClassicSeeds.Seed> seeds) {
        this.seeds = Map.copyOf(seeds);
    }

    /** @return the entry of an id (tests) */
    Optional<Entry> entry(Uuid topicId) {
        return Optional.ofNullable(entries.get(topicId));
    }

    int knownTopics() {
        return entries.size();
    }

    long racesLost() {
        return racesLost.get();
    }

    long seededTopics() {
        return seededTopics.get();
    }

    long conflictingRecords() {
        return conflictingRecords.get();
    }

    int unreadableTopics() {
        return unreadable.size();
    }
}
