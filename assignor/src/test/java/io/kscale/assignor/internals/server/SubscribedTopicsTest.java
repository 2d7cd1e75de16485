package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.junit.jupiter.api.Test;

/** How members' subscriptions become topics with their readers ({@link SubscribedTopics}). */
class SubscribedTopicsTest {

    private static final Uuid A = new Uuid(1, 1);
    private static final Uuid B = new Uuid(1, 2);
    private static final Uuid C = new Uuid(1, 3);

    @Test
    void shouldKeepEqualSubscriptionsOnceWhateverTheirSetsOrder() {
        SubscribedTopics topics = resolve(Map.of(
                "m0", ordered(A, B),
                "m1", ordered(B, A),
                "m2", ordered(A),
                "m3", ordered(A, C)));
        // Members in hash order: m0, m1, m2, m3. m0 and m1 read the same topics: one subscription.
        assertThat(topics.readers[index(topics, A)]).hasSize(3);
        assertThat(topics.readers[index(topics, B)]).hasSize(1);
        assertThat(topics.subscribers(index(topics, A))).containsExactly(0, 1, 2, 3);
        assertThat(topics.subscribers(index(topics, B))).containsExactly(0, 1);
        assertThat(topics.subscribers(index(topics, C))).containsExactly(3);
    }

    @Test
    void shouldReadASetThatYieldsATopicTwiceOrANullAsTheTopicsItNames() {
        SubscribedTopics topics = resolve(Map.of(
                "m0", yielding(2, A, A, B),
                "m1", ordered(A, B),
                "m2", yielding(3, null, C, A)));
        assertThat(topics.ids).containsExactly(A, B, C);
        assertThat(topics.readers[index(topics, A)]).as("m0 and m1 read the same topics").hasSize(2);
        assertThat(topics.subscribers(index(topics, A))).containsExactly(0, 1, 2);
        assertThat(topics.subscribers(index(topics, C))).containsExactly(2);
        SubscribedTopics.Subscriptions subscriptions = topics.subscriptions();
        assertThat(subscriptions.subscribes(2, index(topics, B))).isFalse();
        assertThat(subscriptions.subscribes(2, index(topics, C))).isTrue();
        assertThat(subscriptions.subscribes(0, index(topics, B))).as("m0, after m2").isTrue();
        assertThat(subscriptions.subscribes(0, index(topics, C))).isFalse();
        assertThat(subscriptions.subscribes(2, index(topics, B))).as("m2 again, after m0").isFalse();
        assertThat(subscriptions.subscribes(2, index(topics, A))).isTrue();
    }

    @Test
    void shouldNotMergeSubscriptionsOfAsManyTopicsThatDiffer() {
        SubscribedTopics topics = resolve(Map.of("m0", ordered(A, B), "m1", ordered(A, C), "m2", ordered(B, C)));
        assertThat(topics.readers[index(topics, A)]).hasSize(2);
        assertThat(topics.subscribers(index(topics, B))).containsExactly(0, 2);
        assertThat(topics.subscribers(index(topics, C))).containsExactly(1, 2);
    }

    private static SubscribedTopics resolve(Map<String, Set<Uuid>> subscriptions) {
        TestGroup group = new TestGroup().topic(A, 4).topic(B, 4).topic(C, 4);
        subscriptions.keySet().forEach(member -> group.member(member, A));
        GroupSpec spec = new ForwardingGroupSpec(group.spec()) {
            @Override
            public SubscriptionType subscriptionType() {
                return SubscriptionType.HETEROGENEOUS;
            }

            @Override
            public MemberSubscription memberSubscription(String memberId) {
                return new MemberSubscription() {
                    @Override
                    public Optional<String> rackId() {
                        return Optional.empty();
                    }

                    @Override
                    public Optional<String> instanceId() {
                        return Optional.empty();
                    }

                    @Override
                    public Set<Uuid> subscribedTopicIds() {
                        return subscriptions.get(memberId);
                    }
                };
            }
        };
        GroupMembers members = new GroupMembers(spec);
        assertThat(members.ids).as("members in hash order").isSorted();
        return SubscribedTopics.resolve(members, group.describer(), new InMemoryTaskCountStore(), new TaskCountLog());
    }

    private static int index(SubscribedTopics topics, Uuid topic) {
        return topics.indexOf(topic);
    }

    private static Set<Uuid> ordered(Uuid... topics) {
        return new LinkedHashSet<>(Arrays.asList(topics));
    }

    /** A set that yields the elements as given, repeats and nulls included (a broken set a coordinator could hand over). */
    private static Set<Uuid> yielding(int size, Uuid... elements) {
        List<Uuid> yielded = Arrays.asList(elements);
        return new AbstractSet<>() {
            @Override
            public Iterator<Uuid> iterator() {
                return yielded.iterator();
            }

            @Override
            public int size() {
                return size;
            }
        };
    }
}
