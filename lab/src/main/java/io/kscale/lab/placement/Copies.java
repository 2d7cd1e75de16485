package io.kscale.lab.placement;

import java.util.Set;

/**
 * The copies of tasks one client holds after a rebalance. Disjoint sets. An assignor that does
 * not tell warmups from standbys (Kafka's) reports them all as standbys.
 *
 * @param active task ids it runs
 * @param standby task ids it keeps a standby copy of
 * @param warmup task ids it restores before they move to it
 */
public record Copies(Set<String> active, Set<String> standby, Set<String> warmup) {

    public static final Copies NONE = new Copies(Set.of(), Set.of(), Set.of());

    public Copies {
        active = Set.copyOf(active);
        standby = Set.copyOf(standby);
        warmup = Set.copyOf(warmup);
    }

    /** @return whether it holds the task in any role */
    public boolean holds(String task) {
        return active.contains(task) || standby.contains(task) || warmup.contains(task);
    }

    /** @return whether it holds a non-active copy of the task */
    public boolean holdsCopy(String task) {
        return standby.contains(task) || warmup.contains(task);
    }
}
