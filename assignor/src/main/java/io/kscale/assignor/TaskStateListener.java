package io.kscale.assignor;

import java.util.Map;
import java.util.Set;

/**
 * The member-side hooks of a stateful consumer: it tells {@link KeyPreservingAssignor} how far
 * its local state of each task is behind, and hears which tasks to warm up and which state it
 * may delete. With these, a task moves to a new member only once that member has caught up
 * (KIP-441's smooth scale-out, in a plain consumer group): the prior owner keeps the task while
 * the new member restores a copy, and a follow-up rebalance moves it.
 *
 * <p>Register one per consumer with {@value KeyPreservingAssignorConfig#TASK_STATE_LISTENER_CONFIG},
 * as an instance in the configuration map given to the consumer:
 * <pre>{@code
 * Map<String, Object> config = new HashMap<>();
 * config.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, KeyPreservingAssignor.class.getName());
 * config.put(KeyPreservingAssignorConfig.TASK_STATE_LISTENER_CONFIG, stores);   // stores implements TaskStateListener
 * KafkaConsumer<String, Order> consumer = new KafkaConsumer<>(config);
 * ExpansionBarrier<String, Order> barrier = ExpansionBarrier.wrap(consumer);   // or FollowUpRebalance.triggerIfDue
 * }</pre>
 * Why a setting and not a static registry: the consumer creates the assignor itself, and Kafka
 * hands the assignor every setting of its consumer as given, objects included (Kafka Streams
 * passes its own internals to its assignor the same way). So the listener belongs to exactly
 * one consumer and lives as long as it, with no JVM-wide map, no reliance on a unique
 * {@code client.id}, and nothing to unregister. From a properties file, name a class with a
 * public no-argument constructor instead.
 *
 * <p>Members without a listener are stateless: a task moving to them never waits for a warmup
 * (they count as caught up). Where no member subscribed to a topic has a listener, its tasks are
 * placed as they always were.
 *
 * <p>Every method is called on the consumer's poll thread, inside {@code poll()} during a
 * rebalance, so keep each call short: hand restores and deletes to threads of your own. Do not
 * call the consumer from them. An exception is logged and otherwise ignored (from {@link #lags()}:
 * the member reports no lags this time).
 *
 * <p>The tasks named here are {@link TaskRef}s; {@link TaskRef#contains} maps a record's
 * partition to its task. Warming up a task means bringing its state up to date without owning its
 * partitions, for instance from a changelog topic, and reporting the remaining lag in
 * {@link #lags()} at the next rebalance. Whether it has caught up is decided by the leader with
 * {@value KeyPreservingAssignorConfig#ACCEPTABLE_RECOVERY_LAG_CONFIG}.
 */
public interface TaskStateListener {

    /**
     * How many records this member's local state of each task is behind, for every task it has
     * state of: those it runs, warms up, or kept from before (a restart, say). Called each time
     * the member joins a rebalance, for its subscription, and, while the member warms tasks up,
     * by {@link FollowUpRebalance#triggerIfDue} at most once a second: as soon as a warmup's lag
     * is at most {@value KeyPreservingAssignorConfig#ACCEPTABLE_RECOVERY_LAG_CONFIG}, the member
     * asks for the rebalance that moves it. Keep it cheap (no network call on the poll thread):
     * report the lags your restore threads last saw.
     *
     * @return records behind by task, each 0 or more; a task left out means no state here. Entries
     *         with a negative or null lag, or for a task the group no longer has, are ignored.
     */
    Map<TaskRef, Long> lags();

    /**
     * The tasks to warm up: restore and keep up their state, without owning their partitions,
     * until a later rebalance moves them here. Called after every assignment with the complete
     * set, possibly empty; a task missing from it that was in the previous set was either assigned
     * here or is in the next {@link #onDrop} call. Besides the placement's warmups, the set holds a
     * task that was assigned here while its previous owner still has to give up its partitions:
     * they come with the next rebalance.
     *
     * @param tasks the tasks to keep warm, in {@link TaskRef} order; unmodifiable
     */
    void onWarmup(Set<TaskRef> tasks);

    /**
     * State this member may delete: the tasks it ran, warmed up or {@linkplain #lags() reported}
     * before this assignment that it neither runs nor warms up now. Called after an assignment
     * only when there are some, before {@link #onWarmup}. Keeping the state a while is harmless
     * (Kafka Streams waits {@code state.cleanup.delay.ms}); if the task comes back, its lag is
     * smaller.
     *
     * @param tasks the tasks no longer needed here, in {@link TaskRef} order; unmodifiable
     */
    void onDrop(Set<TaskRef> tasks);
}
