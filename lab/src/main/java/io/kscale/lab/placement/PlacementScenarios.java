package io.kscale.lab.placement;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The scenarios of {@code kscale-lab placement}, drawn from a seed. Each scenario draws from its
 * own random stream (seed and name), so picking a subset does not change the others.
 *
 * <p>Common to all: state sizes drawn log-uniformly from 100,000 to 3,000,000 records, 20 to 200
 * changelog writes per second per task, restore rates from 5,000 to 20,000 records per second per
 * client; acceptable recovery lag, warmup budget and probing interval from the command line
 * (Kafka Streams' defaults: 10,000 records, 2 warmups, 10 minutes).
 * <ul>
 *   <li>{@code scale-out-1-3}: 12 stateful tasks (2 sub-topologies of 6) on 1 instance of 2
 *       threads; 2 instances join.</li>
 *   <li>{@code scale-out-3-6}, {@code scale-out-3-6-standby}: 24 stateful tasks (2 of 12) and 6
 *       stateless on 3 instances of 2 threads; 3 join; no standby or one.</li>
 *   <li>{@code random}, {@code random-standby}: 3 to 5 instances of 1 to 4 threads, 2 or 3
 *       stateful sub-topologies of 4 to 12 tasks and 0 to 8 stateless tasks; then an instance
 *       joins, one crashes and a fresh one replaces it, one leaves; no standby or one.</li>
 * </ul>
 */
public final class PlacementScenarios {

    /** The scenario names, in the order they run. */
    public static final List<String> NAMES = List.of("scale-out-1-3", "scale-out-3-6", "scale-out-3-6-standby", "random",
            "random-standby");

    private static final long MIN_STATE = 100_000;
    private static final long MAX_STATE = 3_000_000;

    private PlacementScenarios() {
    }

    /**
     * Draws the named scenarios.
     *
     * @param names scenario names from {@link #NAMES}
     * @param seed the seed
     * @param settings acceptable lag, warmups and probing interval; each scenario sets its standbys
     * @throws IllegalArgumentException for an unknown name
     */
    public static List<PlacementScenario> of(List<String> names, long seed, SimSettings settings) {
        List<PlacementScenario> scenarios = new ArrayList<>();
        for (String name : names) {
            Random random = new Random(seed * 1_000_003L + name.hashCode());
            scenarios.add(switch (name) {
                case "scale-out-1-3" -> scaleOut(name, seed, random, 1, 3, 6, 0, settings.withStandbys(0));
                case "scale-out-3-6" -> scaleOut(name, seed, random, 3, 6, 12, 6, settings.withStandbys(0));
                case "scale-out-3-6-standby" -> scaleOut(name, seed, random, 3, 6, 12, 6, settings.withStandbys(1));
                case "random" -> randomCluster(name, seed, random, settings.withStandbys(0));
                case "random-standby" -> randomCluster(name, seed, random, settings.withStandbys(1));
                default -> throw new IllegalArgumentException("unknown scenario '" + name + "'; known: "
                        + String.join(", ", NAMES));
            });
        }
        return scenarios;
    }

    private static PlacementScenario scaleOut(String name, long seed, Random random, int from, int to, int partitions,
                                              int stateless, SimSettings settings) {
        List<SimTask> tasks = new ArrayList<>();
        statefulSubtopologies(random, tasks, 2, (sub, r) -> partitions);
        statelessSubtopology(tasks, 2, stateless);
        List<SimClient> initial = clients(random, 1, from, r -> 2);
        List<SimClient> joining = clients(random, from + 1, to - from, r -> 2);
        MembershipChange change = MembershipChange.join(String.format(Locale.ROOT, "%d -> %d instances", from, to), joining);
        return new PlacementScenario(name, seed, tasks, initial, List.of(change), settings);
    }

    private static PlacementScenario randomCluster(String name, long seed, Random random, SimSettings settings) {
        List<SimTask> tasks = new ArrayList<>();
        int subtopologies = 2 + random.nextInt(2);
        statefulSubtopologies(random, tasks, subtopologies, (sub, r) -> 4 + r.nextInt(9));
        statelessSubtopology(tasks, subtopologies, random.nextInt(9));
        int count = 3 + random.nextInt(3);
        List<SimClient> initial = clients(random, 1, count, r -> 1 + r.nextInt(4));
        SimClient joining = clients(random, count + 1, 1, r -> 1 + r.nextInt(4)).get(0);
        SimClient crashed = initial.get(random.nextInt(initial.size()));
        SimClient replacement = new SimClient(clientId(count + 2), crashed.capacity(), drawRate(random));
        List<String> remaining = new ArrayList<>();
        initial.stream().map(SimClient::id).filter(id -> !id.equals(crashed.id())).forEach(remaining::add);
        String leaving = remaining.get(random.nextInt(remaining.size()));
        List<MembershipChange> changes = List.of(
                MembershipChange.join(joining.id() + " joins", List.of(joining)),
                MembershipChange.crashAndReplace(crashed.id() + " crashes, fresh " + replacement.id(), crashed.id(), replacement),
                MembershipChange.leave(leaving + " leaves", List.of(leaving)));
        return new PlacementScenario(name, seed, tasks, initial, changes, settings);
    }

    private static void statefulSubtopologies(Random random, List<SimTask> tasks, int count,
                                              BiFunction<Integer, Random, Integer> partitions) {
        for (int sub = 0; sub < count; sub++) {
            int n = partitions.apply(sub, random);
            for (int p = 0; p < n; p++) {
                tasks.add(SimTask.stateful(sub, p, drawState(random), 20 + random.nextInt(181)));
            }
        }
    }

    private static void statelessSubtopology(List<SimTask> tasks, int subtopology, int count) {
        for (int p = 0; p < count; p++) {
            tasks.add(SimTask.stateless(subtopology, p));
        }
    }

    private static List<SimClient> clients(Random random, int firstNumber, int count,
                                           Function<Random, Integer> capacity) {
        List<SimClient> clients = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            clients.add(new SimClient(clientId(firstNumber + i), capacity.apply(random), drawRate(random)));
        }
        return clients;
    }

    private static String clientId(int number) {
        return String.format(Locale.ROOT, "c%02d", number);
    }

    private static long drawState(Random random) {
        double logMin = Math.log(MIN_STATE);
        double logMax = Math.log(MAX_STATE);
        return Math.round(Math.exp(logMin + random.nextDouble() * (logMax - logMin)));
    }

    private static long drawRate(Random random) {
        return 5_000 + random.nextInt(15_001);
    }

    /** @return Kafka Streams' defaults: acceptable lag 10,000, 2 warmups, no standby, 10-minute probing interval */
    public static SimSettings streamsDefaults() {
        return new SimSettings(10_000, 2, 0, Duration.ofMinutes(10));
    }
}
