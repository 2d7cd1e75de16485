package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.ORDERS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.apply;
import static io.kscale.assignor.internals.layout.LayoutFixtures.key;
import static io.kscale.assignor.internals.layout.LayoutFixtures.partitionOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.Property;
import io.kscale.assignor.Seeds;
import io.kscale.assignor.internals.layout.LayoutChange.Kind;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

/**
 * The arithmetic the layout rests on, checked with Kafka's own partitioning of keyed records
 * ({@code toPositive(murmur2(key)) % n}): a key stays in its task when the partition count
 * grows to any multiple of T, and only then. Samples are drawn from the seed of each try
 * ({@link Seeds}), which a failure prints.
 */
class KeyAffinityPropertyTest {

    @Property
    Stream<DynamicTest> hashModuloAnyMultipleOfTModuloTIsHashModuloT() {
        return Seeds.tries(2000, random -> {
            byte[] key = Seeds.bytes(random, 64);
            int tasks = Seeds.intBetween(random, 1, 10_000);
            int k = Seeds.intBetween(random, 1, 1_000);
            Seeds.sample("key %s, T=%d, k=%d", Arrays.toString(key), tasks, k);
            int hash = Utils.toPositive(Utils.murmur2(key));

            assertThat(hash % (k * tasks) % tasks).isEqualTo(hash % tasks);
        });
    }

    /**
     * Through the layout itself: the topic grows through any sequence of multiples of T (12 to
     * 20 with T = 4 is fine, though 20 is no multiple of 12); every change is EXPANDED, T stays,
     * and every key's task, found the way the assignor finds it, stays the same.
     */
    @Property
    Stream<DynamicTest> shouldKeepEveryKeyInItsTaskWhenPartitionsGrowToAnyMultipleOfT() {
        return Seeds.tries(300, random -> keepsEveryKeyInItsTask(Seeds.intBetween(random, 1, 64),
                Seeds.listOf(random, 1, 6, r -> Seeds.intBetween(r, 1, 16)), Seeds.listOf(random, 1, 50, r -> Seeds.bytes(r, 64))));
    }

    private static void keepsEveryKeyInItsTask(int tasks, List<Integer> multipliers, List<byte[]> keys) {
        Seeds.sample("T=%d, multipliers %s, %d keys", tasks, multipliers, keys.size());
        GroupLayout layout = apply(GroupLayout.empty(), ExpansionPolicy.KEEP, ORDERS, tasks).layout();
        int[] taskOfKey = keys.stream().mapToInt(key -> layout.topic(ORDERS).orElseThrow().taskOf(partitionOf(key, tasks))).toArray();
        int multiple = 1;
        GroupLayout current = layout;
        for (int k : multipliers) {
            multiple = Math.max(multiple, k);
            int count = multiple * tasks;
            LayoutUpdate update = apply(current, ExpansionPolicy.KEEP, ORDERS, count);
            current = update.layout();
            TopicLayout topic = current.topic(ORDERS).orElseThrow();

            assertThat(update.changes()).allSatisfy(change -> assertThat(change.kind()).isEqualTo(Kind.EXPANDED));
            assertThat(topic.taskCount()).isEqualTo(tasks);
            for (int i = 0; i < keys.size(); i++) {
                assertThat(topic.taskOf(partitionOf(keys.get(i), count))).as("task of key %s at %d partitions", Arrays.toString(keys.get(i)), count)
                        .isEqualTo(taskOfKey[i]);
            }
        }
    }

    @Test
    void shouldMoveSomeKeysToAnotherTaskWhenTheCountIsNoMultipleOfT() {
        TopicLayout kept = apply(GroupLayout.empty(), ExpansionPolicy.KEEP, ORDERS, 4).layout().topic(ORDERS).orElseThrow();

        long moved = IntStream.range(0, 1_000).mapToObj(i -> key("key-" + i))
                .filter(key -> kept.taskOf(partitionOf(key, 6)) != kept.taskOf(partitionOf(key, 4))).count();

        assertThat(moved).as("keys that change task at 4 -> 6 partitions").isPositive();
    }

    @Test
    void shouldFollowTheWorkedExampleOfKeyHash21() {
        int hash = 21;

        assertThat(IntStream.of(4, 8, 12, 18, 20).map(n -> hash % n % 4).toArray()).containsExactly(1, 1, 1, 3, 1);
    }
}
