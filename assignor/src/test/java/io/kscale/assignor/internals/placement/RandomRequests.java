package io.kscale.assignor.internals.placement;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random but reproducible requests: the same arguments always give the same request, so a
 * failing property prints its arguments (its sample, {@code io.kscale.assignor.Seeds#sample}) and
 * {@code RandomRequests.generate(seed, clients, tasks, settings, shape)} rebuilds it.
 */
final class RandomRequests {

    /** What the random request may contain. */
    enum Shape {
        /** Weights 1-5, capacities 0-3, groups, racks, partial lags, prior owners that left or lost state. */
        ANYTHING,
        /** As {@link #ANYTHING}, but every task weighs 1 (every Kafka Streams task does). */
        EQUAL_WEIGHTS,
        /** Weight 1, capacity 1, every task its own group: the case where balance means "within one task". */
        UNIFORM
    }

    private RandomRequests() {
    }

    static PlacementRequest generate(long seed, int clientCount, int taskCount, PlacementSettings settings, Shape shape) {
        SplittableRandom random = new SplittableRandom(seed);
        boolean uniform = shape == Shape.UNIFORM;
        List<TaskDescription> tasks = new ArrayList<>();
        for (int t = 0; t < taskCount; t++) {
            tasks.add(task(random, String.format("t%02d", t), shape));
        }
        // One more client id than clients: prior owners may be a client that has left.
        List<ClientDescription.Builder> builders = new ArrayList<>();
        for (int c = 0; c < clientCount; c++) {
            builders.add(ClientDescription.builder("c" + c).capacity(uniform ? 1 : capacity(random))
                    .rack(uniform || random.nextInt(3) == 0 ? null : "r" + random.nextInt(3)));
        }
        for (TaskDescription task : tasks) {
            int owner = random.nextInt(clientCount + 1);
            if (owner < clientCount && random.nextInt(5) > 0) {
                builders.get(owner).priorActive(task.id());
                if (!uniform && task.isStateful() && random.nextInt(6) == 0) {
                    builders.get(owner).lag(task.id(), farBehind(random, settings));
                }
            }
            if (task.isStateful()) {
                addCopies(random, builders, task.id(), owner, settings, uniform);
            }
        }
        List<ClientDescription> clients = new ArrayList<>();
        builders.forEach(builder -> clients.add(builder.build()));
        Collections.shuffle(clients, new java.util.Random(seed));
        return PlacementRequest.of(tasks, clients, settings);
    }

    private static TaskDescription task(SplittableRandom random, String id, Shape shape) {
        TaskDescription task = random.nextInt(10) < 7 ? TaskDescription.stateful(id) : TaskDescription.stateless(id);
        if (shape == Shape.UNIFORM) {
            return task;
        }
        if (random.nextInt(3) == 0 && shape == Shape.ANYTHING) {
            task = task.withWeight(1 + random.nextInt(5));
        }
        return random.nextInt(2) == 0 ? task.inGroup("g" + random.nextInt(4)) : task;
    }

    private static int capacity(SplittableRandom random) {
        int draw = random.nextInt(10);
        return draw == 0 ? 0 : draw < 7 ? 1 : 2 + random.nextInt(2);
    }

    /** Prior standbys and lags on clients other than the owner. */
    private static void addCopies(SplittableRandom random, List<ClientDescription.Builder> builders, String task, int owner,
                                  PlacementSettings settings, boolean uniform) {
        for (int c = 0; c < builders.size(); c++) {
            if (c == owner) {
                continue;
            }
            int draw = random.nextInt(10);
            if (draw < 2) {
                builders.get(c).priorStandby(task).lag(task, random.nextInt(2) == 0 ? 0 : random.nextLong(settings.acceptableRecoveryLag() + 1));
            } else if (draw < 3 && !uniform) {
                builders.get(c).lag(task, farBehind(random, settings));
            }
        }
    }

    private static long farBehind(SplittableRandom random, PlacementSettings settings) {
        return settings.acceptableRecoveryLag() + 1 + random.nextLong(1_000_000);
    }
}
