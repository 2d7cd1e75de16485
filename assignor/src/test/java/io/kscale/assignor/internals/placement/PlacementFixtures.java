package io.kscale.assignor.internals.placement;

import static org.assertj.core.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Shared fixtures of the placement tests (in the manner of Kafka Streams' AssignmentTestUtils):
 * named clients and racks, task factories, the engine run with the invariant check, and the
 * round-by-round simulation that feeds a placement back as the next prior state.
 */
final class PlacementFixtures {

    static final String A = "a";
    static final String B = "b";
    static final String C = "c";
    static final String D = "d";
    static final String E = "e";
    static final String RACK_1 = "rack-1";
    static final String RACK_2 = "rack-2";
    /** Kafka Streams' default acceptable.recovery.lag, which the default settings use. */
    static final long ACCEPTABLE_LAG = PlacementSettings.DEFAULT_ACCEPTABLE_RECOVERY_LAG;
    /** A lag well past the acceptable one: a client with it must restore before it can run the task. */
    static final long FAR_BEHIND = 50 * ACCEPTABLE_LAG;
    static final PlacementSettings DEFAULTS = PlacementSettings.defaults();

    private static final PlacementEngine ENGINE = new PlacementEngine();

    private PlacementFixtures() {
    }

    /** Stateful tasks {@code prefix00, prefix01, ...} of weight 1, each its own group. */
    static List<TaskDescription> stateful(String prefix, int count) {
        return ids(prefix, count).stream().map(TaskDescription::stateful).collect(Collectors.toList());
    }

    /** Stateless tasks {@code prefix00, prefix01, ...} of weight 1, each its own group. */
    static List<TaskDescription> stateless(String prefix, int count) {
        return ids(prefix, count).stream().map(TaskDescription::stateless).collect(Collectors.toList());
    }

    static List<String> ids(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> String.format("%s%02d", prefix, i)).collect(Collectors.toList());
    }

    static List<String> ids(Collection<TaskDescription> tasks) {
        return tasks.stream().map(TaskDescription::id).collect(Collectors.toList());
    }

    @SafeVarargs
    static List<TaskDescription> concat(List<TaskDescription>... lists) {
        List<TaskDescription> all = new ArrayList<>();
        for (List<TaskDescription> list : lists) {
            all.addAll(list);
        }
        return all;
    }

    static ClientDescription.Builder client(String id) {
        return ClientDescription.builder(id);
    }

    static PlacementRequest request(List<TaskDescription> tasks, PlacementSettings settings, ClientDescription... clients) {
        return PlacementRequest.of(tasks, List.of(clients), settings);
    }

    static PlacementRequest request(List<TaskDescription> tasks, ClientDescription... clients) {
        return request(tasks, DEFAULTS, clients);
    }

    /** Runs the engine and checks every invariant that holds for any placement. */
    static Placement place(PlacementRequest request) {
        Placement placement = ENGINE.place(request);
        PlacementInvariants.assertValid(request, placement);
        return placement;
    }

    /** @return task id to the client running it as active */
    static Map<String, String> activeOwners(Placement placement) {
        Map<String, String> owners = new TreeMap<>();
        placement.clients().values().forEach(client -> client.active().forEach(task -> owners.put(task, client.clientId())));
        return owners;
    }

    /** @return how many tasks are active on a different client than before */
    static int movedActives(Map<String, String> before, Map<String, String> after) {
        return (int) after.entrySet().stream()
                .filter(entry -> before.containsKey(entry.getKey()) && !before.get(entry.getKey()).equals(entry.getValue()))
                .count();
    }

    /**
     * The next round's request: every client reports what it holds now as its prior tasks
     * (warmups as standbys, as Kafka Streams does) and every standby or warmup copy reports lag 0,
     * i.e. copies catch up within one round. Actives report no lag (the prior owner rule).
     */
    static PlacementRequest feedBack(PlacementRequest request, Placement placement) {
        List<ClientDescription> clients = new ArrayList<>();
        for (ClientDescription client : request.clients()) {
            ClientPlacement now = placement.client(client.id());
            Set<String> copies = new TreeSet<>(now.standby());
            copies.addAll(now.warmup());
            ClientDescription.Builder next = ClientDescription.builder(client.id()).capacity(client.capacity())
                    .rack(client.rack().orElse(null)).priorActive(now.active()).priorStandby(copies);
            copies.forEach(task -> next.lag(task, 0));
            clients.add(next.build());
        }
        return PlacementRequest.of(request.tasks(), clients, request.settings());
    }

    /** Whether the placement hands every client exactly what it reported holding: nothing changes. */
    static boolean returnsItsInput(PlacementRequest request, Placement placement) {
        for (ClientDescription client : request.clients()) {
            ClientPlacement now = placement.client(client.id());
            Set<String> copies = new TreeSet<>(now.standby());
            copies.addAll(now.warmup());
            if (!now.active().equals(client.priorActive()) || !copies.equals(client.priorStandby()) || !now.warmup().isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** The rounds of a simulation: the request and placement of each round, until a placement returns its input. */
    record Round(PlacementRequest request, Placement placement) {
    }

    /**
     * Feeds placements back ({@link #feedBack}) until one returns its input, checking the
     * invariants on each. Fails if that takes more than {@code maxRounds} placements.
     */
    static List<Round> converge(PlacementRequest first, int maxRounds) {
        List<Round> rounds = new ArrayList<>();
        PlacementRequest request = first;
        for (int i = 0; i < maxRounds; i++) {
            Placement placement = place(request);
            rounds.add(new Round(request, placement));
            if (returnsItsInput(request, placement)) {
                return rounds;
            }
            request = feedBack(request, placement);
        }
        return fail("no fixed point within %d placements; first request %s%n placements: %s", maxRounds, first,
                rounds.stream().map(Round::placement).collect(Collectors.toList()));
    }

    /** Total moves of active tasks over a simulation, counting each round's changes. */
    static int totalMoves(Map<String, String> start, List<Round> rounds) {
        return totalMoves(start, rounds, task -> true);
    }

    /** Total moves of the active tasks that pass a filter over a simulation, counting each round's changes. */
    static int totalMoves(Map<String, String> start, List<Round> rounds, java.util.function.Predicate<String> tasks) {
        int moves = 0;
        Map<String, String> before = start;
        for (Round round : rounds) {
            Map<String, String> after = activeOwners(round.placement());
            Map<String, String> previous = before;
            moves += (int) after.keySet().stream().filter(tasks)
                    .filter(task -> previous.containsKey(task) && !previous.get(task).equals(after.get(task))).count();
            before = after;
        }
        return moves;
    }

    /** @return the active owners a request reports */
    static Map<String, String> priorOwners(PlacementRequest request) {
        Map<String, String> owners = new TreeMap<>();
        request.clients().forEach(client -> client.priorActive().forEach(task -> owners.put(task, client.id())));
        return owners;
    }
}
