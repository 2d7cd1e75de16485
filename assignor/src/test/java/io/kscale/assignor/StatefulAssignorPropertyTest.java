package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.GroupSimulator.Member;
import io.kscale.assignor.GroupSimulator.ScriptedListener;
import io.kscale.assignor.internals.layout.TopicLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.junit.jupiter.api.DynamicTest;

/**
 * Stateful groups over random histories: members with and without a {@link TaskStateListener}
 * join and leave, the topic grows, and warmups report random progress. After every rebalance:
 * a task taken from a member with a listener that is still in the group went to a member
 * without one or to a member that had reported a lag within the acceptable recovery lag (KIP-441's
 * rule; under COOPERATIVE the taker is the member that keeps the withheld task warm). Once the
 * warmups catch up, the group settles: no warmups, no follow-up, loads balanced. Each history
 * is drawn from the seed of its try ({@link Seeds}).
 */
class StatefulAssignorPropertyTest {

    private static final Map<String, Object> NO_STORE = Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
    private static final String ORDERS = "orders";
    private static final long ACCEPTABLE = KeyPreservingAssignorConfig.ACCEPTABLE_RECOVERY_LAG_DEFAULT;

    @Property
    Stream<DynamicTest> tasksLeaveStatefulOwnersOnlyForCaughtUpMembersAndTheGroupSettles() {
        return Seeds.tries(40, StatefulAssignorPropertyTest::checkARandomHistory);
    }

    private static void checkARandomHistory(SplittableRandom random) {
        RebalanceProtocol protocol = random.nextBoolean() ? RebalanceProtocol.COOPERATIVE : RebalanceProtocol.EAGER;
        GroupSimulator group = new GroupSimulator(protocol, NO_STORE).topic(ORDERS, 4 + random.nextInt(9));
        List<String> members = new ArrayList<>();
        int nextId = 0;
        for (int step = 0; step < 12; step++) {
            int action = random.nextInt(10);
            if (members.isEmpty() || action < 4) {
                String id = "m" + nextId++;
                group.join(id, random.nextInt(4) == 0 ? null : new ScriptedListener(), ORDERS);
                members.add(id);
            } else if (action < 5 && members.size() > 1) {
                group.leave(members.remove(random.nextInt(members.size())));
            } else if (action < 6) {
                int current = group.cluster().partitionCountForTopic(ORDERS);
                if (current * 2 <= 48) {
                    group.topic(ORDERS, current * 2);
                }
            }
            String context = protocol + ", step " + step;
            for (int round = 0; round < 3; round++) {
                progress(group, members, random);
                rebalanceChecked(group, members, context);
            }
        }
        for (int round = 0; round < 60 && warming(group, members); round++) {
            members.forEach(id -> {
                ScriptedListener listener = group.member(id).listener;
                if (listener != null) {
                    listener.warming.forEach(task -> listener.lags.put(task, 0L));
                }
            });
            rebalanceChecked(group, members, protocol + ", catching up");
        }
        rebalanceChecked(group, members, protocol + ", settled");
        assertThat(warming(group, members)).as("warmups left (%s)", protocol).isFalse();
        for (String id : members) {
            assertThat(group.member(id).followUpDeadline()).as("follow-up of %s", id).isEmpty();
        }
        List<Integer> loads = new ArrayList<>(group.load().values());
        int taskSize = heaviestTask(group);
        assertThat(loads.stream().mapToInt(Integer::intValue).max().getAsInt()
                - loads.stream().mapToInt(Integer::intValue).min().getAsInt())
                .as("loads %s", group.load()).isLessThanOrEqualTo(taskSize);
    }

    /** Warmups make random progress; the application reports its active tasks at lag 0 and forgets what it dropped. */
    private static void progress(GroupSimulator group, List<String> members, SplittableRandom random) {
        for (String id : members) {
            Member member = group.member(id);
            ScriptedListener listener = member.listener;
            if (listener == null) {
                continue;
            }
            listener.dropped().forEach(listener.lags::remove);
            listener.dropCalls.clear();
            for (TaskRef task : listener.warming) {
                long lag = listener.lags.getOrDefault(task, 4 * ACCEPTABLE);
                listener.lags.put(task, Math.max(0, lag - random.nextLong(3 * ACCEPTABLE)));
            }
            activeTasks(group, member).forEach(task -> listener.lags.put(task, 0L));
        }
    }

    private static Set<TaskRef> activeTasks(GroupSimulator group, Member member) {
        int taskCount = member.assignor.knownLayout().topic(ORDERS).map(TopicLayout::taskCount).orElse(1);
        Set<TaskRef> tasks = new TreeSet<>();
        member.owned.forEach(p -> tasks.add(TaskRef.of(List.of(ORDERS), taskCount, p.partition() % taskCount)));
        return tasks;
    }

    private static boolean warming(GroupSimulator group, List<String> members) {
        return members.stream().map(group::member).anyMatch(m -> m.listener != null && !m.listener.warming.isEmpty());
    }

    /** Rebalances until no member has to revoke first, checking every rebalance. */
    private static void rebalanceChecked(GroupSimulator group, List<String> members, String context) {
        for (int round = 0; rebalanceOnce(group, members, context); round++) {
            assertThat(round).as("rounds until stable (%s)", context).isLessThan(5);
        }
    }

    /**
     * One rebalance, checking that a task leaves a member with a listener still in the group only
     * for a member without one or a caught-up one.
     *
     * @return whether a member revoked partitions and rejoins at once
     */
    private static boolean rebalanceOnce(GroupSimulator group, List<String> members, String context) {
        Map<String, Set<TaskRef>> before = new HashMap<>();
        Map<String, Map<TaskRef, Long>> reported = new HashMap<>();
        for (String id : members) {
            Member member = group.member(id);
            before.put(id, activeTasks(group, member));
            if (member.listener != null) {
                reported.put(id, new HashMap<>(member.listener.lags));
            }
        }
        boolean revoked = group.rebalance();
        Map<TaskRef, String> ownerNow = new TreeMap<>();
        for (String id : members) {
            activeTasks(group, group.member(id)).forEach(task -> ownerNow.put(task, id));
        }
        for (String giver : members) {
            if (group.member(giver).listener == null) {
                continue;
            }
            for (TaskRef task : before.get(giver)) {
                String taker = ownerNow.get(task);
                if (taker == null) {
                    // Withheld while the giver revokes: the taker, if it has a listener, keeps it warm.
                    taker = members.stream().filter(id -> group.member(id).listener != null
                            && group.member(id).info().warmups().contains(task)
                            && !activeTasks(group, group.member(id)).contains(task)).findFirst().orElse(null);
                }
                if (taker == null || taker.equals(giver) || group.member(taker).listener == null) {
                    continue;
                }
                long lag = reported.getOrDefault(taker, Map.of()).getOrDefault(task, Long.MAX_VALUE);
                assertThat(lag).as("%s moved from %s to %s, which reported lag %d (%s)", task, giver, taker, lag, context)
                        .isLessThanOrEqualTo(ACCEPTABLE);
            }
        }
        return revoked;
    }

    private static int heaviestTask(GroupSimulator group) {
        String any = group.load().keySet().iterator().next();
        int partitions = group.cluster().partitionCountForTopic(ORDERS);
        int tasks = group.member(any).assignor.knownLayout().topic(ORDERS).orElseThrow().taskCount();
        return (partitions + tasks - 1) / tasks;
    }
}
