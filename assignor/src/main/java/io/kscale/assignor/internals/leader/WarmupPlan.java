package io.kscale.assignor.internals.leader;

import io.kscale.assignor.TaskRef;
import io.kscale.assignor.TaskStateListener;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.Unit;
import io.kscale.assignor.internals.placement.Placement;
import io.kscale.assignor.internals.wire.AssignmentInfo;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What the leader tells each member with a {@link TaskStateListener}, collected over the topic
 * classes of one rebalance, then written into its {@link AssignmentInfo}: the task groups of its
 * tasks, the tasks to warm up, and the follow-up deadline.
 *
 * <p>A member's warmups are the placement's warmups on it, plus the stateful units placed on it
 * whose partitions are withheld while their prior owner revokes them (COOPERATIVE): it keeps them
 * warm until they arrive with the next rebalance, rather than drop a caught-up copy. The member
 * that revokes such a unit keeps it warm too, until then ({@link #releasing}). The deadline
 * (leader's clock plus the placement's follow-up delay, the earliest over classes) goes only to
 * members with placement warmups: they are the ones catching up, and one member asking is enough
 * for the group to rebalance.
 */
public final class WarmupPlan {

    private final long now;
    private final Map<String, Set<List<String>>> groups = new HashMap<>();
    private final Map<String, SortedSet<TaskRef>> warmups = new HashMap<>();
    private final Map<String, Long> deadlines = new HashMap<>();
    private int placementWarmups;
    private int pendingMoves;
    /** When every member should rebalance to read the layout store again (issue 17), or null. */
    private Long storeRetry;

    /** @param now the leader's clock, epoch ms */
    public WarmupPlan(long now) {
        this.now = now;
    }

    /**
     * Records a unit placed active on a member of the class.
     *
     * @param withheld whether its partitions wait for another member to revoke them
     */
    public void placed(String member, Unit unit, StatefulUnits states, boolean withheld) {
        if (!states.isStatefulMember(member)) {
            return;
        }
        groups.computeIfAbsent(member, m -> new LinkedHashSet<>()).add(unit.topics());
        if (withheld && states.isStateful(unit.id())) {
            warmups.computeIfAbsent(member, m -> new TreeSet<>()).add(ref(unit));
        }
    }

    /**
     * Records a stateful unit whose partitions the member still owns while they are withheld from
     * the unit's new owner (COOPERATIVE): the member keeps it warm this round instead of hearing
     * {@code onDrop}, so that a caught-up copy exists until the new owner holds the unit (issue
     * 11); the next rebalance, which hands the unit over, lets it drop the state.
     */
    public void releasing(String member, Unit unit, StatefulUnits states) {
        if (!states.isStatefulMember(member) || !states.isStateful(unit.id())) {
            return;
        }
        groups.computeIfAbsent(member, m -> new LinkedHashSet<>()).add(unit.topics());
        warmups.computeIfAbsent(member, m -> new TreeSet<>()).add(ref(unit));
    }

    /** Records the placement's warmups and follow-up for one class. */
    public void placement(Placement placement, Map<String, Unit> unitsById, StatefulUnits states) {
        pendingMoves += placement.pendingMoves();
        OptionalLong deadline = placement.followUp().delay().map(delay -> OptionalLong.of(deadline(delay)))
                .orElse(OptionalLong.empty());
        placement.clients().forEach((member, client) -> {
            if (client.warmup().isEmpty() || !states.isStatefulMember(member)) {
                return;
            }
            for (String id : client.warmup()) {
                Unit unit = unitsById.get(id);
                groups.computeIfAbsent(member, m -> new LinkedHashSet<>()).add(unit.topics());
                warmups.computeIfAbsent(member, m -> new TreeSet<>()).add(ref(unit));
                placementWarmups++;
            }
            deadline.ifPresent(at -> deadlines.merge(member, at, Math::min));
        });
    }

    /**
     * Asks every member for a follow-up rebalance, so that the leader reads the layout store again
     * (topics are held or provisional): the earlier of this and a member's warmup deadline.
     *
     * @param delay from now
     */
    public void storeRetry(Duration delay) {
        storeRetry = deadline(delay);
    }

    private long deadline(Duration delay) {
        long millis = delay.toMillis();
        return millis > Long.MAX_VALUE - 1 - now ? Long.MAX_VALUE - 1 : now + millis;
    }

    private static TaskRef ref(Unit unit) {
        return TaskRef.of(unit.topics(), unit.taskCount(), unit.task());
    }

    /**
     * @param plain the userData of members that get nothing of this: the layout only
     * @return the member's assignment userData
     */
    public ByteBuffer userData(String member, ByteBuffer layoutBytes, GroupLayout layout, ByteBuffer plain) {
        Set<List<String>> memberGroups = groups.get(member);
        Long deadline = deadlines.get(member);
        if (storeRetry != null) {
            deadline = deadline == null ? storeRetry : Math.min(deadline, storeRetry);
        }
        if (memberGroups == null && deadline == null) {
            return plain.duplicate();
        }
        return AssignmentInfo.encode(layoutBytes, layout,
                deadline == null ? OptionalLong.empty() : OptionalLong.of(deadline),
                memberGroups == null ? List.of() : memberGroups,
                warmups.getOrDefault(member, Collections.emptySortedSet()), AssignmentInfo.VERSION);
    }

    /** @return warmups the placements started or kept, across the group */
    public int placementWarmups() {
        return placementWarmups;
    }

    /** @return stateful units kept on a caught-up member while their target catches up */
    public int pendingMoves() {
        return pendingMoves;
    }

    /** @return the earliest follow-up deadline, if any */
    public OptionalLong earliestDeadline() {
        return deadlines.values().stream().mapToLong(Long::longValue).min();
    }
}
