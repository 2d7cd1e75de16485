/**
 * The task layout of a consumer group: a fixed number of tasks T per topic, so that a key stays
 * with its consumer when the topic's partition count is multiplied. Pure values and rules, no
 * Kafka types, no logging: the assignor logs and counts what these classes report.
 *
 * <p>Why. A keyed record goes to partition {@code hash(key) % n}. A consumer that keeps state
 * per key (a counter, a join window) loses it when the key moves to a partition another member
 * owns, and {@code n} changes on every expansion. So each topic gets a task count T, fixed when
 * the group first assigns the topic, and task {@code t} holds every partition {@code p} with
 * {@code p % T == t}. When {@code n} is a multiple of T, {@code hash % n % T == hash % T}: the
 * key's task, and the member that owns the task, never change (Samza SEP-5). Topics with the
 * same T are co-partitioned: task {@code t} of each forms one {@link io.kscale.assignor.internals.layout.Unit},
 * which always goes to one member, so joins keep working.
 *
 * <p>Worked example, T = 4, a key whose hash is 21 ({@code 21 % 4 == 1}, so task 1):
 * <pre>
 *   partitions n   key's partition (21 % n)   its task (p % 4)
 *   4              1                          1
 *   8              5                          1   partitions of task 1: 1, 5
 *   12             9                          1   partitions of task 1: 1, 5, 9
 *   18             3                          3   18 is no multiple of 4: affinity broken
 *   20             1                          1   a multiple again (policy KEEP): realigned
 * </pre>
 * At 18 the layout reports {@link io.kscale.assignor.internals.layout.LayoutChange.Kind#NOT_A_MULTIPLE} and
 * follows the {@link io.kscale.assignor.internals.layout.ExpansionPolicy}: keep T = 4 (and realign at 20)
 * or rebase T to 18.
 *
 * <p>A layout belongs to a topic id where the metadata names one: a topic deleted and re-created
 * under its name starts afresh ({@link io.kscale.assignor.internals.layout.LayoutChange.Kind#RECREATED}). A
 * topic no member subscribes to and the metadata lacks is forgotten after a grace period
 * ({@link io.kscale.assignor.internals.layout.GroupLayout#withLiveTopics}), so rotating topics do not pile up.
 *
 * <p>Classes: {@link io.kscale.assignor.internals.layout.TopicLayout} (one topic's T, partition count, id),
 * {@link io.kscale.assignor.internals.layout.GroupLayout} (all topics, versioned by an epoch; applies new
 * partition counts and merges what members report), {@link io.kscale.assignor.internals.layout.Units} (the
 * units of a subscription, for placement), {@link io.kscale.assignor.internals.layout.LayoutCodec} (the
 * compact, versioned binary form for subscription userData and a durable store).
 *
 * <p>Order across an expansion (KIP-253, which Kafka never shipped) is not handled here: it
 * builds on the guarantee that parent and child partitions of a key are in one task.
 *
 * @see <a href="https://cwiki.apache.org/confluence/display/SAMZA/SEP-5%3A+Enable+partition+expansion+of+input+streams">Samza SEP-5: Enable partition expansion of input streams</a>
 * @see <a href="https://cwiki.apache.org/confluence/display/KAFKA/KIP-253%3A+Support+in-order+message+delivery+with+partition+expansion">KIP-253: Support in-order message delivery with partition expansion</a>
 */
package io.kscale.assignor.internals.layout;
