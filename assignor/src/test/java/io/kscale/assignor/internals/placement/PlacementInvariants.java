package io.kscale.assignor.internals.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The one invariant checker of the placement tests (like Kafka's
 * {@code AbstractStickyAssignorTest.verifyValidityAndBalance}): example tests and properties
 * assert the same rules. It recomputes "caught up" from the request on its own, so it does not
 * trust the engine's helpers.
 */
final class PlacementInvariants {

    private PlacementInvariants() {
    }

    /** Rules that hold for every placement of every valid request. */
    static void assertValid(PlacementRequest request, Placement placement) {
        String context = "placement " + placement + "\n of " + request;
        assertThat(placement.clients().keySet()).as(context)
                .containsExactlyElementsOf(request.clients().stream().map(ClientDescription::id).collect(Collectors.toList()));
        List<ClientDescription> eligible = request.clients().stream().filter(c -> c.capacity() > 0).collect(Collectors.toList());
        if (eligible.isEmpty()) {
            assertNothingPlaced(request, placement, context);
            return;
        }
        assertThat(placement.outcome()).as(context).isNotEqualTo(PlacementOutcome.NO_CAPACITY);
        assertThat(placement.unassignedTasks()).as(context).isEmpty();
        assertEachTaskActiveOnce(request, placement, context);
        assertOneCopyPerClient(request, placement, context);
        assertStandbysAndWarmups(request, placement, eligible.size(), context);
        Map<String, String> owners = PlacementFixtures.activeOwners(placement);
        for (TaskDescription task : request.tasks()) {
            if (task.isStateful()) {
                assertActiveOnACaughtUpClient(request, owners.get(task.id()), task.id(), context);
            }
        }
    }

    private static void assertNothingPlaced(PlacementRequest request, Placement placement, String context) {
        assertThat(placement.outcome()).as(context)
                .isEqualTo(request.tasks().isEmpty() ? PlacementOutcome.COMPLETE : PlacementOutcome.NO_CAPACITY);
        assertThat(placement.unassignedTasks()).as(context).containsExactlyElementsOf(PlacementFixtures.ids(request.tasks()));
        placement.clients().values().forEach(client -> assertThat(client.active()).as(context).isEmpty());
        placement.clients().values().forEach(client -> assertThat(client.standby()).as(context).isEmpty());
        placement.clients().values().forEach(client -> assertThat(client.warmup()).as(context).isEmpty());
        assertThat(placement.followUp().isScheduled()).as(context).isFalse();
    }

    private static void assertEachTaskActiveOnce(PlacementRequest request, Placement placement, String context) {
        Map<String, Integer> copies = new HashMap<>();
        placement.clients().values().forEach(client -> client.active().forEach(task -> copies.merge(task, 1, Integer::sum)));
        for (TaskDescription task : request.tasks()) {
            assertThat(copies.getOrDefault(task.id(), 0)).as("active copies of %s in %s", task.id(), context).isEqualTo(1);
        }
        assertThat(copies.keySet()).as(context).hasSameSizeAs(request.tasks());
    }

    private static void assertOneCopyPerClient(PlacementRequest request, Placement placement, String context) {
        for (ClientDescription client : request.clients()) {
            ClientPlacement now = placement.client(client.id());
            assertThat(Collections.disjoint(now.active(), now.standby())).as("active and standby of %s in %s", client.id(), context).isTrue();
            assertThat(Collections.disjoint(now.active(), now.warmup())).as("active and warmup of %s in %s", client.id(), context).isTrue();
            assertThat(Collections.disjoint(now.standby(), now.warmup())).as("standby and warmup of %s in %s", client.id(), context).isTrue();
            if (client.capacity() == 0) {
                assertThat(now.active().size() + now.standby().size() + now.warmup().size())
                        .as("tasks on %s of capacity 0 in %s", client.id(), context).isZero();
            }
        }
    }

    private static void assertStandbysAndWarmups(PlacementRequest request, Placement placement, int eligible, String context) {
        PlacementSettings settings = request.settings();
        Map<String, Integer> standbys = new HashMap<>();
        int warmups = 0;
        for (ClientPlacement client : placement.clients().values()) {
            client.standby().forEach(task -> standbys.merge(task, 1, Integer::sum));
            warmups += client.warmup().size();
        }
        int wanted = Math.min(settings.standbyCount(), eligible - 1);
        int missing = 0;
        for (TaskDescription task : request.tasks()) {
            int count = standbys.getOrDefault(task.id(), 0);
            assertThat(count).as("standbys of %s in %s", task.id(), context).isEqualTo(task.isStateful() ? wanted : 0);
            missing += task.isStateful() ? settings.standbyCount() - count : 0;
        }
        Set<String> stateless = request.tasks().stream().filter(t -> !t.isStateful()).map(TaskDescription::id).collect(Collectors.toSet());
        placement.clients().values().forEach(client ->
                assertThat(Collections.disjoint(client.warmup(), stateless)).as("warmup of a stateless task, %s", context).isTrue());
        assertThat(placement.missingStandbys()).as(context).isEqualTo(missing);
        assertThat(warmups).as("warmups in %s", context).isLessThanOrEqualTo(settings.maxWarmups());
        assertThat(placement.deferredMoves()).as(context).isBetween(0, placement.pendingMoves());
        if (placement.deferredMoves() > 0) {
            assertThat(warmups).as("budget is spent before a move is deferred, %s", context).isEqualTo(settings.maxWarmups());
        }
        assertThat(placement.outcome()).as(context)
                .isEqualTo(placement.pendingMoves() == 0 ? PlacementOutcome.COMPLETE : PlacementOutcome.CONVERGING);
        if (warmups > 0) {
            assertThat(placement.followUp().isScheduled()).as("follow-up while warming up, %s", context).isTrue();
        }
        if (placement.pendingMoves() == 0) {
            assertThat(placement.followUp().isScheduled()).as("no follow-up when complete, %s", context).isFalse();
        }
        placement.followUp().delay().ifPresent(delay -> assertThat(delay).as(context)
                .isBetween(settings.minFollowUpDelay(), settings.probingInterval()));
    }

    /**
     * The first rule of the cost function: active on a caught-up client when one exists, else
     * on a client with the smallest known lag when some lag is known.
     */
    private static void assertActiveOnACaughtUpClient(PlacementRequest request, String active, String task, String context) {
        long acceptable = request.settings().acceptableRecoveryLag();
        Map<String, Long> lags = new HashMap<>();
        for (ClientDescription client : request.clients()) {
            if (client.capacity() > 0) {
                OptionalLong lag = client.lag(task);
                if (lag.isPresent()) {
                    lags.put(client.id(), lag.getAsLong());
                } else if (client.priorActive().contains(task)) {
                    lags.put(client.id(), 0L);
                }
            }
        }
        Set<String> caughtUp = new HashSet<>();
        lags.forEach((client, lag) -> {
            if (lag <= acceptable) {
                caughtUp.add(client);
            }
        });
        if (!caughtUp.isEmpty()) {
            assertThat(caughtUp).as("%s is active on %s, not on a caught-up client, in %s", task, active, context).contains(active);
        } else if (!lags.isEmpty()) {
            long least = lags.values().stream().mapToLong(Long::longValue).min().orElseThrow();
            assertThat(lags.get(active)).as("%s is active on %s, not on a most caught-up client, in %s", task, active, context)
                    .isEqualTo(least);
        }
    }

    /**
     * Balance, as a local optimum: no single move of a stateful task lowers the larger stateful
     * load per capacity of its pair, and no single move of a stateless task lowers the larger
     * total load per capacity of its pair. With equal weights and capacities this is
     * "most and least loaded differ by at most one task".
     */
    static void assertBalanced(PlacementRequest request, Placement placement) {
        Map<String, TaskDescription> tasks = request.tasks().stream().collect(Collectors.toMap(TaskDescription::id, t -> t));
        Map<String, Long> statefulLoad = new HashMap<>();
        Map<String, Long> totalLoad = new HashMap<>();
        List<ClientDescription> eligible = request.clients().stream().filter(c -> c.capacity() > 0).collect(Collectors.toList());
        for (ClientDescription client : eligible) {
            long stateful = 0;
            long total = 0;
            for (String task : placement.client(client.id()).active()) {
                stateful += tasks.get(task).isStateful() ? tasks.get(task).weight() : 0;
                total += tasks.get(task).weight();
            }
            statefulLoad.put(client.id(), stateful);
            totalLoad.put(client.id(), total);
        }
        for (ClientDescription from : eligible) {
            for (String id : placement.client(from.id()).active()) {
                TaskDescription task = tasks.get(id);
                Map<String, Long> load = task.isStateful() ? statefulLoad : totalLoad;
                for (ClientDescription to : eligible) {
                    boolean improves = !to.id().equals(from.id())
                            && lessThan(load.get(to.id()) + task.weight(), to.capacity(), load.get(from.id()), from.capacity());
                    assertThat(improves).as("moving %s from %s to %s would even the load of %s\n in %s",
                            id, from.id(), to.id(), load, placement).isFalse();
                }
            }
        }
    }

    private static boolean lessThan(long n1, long d1, long n2, long d2) {
        return BigInteger.valueOf(n1).multiply(BigInteger.valueOf(d2)).compareTo(BigInteger.valueOf(n2).multiply(BigInteger.valueOf(d1))) < 0;
    }
}
