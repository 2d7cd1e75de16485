package io.kscale.assignor.internals.layout;

import static io.kscale.assignor.internals.layout.LayoutFixtures.NONE_DECLARED;
import static io.kscale.assignor.internals.layout.LayoutFixtures.ORDERS;
import static io.kscale.assignor.internals.layout.LayoutFixtures.apply;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.PropertySeeds;
import io.kscale.assignor.internals.layout.LayoutChange.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Properties of {@link GroupLayout#withPartitionCounts} over random layouts and random, partly
 * nonsensical metadata (null and illegal names, counts of zero, negative, too large, null): it
 * never throws, never loses a topic, a task or a partition, and raises the epoch exactly when the
 * layout changes. Samples are drawn from {@link PropertySeeds#SEED}; jqwik prints a falsified
 * sample.
 */
class GroupLayoutPropertyTest {

    @Provide
    Arbitrary<Map<String, Integer>> metadata() {
        Arbitrary<String> names = Arbitraries.frequencyOf(
                Tuple.of(6, LayoutFixtures.topicNames()),
                Tuple.of(6, Arbitraries.of(ORDERS, "orders.eu-a", "a0", "a1")),
                Tuple.of(1, Arbitraries.of("", ".", "bad name", "ordérs", "a".repeat(250)))
        ).injectNull(0.03);
        Arbitrary<Integer> counts = Arbitraries.frequencyOf(
                Tuple.of(12, Arbitraries.integers().between(1, 40)),
                Tuple.of(2, LayoutFixtures.counts()),
                Tuple.of(1, Arbitraries.of(0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, TopicLayout.MAX_COUNT + 1))
        ).injectNull(0.03);
        return Combinators.combine(names, counts).as(Tuple::of).list().ofMaxSize(12).map(pairs -> {
            Map<String, Integer> map = new HashMap<>();
            pairs.forEach(pair -> map.put(pair.get1(), pair.get2()));
            return map;
        });
    }

    @Provide
    Arbitrary<GroupLayout> layouts() {
        Arbitrary<TopicLayout> familiar = Combinators.combine(Arbitraries.of(ORDERS, "orders.eu-a", "a0", "a1"),
                Arbitraries.integers().between(1, 40), Arbitraries.integers().between(1, 40)).as(TopicLayout::of);
        Arbitrary<List<TopicLayout>> topics = Arbitraries.frequencyOf(Tuple.of(3, familiar), Tuple.of(1, LayoutFixtures.topicLayouts()))
                .list().ofMaxSize(8).uniqueElements(TopicLayout::topic);
        return Combinators.combine(Arbitraries.longs().between(0, 100), topics).as(GroupLayout::of);
    }

    @Provide
    Arbitrary<Map<String, Integer>> declarations() {
        return Arbitraries.maps(Arbitraries.of(ORDERS, "a0", "a1", "unused"), Arbitraries.integers().between(1, 40))
                .ofMaxSize(2);
    }

    @Property(tries = 1000, seed = PropertySeeds.SEED)
    void shouldNeverThrowNorLoseATaskAndRaiseTheEpochExactlyOnChange(
            @ForAll("layouts") GroupLayout before, @ForAll("metadata") Map<String, Integer> current,
            @ForAll ExpansionPolicy policy, @ForAll("declarations") Map<String, Integer> declared) {
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
    @Property(tries = 500, seed = PropertySeeds.SEED)
    void shouldFollowThePolicyThroughAnySequenceOfCounts(
            @ForAll ExpansionPolicy policy,
            @ForAll @Size(min = 1, max = 10) List<@IntRange(min = 1, max = 64) Integer> sequence) {
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

    @Property(tries = 200, seed = PropertySeeds.SEED)
    void shouldGiveTheSameResultForTheSameInput(@ForAll("layouts") GroupLayout before,
                                                 @ForAll("metadata") Map<String, Integer> current, @ForAll ExpansionPolicy policy) {
        assertThat(before.withPartitionCounts(new HashMap<>(current), policy, NONE_DECLARED))
                .isEqualTo(before.withPartitionCounts(current, policy, NONE_DECLARED));
    }

    private static Kind kindOf(LayoutUpdate update, String topic) {
        return update.changes().stream().filter(change -> change.topic().equals(topic)).findFirst().orElseThrow().kind();
    }
}
