package io.kscale.partitioner;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * One round of a topic's sticky partitioning: every partition that can take records, once, in a
 * random order that visits the partitions of one leader one after another, each with the carry it
 * starts the round with.
 *
 * <h2>Design</h2>
 * A round is the unit that keeps partitions level. Each partition owns a quota that grows by N
 * bytes per visit and a carry, the bytes its total is ahead of that quota. A visit starts a stint
 * whose target is {@code N - carry}; the stint ends with the record that reaches the target, so
 * the new carry is the overshoot, {@code 0 <= carry < largest record}. Because every partition is
 * visited once per round and its total is always its quota plus its carry, totals can never drift
 * apart: after any complete round they are all within one record of each other.
 *
 * <p>Worked example, N = 100, three partitions, round 1 in order 2, 0, 1:
 * <pre>
 *   round 1  p2: target 100, records 60+50      = 110, carry 10
 *            p0: target 100, records 30+30+30+30 = 120, carry 20
 *            p1: target 100, records 70+70      = 140, carry 40
 *   round 2 (new order 0, 2, 1; it may not start with p1, the partition just used)
 *            p0: target  80, records 50+40      =  90, carry 10   total 210
 *            p2: target  90, records 90         =  90, carry  0   total 200
 *            p1: target  60, records 20+50      =  70, carry 10   total 210
 * </pre>
 * After round 2 every total is 2N plus a carry below the largest record (90), whatever the mix of
 * sizes. Kafka's built-in partitioner picks the next partition at random instead, so its totals
 * drift apart like a random walk (KIP-794 "uniform in expectation", not at every moment).
 *
 * <p>Why the bound of {@link TopicStickiness} holds (R = largest record so far): a partition's
 * total is {@code N * visits + carry}. Partitions that could take records throughout were each
 * visited once per round, so their visit counts differ by at most one, say k or k + 1. A finished
 * visit leaves {@code 0 <= carry < R}, and the open stint adds less than {@code N - carry + R}. So
 * every total lies in {@code [kN, (k + 1)N + R)}: the spread is below {@code N + R}. Only a
 * fast-forward (below) can leave one partition, the one just used, with a carry down to
 * {@code -R}, which widens the interval to {@code N + 2R}; both are within {@code 2(N + R)}.
 *
 * <p>Records larger than N make a carry reach N. Such a partition is a whole stint ahead, so its
 * visit passes: no stint, no records, carry minus N. When every partition but the one just used
 * would pass, the next round starts "fast-forwarded": all carries drop by the largest multiple of
 * N they share (the equivalent of that many all-pass rounds, done in one step).
 *
 * <h2>Broker by broker</h2>
 * A stint ends at an exact byte count, so it usually ends in the middle of a burst of records (an
 * application or a load generator sends several records back to back, then pauses). The burst's
 * rest goes to the next partition. If that partition has another leader, the burst leaves in two
 * produce requests to two brokers; if it has the same leader, the sender drains both partitions'
 * batches into one request to that broker, as if no switch had happened (issue 19 measured the
 * first case at 2 switches in 3 with a random order over 3 brokers). So a round is shuffled, then
 * grouped by leader: the groups in the order of their first partition in the shuffle, each group in
 * shuffled order, and a new round starts with the group of the partition just used (when it has
 * another partition to offer). With 3 brokers of 10 partitions each, a round changes broker twice
 * in 30 switches instead of about 20 times. Which broker and which partition come next stay random,
 * and grouping changes only the order within a round: every partition is still visited once per
 * round, so the bounds below hold as they are. Leaders come from the view the round was built
 * with; a leader that moves mid-round only makes the grouping imperfect until the next round.
 * Partitions whose leader the view does not know form one group.
 *
 * <p>Example, partitions 0-5 with p led by broker p % 3, shuffle 4 0 2 5 1 3: groups in order of
 * first appearance, broker 1 (4, 1), broker 0 (0, 3), broker 2 (2, 5): the round is 4 1 0 3 2 5.
 * If it ends with 5, the next round (shuffle, say, 3 5 1 0 2 4) starts with broker 2's group and
 * does not start with 5: 2 5 3 0 1 4.
 *
 * <h2>Availability and expansion</h2>
 * A round lists the partitions that had a leader when it was built; a partition without a leader
 * at its turn is not visited: it neither takes records nor falls behind its quota, so when its
 * leader returns it joins the next round with its old carry and gets one stint per round like
 * everyone else, never its missed backlog. When the partition count grows, the next switch ends
 * this round early and continues in a spliced round: the partitions not yet visited in this round
 * plus the new ones, shuffled together, so new partitions get traffic from the next switch on
 * while the visited ones are not visited twice. Sender threads do not see new metadata at once: a
 * thread whose metadata predates the expansion cannot send to a new partition, but that does not
 * cost the partition its turn (as a missing leader would): its stint, if open, ends owing what it
 * did not take, and on that thread's walk a new partition is swapped with the next partition the
 * thread can use, so it stays in the round; only if none of the round's rest is usable is it owed
 * one stint, which its next visit adds to its target.
 *
 * <h2>Concurrency</h2>
 * A round is walked by one thread at a time: only the thread that closed the current stint
 * computes the next one (see {@link TopicStickiness}), and it hands the round on by publishing
 * that stint through a volatile write, which the next switching thread reads before it writes
 * here. So {@link #carries} needs no synchronisation of its own. A walk only writes carries that
 * it derives from {@link #startCarries} and from the closed stint, so a walk that fails half-way
 * (an {@code OutOfMemoryError}, say) can be repeated by another thread with the same result.
 * Rounds and stints link only backwards (a stint to its round), never to what follows: an old
 * round or stint that the garbage collector promoted keeps nothing younger alive.
 */
final class StickyRound {

    /** The golden-ratio increment of SplitMix64, used to derive one round's seed from the previous. */
    private static final long SEED_GAMMA = 0x9E3779B97F4A7C15L;

    private final int[] order;
    /** Carry of every partition of the topic when this round starts (after any fast-forward). */
    private final long[] startCarries;
    /**
     * Carry of every partition now: {@link #startCarries} updated by each visit that ended. Read and
     * written only by the thread that switches (see the class comment).
     */
    private final long[] carries;
    private final int partitionCount;
    private final long seed;

    private StickyRound(int[] order, long[] carries, int partitionCount, long seed) {
        this.order = order;
        this.startCarries = carries;
        this.carries = carries.clone();
        this.partitionCount = partitionCount;
        this.seed = seed;
    }

    /**
     * The first stint of a topic: the first visit of a round of every available partition with
     * carry 0, shuffled by {@code seed}.
     *
     * @param view the partitions of the topic
     * @param seed seed of this round's shuffle; each later round derives its own from it
     * @param stickyBytes N, at least 1
     * @return the first stint, sequence 0
     */
    static Stint firstStint(PartitionView view, long seed, long stickyBytes) {
        int[] order = view.availablePartitions().clone();
        shuffle(order, seed);
        order = groupedByLeader(order, view, PartitionView.UNKNOWN_LEADER);
        StickyRound round = new StickyRound(order, new long[view.partitionCount()], view.partitionCount(), seed);
        return round.stintFrom(0, -1, 0, view, stickyBytes);
    }

    /**
     * Ends the visit of {@code closed} and returns the next stint: the next visit of this round that
     * takes records, or of the rounds that follow. Called only by the thread that switches from
     * {@code closed}; calling it again for the same stint (after a failure) gives the same result.
     *
     * @param closed the stint that just closed, a visit of this round; its total is published
     * @param view the caller's view of the topic's partitions
     * @param stickyBytes N, at least 1
     * @return the next stint, sequence {@code closed.sequence + 1}
     */
    Stint next(Stint closed, PartitionView view, long stickyBytes) {
        carries[closed.partition] = closed.carryAfter();
        return stintFrom(closed.position + 1, closed.partition, closed.sequence + 1, view, stickyBytes);
    }

    /**
     * Walks the visits from {@code index} on, into following rounds as needed, and returns the first
     * that takes records. Passes partitions without a leader in {@code view} (carry unchanged) and
     * partitions a whole stint ahead (carry minus N). Terminates: every new full round is built so
     * that a partition of the view takes its first stint.
     *
     * @param avoid the partition of the stint that just closed, which a new round may not start with
     */
    private Stint stintFrom(int index, int avoid, long sequence, PartitionView view, long stickyBytes) {
        StickyRound round = this;
        for (;;) {
            if (index == round.order.length) {
                round = round.following(avoid, view, stickyBytes);
                index = 0;
            } else if (view.partitionCount() > round.partitionCount) {
                round = round.spliced(index, avoid, view, stickyBytes);
                index = 0;
            }
            int partition = round.order[index];
            long carry = round.startCarries[partition];
            if (!view.isAvailable(partition)) {
                if (partition >= view.partitionCount()) {
                    // Not in the caller's metadata yet (fetched before an expansion): the partition
                    // keeps its turn, later in this round or, if none of the rest is offered, as
                    // one stint owed (at most one) that its next visit adds to its target.
                    if (round.postpone(index, view)) {
                        continue; // a partition this view offers is at index now
                    }
                    round.carries[partition] = Math.max(carry - stickyBytes, -stickyBytes);
                }
                index++;
            } else if (carry >= stickyBytes) {
                round.carries[partition] = carry - stickyBytes;
                index++;
            } else {
                return new Stint(partition, stickyBytes - carry, carry, sequence, round, index);
            }
        }
    }

    /**
     * Keeps the partition at {@code index}, which {@code view} does not know yet (the caller's
     * metadata predates an expansion), in this round for a caller that knows it: swaps it with the
     * first later partition that {@code view} offers. Skipping it instead cost it its turn, one
     * stint for good, and every new partition up to the next old one with it. Only the switching
     * thread writes the order, as it writes the carries.
     *
     * @return false if no later partition is offered by {@code view} (then it is owed a stint)
     */
    private boolean postpone(int index, PartitionView view) {
        for (int later = index + 1; later < order.length; later++) {
            if (view.isAvailable(order[later])) {
                int postponed = order[index];
                order[index] = order[later];
                order[later] = postponed;
                return true;
            }
        }
        return false;
    }

    /** The full round after this one (all its visits are over). */
    private StickyRound following(int avoid, PartitionView view, long stickyBytes) {
        long[] nextCarries = Arrays.copyOf(carries, Math.max(view.partitionCount(), carries.length));
        int[] nextOrder = view.availablePartitions().clone();
        long nextSeed = mix64(seed + SEED_GAMMA);
        shuffle(nextOrder, nextSeed);
        fastForward(nextOrder, nextCarries, avoid, stickyBytes);
        nextOrder = groupedByLeader(nextOrder, view, leaderToContinue(nextOrder, nextCarries, avoid, view, stickyBytes));
        bringForward(nextOrder, nextCarries, avoid, stickyBytes);
        return new StickyRound(nextOrder, nextCarries, view.partitionCount(), nextSeed);
    }

    /**
     * The rest of this round from {@code index} on, joined by the partitions that appeared since it
     * was built. Visited partitions keep their visit; the rest and the new ones share what is left.
     */
    private StickyRound spliced(int index, int avoid, PartitionView view, long stickyBytes) {
        int count = view.partitionCount();
        long[] nextCarries = Arrays.copyOf(carries, Math.max(count, carries.length));
        int[] nextOrder = new int[order.length - index + count - partitionCount];
        int length = 0;
        for (int i = index; i < order.length; i++) {
            nextOrder[length++] = order[i];
        }
        for (int partition = partitionCount; partition < count; partition++) {
            if (view.isAvailable(partition)) {
                nextOrder[length++] = partition;
            }
        }
        nextOrder = Arrays.copyOf(nextOrder, length);
        long nextSeed = mix64(seed ^ (SEED_GAMMA * (index + 1)));
        shuffle(nextOrder, nextSeed);
        nextOrder = groupedByLeader(nextOrder, view, leaderToContinue(nextOrder, nextCarries, avoid, view, stickyBytes));
        bringForward(nextOrder, nextCarries, avoid, stickyBytes);
        return new StickyRound(nextOrder, nextCarries, count, nextSeed);
    }

    /**
     * Skips the all-skip rounds in one step: if every partition but {@code avoid} is at least N
     * ahead, lowers every carry by the largest multiple of N that keeps those carries >= 0. Without
     * this, records much larger than N would cost up to (largest record / N) empty rounds per switch.
     * Measuring the minimum without {@code avoid} also guarantees that some other partition can
     * take the first stint, so a round never starts with the partition just used.
     */
    private static void fastForward(int[] order, long[] carries, int avoid, long stickyBytes) {
        long min = Long.MAX_VALUE;
        for (int partition : order) {
            if (partition != avoid) {
                min = Math.min(min, carries[partition]);
            }
        }
        if (min == Long.MAX_VALUE) {
            for (int partition : order) {
                min = Math.min(min, carries[partition]);
            }
        }
        if (min == Long.MAX_VALUE || min < stickyBytes) {
            return;
        }
        long rounds = min / stickyBytes;
        for (int partition : order) {
            carries[partition] -= rounds * stickyBytes;
        }
    }

    /**
     * The leader whose partitions a new round should visit first: the leader of {@code avoid}, the
     * partition just used, so that the switch into the new round stays on its broker; but only if
     * another of its partitions will take records (else {@link PartitionView#UNKNOWN_LEADER}, and
     * the groups keep their shuffled order).
     */
    private static int leaderToContinue(int[] order, long[] carries, int avoid, PartitionView view, long stickyBytes) {
        int leader = view.leader(avoid);
        if (leader == PartitionView.UNKNOWN_LEADER) {
            return leader;
        }
        for (int partition : order) {
            if (partition != avoid && view.leader(partition) == leader && carries[partition] < stickyBytes) {
                return leader;
            }
        }
        return PartitionView.UNKNOWN_LEADER;
    }

    /**
     * {@code order} with the partitions of each leader next to each other: the group of
     * {@code firstLeader} first, then the other groups in the order of their first partition in
     * {@code order}; within a group, the order of {@code order}. So the shuffle still decides which
     * broker comes next and in which order its partitions come, and partitions whose leader the view
     * does not know form one group. Once per round; time proportional to partitions times leaders.
     */
    private static int[] groupedByLeader(int[] order, PartitionView view, int firstLeader) {
        int[] grouped = new int[order.length];
        boolean[] placed = new boolean[order.length];
        int filled = appendGroup(order, view, firstLeader, grouped, 0, placed);
        for (int i = 0; i < order.length; i++) {
            if (!placed[i]) {
                filled = appendGroup(order, view, view.leader(order[i]), grouped, filled, placed);
            }
        }
        return grouped;
    }

    /** Appends the partitions of {@code order} led by {@code leader} and not yet placed to {@code grouped}. */
    private static int appendGroup(int[] order, PartitionView view, int leader, int[] grouped, int filled, boolean[] placed) {
        for (int i = 0; i < order.length; i++) {
            if (!placed[i] && view.leader(order[i]) == leader) {
                grouped[filled++] = order[i];
                placed[i] = true;
            }
        }
        return filled;
    }

    /** Moves the first partition that will take records and is not {@code avoid} to the front. */
    private static void bringForward(int[] order, long[] carries, int avoid, long stickyBytes) {
        for (int i = 0; i < order.length; i++) {
            int partition = order[i];
            if (partition != avoid && carries[partition] < stickyBytes) {
                order[i] = order[0];
                order[0] = partition;
                return;
            }
        }
    }

    /** Fisher-Yates shuffle driven by {@code seed}, so that every helper shuffles alike. */
    private static void shuffle(int[] order, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = order.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int swapped = order[i];
            order[i] = order[j];
            order[j] = swapped;
        }
    }

    /** SplitMix64's finaliser: a well-mixed seed for the next round from this one. */
    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    @Override
    public String toString() {
        return "StickyRound(order=" + Arrays.toString(order) + ")";
    }
}
