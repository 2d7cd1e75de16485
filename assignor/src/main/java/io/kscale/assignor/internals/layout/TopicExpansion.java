package io.kscale.assignor.internals.layout;

import io.kscale.assignor.internals.layout.LayoutChange.Kind;

/**
 * Decides one topic's new layout from its old layout, the partition count in the metadata, a
 * declared task count and the policy. Every input is legal here: an odd one is a
 * {@link Kind#INVALID_INPUT} change, never an exception.
 *
 * <p>The rules, in this order (T is the old task count, n the old partition count, c the new):
 * <ol>
 *   <li>unusable name or count: {@link Kind#INVALID_INPUT}, layout unchanged;</li>
 *   <li>a topic not in the layout: {@link Kind#ADDED} with T = the declared count, else c;</li>
 *   <li>a topic id in the metadata other than the layout's: {@link Kind#RECREATED}, a fresh layout
 *       as for {@link Kind#ADDED} (the old T and count belonged to a deleted topic);</li>
 *   <li>a declared count other than T: {@link Kind#DECLARED}, T = the declared count (the
 *       operator asked for it; the policy never overrides a declaration, so the two cannot
 *       undo each other on every rebalance);</li>
 *   <li>c == n: nothing, or {@link Kind#IDENTIFIED} if the layout had no id and the metadata
 *       names one; c &lt; n: {@link Kind#SHRUNK}, layout unchanged (an id-less layout adopts no id
 *       then: stale metadata or a re-created topic, it cannot tell, and keeps today's rule);</li>
 *   <li>c a multiple of T: {@link Kind#EXPANDED} if n was one too, else {@link Kind#REALIGNED};</li>
 *   <li>otherwise {@link Kind#NOT_A_MULTIPLE}: T kept ({@link ExpansionPolicy#KEEP}, or a declared
 *       T) or T = c ({@link ExpansionPolicy#REBASE}).</li>
 * </ol>
 * Every layout that changes takes the metadata's topic id, or keeps its own if the metadata has
 * none (old metadata: no re-creation can be told then).
 * Why REALIGNED breaks affinity although c is a multiple of T: while n was not a multiple, a key
 * in partition {@code hash % n} sat in task {@code (hash % n) % T}, which is not always
 * {@code hash % T}; at c it is {@code hash % T} again. Example, T = 4: at n = 6 a key with
 * hash 10 is in partition 4, task 0; at c = 8 it is in partition 2, task 2.
 */
public final class TopicExpansion {

    private TopicExpansion() {
    }

    /**
     * @return the change, or null if the topic's layout stays as it is and nothing is worth reporting
     */
    static LayoutChange decide(String topic, TopicLayout old, Integer count, long topicId, Integer declared,
                               ExpansionPolicy policy) {
        if (!TopicLayout.isLegalName(topic)) {
            return invalid(topic, old, count, "the name is not a legal Kafka topic name");
        }
        if (count == null || !TopicLayout.isLegalCount(count)) {
            return invalid(topic, old, count, "partition count " + count + " is outside 1.." + TopicLayout.MAX_COUNT);
        }
        if (old == null) {
            return identified(added(topic, count, declared), topicId);
        }
        long oldId = old.topicId().orElse(TopicLayout.NO_ID);
        if (topicId != TopicLayout.NO_ID && oldId != TopicLayout.NO_ID && topicId != oldId) {
            return recreated(old, count, topicId, declared);
        }
        long id = topicId != TopicLayout.NO_ID ? topicId : oldId;
        if (declared != null && declared != old.taskCount()) {
            return identified(declaredChange(old, count, declared), id);
        }
        int before = old.partitionCount();
        if (count == before) {
            if (oldId == TopicLayout.NO_ID && id != TopicLayout.NO_ID) {
                return new LayoutChange(topic, Kind.IDENTIFIED, old, old.withTopicId(id), count, String.format(
                        "topic '%s': the metadata names its topic id (fingerprint %s) for the first time; the layout "
                                + "(T=%d, %d partitions) now belongs to it, and a topic re-created under this name will "
                                + "start afresh.", topic, TopicLayout.idString(id), old.taskCount(), before));
            }
            return null;
        }
        if (count < before) {
            return new LayoutChange(topic, Kind.SHRUNK, old, old, count, String.format(
                    "topic '%s': the metadata reports %d partitions, fewer than the %d seen before. Kafka cannot remove "
                            + "partitions, so the metadata is stale: the layout keeps %d partitions in T=%d tasks and loses "
                            + "no task; only the partitions the metadata lists are assigned until it catches up. Where the "
                            + "metadata carries topic ids, a deleted and re-created topic is told apart and starts afresh.",
                    topic, count, before, before, old.taskCount()));
        }
        return provisional(identified(grown(old, count, policy, declared), id), old);
    }

    /**
     * The change with its new layout provisional if the old one was: an expansion keeps a guessed T
     * a guess (issue 17). A declared or re-created T is no guess, so those changes do not call this.
     */
    private static LayoutChange provisional(LayoutChange change, TopicLayout old) {
        TopicLayout after = change.after().orElse(null);
        if (!old.isProvisional() || after == null || after.isProvisional()) {
            return change;
        }
        return new LayoutChange(change.topic(), change.kind(), old, after.withProvisional(true),
                change.observedPartitionCount().orElse(after.partitionCount()), change.message());
    }

    private static LayoutChange grown(TopicLayout old, int count, ExpansionPolicy policy, Integer declared) {
        String topic = old.topic();
        int before = old.partitionCount();
        int tasks = old.taskCount();
        if (count % tasks == 0) {
            TopicLayout after = TopicLayout.of(topic, tasks, count);
            if (old.isAligned()) {
                return new LayoutChange(topic, Kind.EXPANDED, old, after, count, String.format(
                        "topic '%s': partitions %d -> %d, a multiple of T=%d: every key stays in its task "
                                + "(partition p belongs to task p %% %d).", topic, before, count, tasks, tasks));
            }
            return new LayoutChange(topic, Kind.REALIGNED, old, after, count, String.format(
                    "topic '%s': partitions %d -> %d, a multiple of T=%d again: keys written while the topic had %d "
                            + "partitions may move to another task once more; older keys are back in their original task. "
                            + "Expand only to multiples of %d from now on.", topic, before, count, tasks, before, tasks));
        }
        return notAMultiple(old, count, policy == ExpansionPolicy.REBASE && declared == null, declared != null);
    }

    /** The change with the topic id in its new layout; the change itself if it has none or no id is known. */
    private static LayoutChange identified(LayoutChange change, long topicId) {
        TopicLayout after = change.after().orElse(null);
        if (topicId == TopicLayout.NO_ID || after == null || !change.kind().changesLayout()) {
            return change;
        }
        return new LayoutChange(change.topic(), change.kind(), change.before().orElse(null), after.withTopicId(topicId),
                change.observedPartitionCount().orElse(after.partitionCount()), change.message());
    }

    private static LayoutChange recreated(TopicLayout old, int count, long topicId, Integer declared) {
        String topic = old.topic();
        TopicLayout after = added(topic, count, declared).after().orElseThrow().withTopicId(topicId);
        return new LayoutChange(topic, Kind.RECREATED, old, after, count, String.format(
                "topic '%s' was deleted and re-created: its topic id changed (fingerprint %s, was %s). It is a new topic: "
                        + "T=%d from %s, %d partitions, and no member counts as the prior owner of its tasks (the old "
                        + "layout had T=%d and %d partitions; state kept for the old topic's keys does not apply to it).",
                topic, TopicLayout.idString(topicId), TopicLayout.idString(old.topicId().orElseThrow()),
                after.taskCount(), declared == null ? "its partition count" : "the declared task count", count,
                old.taskCount(), old.partitionCount()));
    }

    private static LayoutChange added(String topic, int count, Integer declared) {
        int tasks = declared == null ? count : declared;
        TopicLayout after = TopicLayout.of(topic, tasks, count);
        String origin = declared == null ? "its partition count" : "the task count declared for it";
        String alignment = after.isAligned() ? "" : String.format(" %d partitions are not a multiple of %d: until the topic "
                + "has a multiple of %d partitions, keys are not all in task hash %% %d.", count, tasks, tasks, tasks);
        return new LayoutChange(topic, Kind.ADDED, null, after, count, String.format(
                "topic '%s': first seen with %d partitions; T=%d tasks, %s.%s", topic, count, tasks, origin, alignment));
    }

    private static LayoutChange declaredChange(TopicLayout old, int count, int declared) {
        String topic = old.topic();
        TopicLayout after = TopicLayout.of(topic, declared, Math.max(count, old.partitionCount()));
        return new LayoutChange(topic, Kind.DECLARED, old, after, count, String.format(
                "topic '%s': the declared task count %d replaces T=%d: task t now holds every partition p with "
                        + "p %% %d == t, so keys may move to another task, and their state starts from zero there. If that "
                        + "was not intended, declare %d for the topic again.", topic, declared, old.taskCount(), declared,
                old.taskCount()));
    }

    private static LayoutChange notAMultiple(TopicLayout old, int count, boolean rebase, boolean declared) {
        String topic = old.topic();
        int tasks = old.taskCount();
        String broken = String.format("topic '%s': partitions %d -> %d is not a multiple of T=%d, so key affinity is "
                + "broken for this topic: some keys now hash to a partition of another task, and their state starts from "
                + "zero on its owner. ", topic, old.partitionCount(), count, tasks);
        if (rebase) {
            return new LayoutChange(topic, Kind.NOT_A_MULTIPLE, old, TopicLayout.of(topic, count, count), count, broken
                    + String.format("Policy REBASE: T is now %d, every key may move task once. To keep affinity from now on, "
                    + "expand the topic only to multiples of %d.", count, count));
        }
        long next = ((long) count / tasks + 1) * tasks;
        String why = declared ? "T=" + tasks + " is declared for this topic" : "policy KEEP";
        return new LayoutChange(topic, Kind.NOT_A_MULTIPLE, old, TopicLayout.of(topic, tasks, count), count, broken
                + String.format("T stays %d (%s): task t holds every partition p with p %% %d == t. To restore affinity, "
                + "add partitions up to a multiple of %d (next: %d); keys written until then move once more.",
                tasks, why, tasks, tasks, next));
    }

    private static LayoutChange invalid(String topic, TopicLayout old, Integer count, String reason) {
        String name = topic == null ? "(null)" : topic;
        return new LayoutChange(name, Kind.INVALID_INPUT, old, old, count, String.format(
                "topic '%s': ignored the metadata because %s; the layout of the topic is unchanged.", name, reason));
    }
}
