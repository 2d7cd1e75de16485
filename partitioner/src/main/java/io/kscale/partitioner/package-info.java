/**
 * A producer partitioner that switches partition every N bytes and keeps partition totals strictly
 * uniform: {@link io.kscale.partitioner.UniformStickyBytesPartitioner}, configured through
 * {@link io.kscale.partitioner.UniformStickyBytesPartitionerConfig}.
 *
 * <p>Everything else in this package is internal. The byte accounting and the choice of the next
 * partition ({@code TopicStickiness}, {@code StickyRound}, {@code Stint}, {@code PartitionView})
 * use no Kafka types; the partitioner class adapts them to Kafka's {@code Partitioner} and
 * {@code Cluster}.
 *
 * @see <a href="https://cwiki.apache.org/confluence/display/KAFKA/KIP-794%3A+Strictly+Uniform+Sticky+Partitioner">KIP-794</a>
 */
package io.kscale.partitioner;
