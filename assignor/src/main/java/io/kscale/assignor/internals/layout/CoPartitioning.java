package io.kscale.assignor.internals.layout;

/**
 * Which topics share tasks: the topics whose task {@code t} always goes to one member together.
 * Either way a topic's own partitions of a task stay together, so key affinity across expansions
 * holds; the choice is only about keys that meet across topics.
 */
public enum CoPartitioning {
    /**
     * Among the topics subscribed by the same members, those with the same task count T are
     * co-partitioned: unit {@code T:t} holds task t of each, so a key's records in two topics (a
     * join) reach the same member, as Samza's {@code GroupByPartition} and Kafka Streams'
     * co-partitioning ensure. Many unrelated topics of one size then form only T units.
     */
    BY_TASK_COUNT,
    /**
     * Every topic's tasks are units of their own ({@code topic:T:t}), balanced independently:
     * 1,000 topics of 1,000 partitions give a million units to spread, not 1,000. A key's records
     * in two topics may reach different members.
     */
    NONE
}
