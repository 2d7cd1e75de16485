package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.Property;
import io.kscale.assignor.Seeds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;

/**
 * Current targets are input the assignor must survive whatever they hold: the coordinator builds
 * them, but from records a broker of another version (or a bug) wrote. Seeded groups whose
 * targets name unknown topics, topics the member does not read, partitions out of range or
 * negative, null entries, and one partition on several members: {@code assign()} never throws,
 * assigns each existing partition at most once and only to a subscriber, and keeps the task
 * rule.
 */
class ServerAssignmentFuzzTest {

    private static final int TRIES = 200;

    @Property
    Stream<DynamicTest> shouldNeverThrowOnMalformedTargets() {
        return Seeds.tries(TRIES, ServerAssignmentFuzzTest::checkCase);
    }

    private static void checkCase(SplittableRandom random) {
        List<Uuid> topics = new ArrayList<>();
        TestGroup group = new TestGroup();
        int topicCount = Seeds.intBetween(random, 1, 4);
        for (int t = 0; t < topicCount; t++) {
            Uuid id = new Uuid(t + 1, random.nextLong());
            topics.add(id);
            group.topic(id, Seeds.intBetween(random, 1, 40));
        }
        Uuid unknown = new Uuid(99, 99);
        InMemoryTaskCountStore store = new InMemoryTaskCountStore(random.nextInt(4) > 0);
        topics.stream().filter(t -> random.nextBoolean()).forEach(t -> store.stored(t, Seeds.intBetween(random, 1, 50)));
        int members = Seeds.intBetween(random, 1, 8);
        for (int m = 0; m < members; m++) {
            List<Uuid> subscribed = new ArrayList<>();
            topics.stream().filter(t -> random.nextBoolean()).forEach(subscribed::add);
            if (random.nextInt(4) == 0) {
                subscribed.add(unknown);
            }
            group.member("m" + m, subscribed);
            Map<Uuid, Set<Integer>> target = new HashMap<>();
            int entries = Seeds.intBetween(random, 0, 5);
            for (int e = 0; e < entries; e++) {
                Uuid topic = random.nextInt(5) == 0 ? unknown : topics.get(random.nextInt(topics.size()));
                Set<Integer> partitions = new HashSet<>();
                for (int p = Seeds.intBetween(random, 0, 20); p > 0; p--) {
                    partitions.add(Seeds.pick(random, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, null,
                            Seeds.intBetween(random, 0, 60), Seeds.intBetween(random, 0, 10)));
                }
                target.put(random.nextInt(10) == 0 ? null : topic, random.nextInt(10) == 0 ? null : partitions);
            }
            group.target("m" + m, target);
        }
        Seeds.sample("members %s, store loaded %s", group.members(), store.lookup(unknown).isNoneStored());

        GroupAssignment assignment = new ServerAssignmentBuilder(group.spec(), group.describer(), store,
                new TaskCountLog(), new ServerAssignorMetrics(() -> 0)).build();

        assertThat(assignment.members().keySet()).isEqualTo(group.members());
        ServerChecks.owners(group, assignment);
        for (Uuid topic : topics) {
            Integer taskCount = store.taskCountOf(topic);
            // a held topic (store not loaded) keeps its targets as they are, split tasks included
            if (taskCount != null && store.lookup(topic).isKnown()) {
                ServerChecks.taskOwners(group, assignment, topic, taskCount);
            }
        }
    }

    @Test
    void shouldFallBackToValidCurrentTargetsWhenTheStoreThrows() {
        Uuid topic = new Uuid(5, 5);
        TestGroup group = new TestGroup().topic(topic, 4).member("m0", topic).member("m1", topic)
                .target("m0", Map.of(topic, new HashSet<>(Arrays.asList(0, 1, 9, -3))))
                .target("m1", Map.of(topic, Set.of(1, 2)));
        TaskCountStore broken = new TaskCountStore() {
            @Override
            public TaskCount lookup(Uuid topicId) {
                throw new IllegalStateException("a bug in the store");
            }

            @Override
            public int propose(Uuid topicId, int proposed, int partitionCount) {
                throw new IllegalStateException("a bug in the store");
            }

            @Override
            public void close() {
            }
        };
        ServerAssignorMetrics metrics = new ServerAssignorMetrics(() -> 0);
        GroupAssignment assignment = new ServerAssignmentBuilder(group.spec(), group.describer(), broken,
                new TaskCountLog(), metrics).build();
        assertThat(assignment.members().get("m0").partitions()).isEqualTo(Map.of(topic, Set.of(0, 1)));
        assertThat(assignment.members().get("m1").partitions()).isEqualTo(Map.of(topic, Set.of(2)));
        assertThat(metrics.assignmentFallbacksTotal()).isEqualTo(1);
    }
}
