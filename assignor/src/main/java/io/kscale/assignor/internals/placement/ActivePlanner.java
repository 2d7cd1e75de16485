package io.kscale.assignor.internals.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns the balanced target of the stateful tasks into the active tasks of this round, by the
 * first rule of the cost function (KIP-441): a stateful task is active only on a preferred
 * (caught-up) client.
 *
 * <p>If the target client is preferred, the task goes there now, even if it was a warmup a
 * moment ago: a warmup is promoted as soon as it has caught up, not at the next probing
 * rebalance. Otherwise the move is pending: the task stays where the target computation started
 * it, which is a preferred client (its caught-up prior owner, or, when the owner left or lost its
 * state, the least loaded preferred client such as a standby), and the target client may warm
 * up a copy ({@link WarmupPlanner}).
 *
 * <p>Example: target of t is D, D's lag is unknown, A ran t: t stays active on A, pending move
 * t to D. Next round D reports lag 3 (acceptable 10,000): D is caught up, t is active on D.
 */
public final class ActivePlanner {

    /** A stateful task kept on a caught-up client while its target client catches up. */
    static final class PendingMove {
        final int task;
        final int target;

        PendingMove(int task, int target) {
            this.task = task;
            this.target = target;
        }
    }

    /** By task: the active client of stateful tasks, -1 for stateless ones. */
    final int[] active;
    /** By client: the weight of its active stateful tasks. */
    final long[] load;
    final List<PendingMove> pending = new ArrayList<>();

    private ActivePlanner(Model model) {
        active = new int[model.taskCount()];
        Arrays.fill(active, -1);
        load = new long[model.clientCount()];
    }

    static ActivePlanner plan(Model model, CaughtUpClients caught, Pool target) {
        ActivePlanner plan = new ActivePlanner(model);
        for (int t : target.tasks) {
            int to = target.owner[t];
            if (caught.isPreferred(t, to)) {
                plan.assign(model, t, to);
            } else {
                plan.pending.add(new PendingMove(t, to));
            }
        }
        for (PendingMove move : plan.pending) {
            plan.assign(model, move.task, target.start[move.task]);
        }
        return plan;
    }

    private void assign(Model model, int task, int client) {
        active[task] = client;
        load[client] += model.weight[task];
    }
}
