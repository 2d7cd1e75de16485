package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.NONE_DECLARED;
import static io.kscale.assignor.internals.layout.LayoutFixtures.ORDERS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.apply;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.Property;
import io.kscale.assignor.Seeds;
import io.kscale.assignor.internals.layout.LayoutChange.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * Properties of {@link GroupLayout#withPartitionCounts} over random layouts and random, partly
 * nonsensical metadata (null and illegal names, counts of zero, negative, too large, null): it
 * never throws, never loses a topic, a task or a partition, and raises the epoch exactly when the
 * layout changes. Samples are drawn from the seed of each try ({@link Seeds}), which a failure
 * prints.
 */
class GroupLayoutPropertyTest {

    /** Partition counts by topic name, partly nonsensical: null and illegal names, counts of zero, negative, too large, null. */
    static Map<String, Integer> metadata(SplittableRandom random) {
        Map<String, Integer> map = new HashMap<>();
        for (int i = Seeds.intBetween(random, 0, 12); i > 0; i--) {
            map.put(random.nextInt(100) < 3 ? null : name(random), random.nextInt(100) < 3 ? null : count(random));
        }
        return map;
    }

    private static String name(SplittableRandom random) {
        int draw = random.nextInt(13);
        return draw < 6 ? LayoutFixtures.topicName(random) : draw < 12 ? Seeds.pick(random, ORDERS, "orders.eu-a", "a0", "a1")
                : Seeds.pick(random, "", ".", "bad name", "ordérs", "a".repeat(250));
    }

    private static Integer count(SplittableRandom random) {
        int draw = random.nextInt(15);
        return draw < 12 ? Seeds.intBetween(random, 1, 40) : draw < 14 ? LayoutFixtures.count(random)
                : Seeds.pick(random, 0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, TopicLayout.MAX_COUNT + 1);
    }

    static GroupLayout layout(SplittableRandom random) {
        List<TopicLayout> topics = Seeds.uniqueListOf(random, 8, r -> r.nextInt(4) < 3
                ? TopicLayout.of(Seeds.pick(r, ORDERS, "orders.eu-a", "a0", "a1"), Seeds.intBetween(r, 1, 40), Seeds.intBetween(r, 1, 40))
                : LayoutFixtures.topicLayout(r), TopicLayout::topic);
        return GroupLayout.of(Seeds.longBetween(random, 0, 100), topics);
    }

    static Map<String, Integer> declarations(SplittableRandom random) {
        Map<String, Integer> declared = new HashMap<>();
        for (int i = Seeds.intBetween(random, 0, 2); i > 0; i--) {
            declared.put(Seeds.pick(random, ORDERS, "a0", "a1", "unused"), Seeds.intBetween(random, 1, 40));
        }
        return declared;
    }

    @Property
    Stream<DynamicTest> shouldNeverThrowNorLoseATaskAndRaiseTheEpochExactlyOnChange() {
        return Seeds.tries(1000, random -> neverThrowsNorLosesATask(layout(random), metadata(random),
                Seeds.pick(random, ExpansionPolicy.class), declarations(random)));
    }

    private static void neverThrowsNorLosesATask(GroupLayout before, Map<String, Integer> current, ExpansionPolicy policy,
                                                 Map<String, Integer> declared) {
        Seeds.sample("before %s, partition counts %s, %s, declared %s", before, current, policy, declared);
        LayoutUpdate update = before.withPartitionCounts(current, policy, declared);
        GroupLayout after = update.layout();

        boolean changed = update.changes().stream().anyMatch(change -> change.kind().changesLayout());
        if (changed) {
            assertThat(after.epoch()).isEqualTo(before.epoch() + 1);
        } else {
            assertThat(after).isSameAs(before);
        }
        for (TopicLayout old : before.topics()) {
            TopicLayout now = after.topic(old.topic()).orElseThrow();
            assertThat(now.partitionCount()).as("partitions of %s", old.topic()).isGreaterThanOrEqualTo(old.partitionCount());
            if (now.taskCount() != old.taskCount()) {
                assertThat(kindOf(update, old.topic())).isIn(Kind.DECLARED, Kind.NOT_A_MULTIPLE);
            }
            if (policy == ExpansionPolicy.KEEP && !declared.containsKey(old.topic())) {
                assertThat(now.taskCount()).as("T of %s under KEEP", old.topic()).isEqualTo(old.taskCount());
            }
        }
        Set<String> added = update.changes().stream().filter(change -> change.kind() == Kind.ADDED)
                .map(LayoutChange::topic).collect(Collectors.toSet());
        assertThat(after.topics()).hasSize(before.topics().size() + added.size());
        for (LayoutChange change : update.changes()) {
            if (change.kind().changesLayout()) {
                assertThat(after.topic(change.topic())).isEqualTo(change.after());
            }
            assertThat(change.message()).contains("'" + change.topic() + "'");
        }
        List<String> order = new ArrayList<>();
        update.changes().stream().filter(change -> current.containsKey(change.topic())).forEach(change -> order.add(change.topic()));
        assertThat(order).as("changes in topic order (a null topic, reported as '(null)', comes first)")
                .isSortedAccordingTo(Comparator.naturalOrder());
    }

    /**
     * One topic through a random sequence of counts, growing and stale: under KEEP T is the first
     * count forever; under REBASE the topic is aligned after every step, so the next expansion
     * to a multiple keeps affinity.
     */
    @Property
    Stream<DynamicTest> shouldFollowThePolicyThroughAnySequenceOfCounts() {
        return Seeds.tries(500, random -> followsThePolicy(Seeds.pick(random, ExpansionPolicy.class),
                Seeds.listOf(random, 1, 10, r -> Seeds.intBetween(r, 1, 64))));
    }

    private static void followsThePolicy(ExpansionPolicy policy, List<Integer> sequence) {
        Seeds.sample("%s through %s", policy, sequence);
        GroupLayout layout = GroupLayout.empty();
        int seen = 0;
        for (int count : sequence) {
            layout = apply(layout, policy, ORDERS, count).layout();
            seen = Math.max(seen, count);
            TopicLayout topic = layout.topic(ORDERS).orElseThrow();

            assertThat(topic.partitionCount()).isEqualTo(seen);
            if (policy == ExpansionPolicy.KEEP) {
                assertThat(topic.taskCount()).isEqualTo(sequence.get(0));
            } else {
                assertThat(topic.isAligned()).as("aligned under REBASE: %s", topic).isTrue();
            }
        }
    }

    @Property
    Stream<DynamicTest> shouldGiveTheSameResultForTheSameInput() {
        return Seeds.tries(200, random -> {
            GroupLayout before = layout(random);
            Map<String, Integer> current = metadata(random);
            ExpansionPolicy policy = Seeds.pick(random, ExpansionPolicy.class);
            Seeds.sample("before %s, partition counts %s, %s", before, current, policy);

            assertThat(before.withPartitionCounts(new HashMap<>(current), policy, NONE_DECLARED))
                    .isEqualTo(before.withPartitionCounts(current, policy, NONE_DECLARED));
        });
    }

    private static Kind kindOf(LayoutUpdate update, String topic) {
        return update.changes().stream().filter(change -> change.topic().equals(topic)).findFirst().orElseThrow().kind();
    }
}
