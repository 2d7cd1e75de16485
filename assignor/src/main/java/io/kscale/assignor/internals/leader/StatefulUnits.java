package io.kscale.assignor.internals.leader;

import io.kscale.assignor.TaskStateListener;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.Units;
import io.kscale.assignor.internals.wire.MemberReport;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The leader's view of task state for the units of one topic class (topics subscribed by the
 * same members): whether its units are stateful, and each member's lag on them, as the placement
 * engine takes them ({@code TaskDescription}, {@code ClientDescription.lags}).
 *
 * <p>The rules:
 * <ul>
 *   <li>The units are <b>stateful</b> when a member of the class has a
 *       {@link TaskStateListener}; otherwise they are stateless and move freely, as before.</li>
 *   <li>A member with a listener has the lags it reported (a lag reported under a topic of the
 *       class with that topic's current T names the unit holding that task of the topic), except that the prior
 *       owner of a unit has lag 0: it was running it. Units it reported nothing on have an unknown
 *       lag: it must warm them up before they move to it.</li>
 *   <li>A member without a listener (or an old member, whose report has no lags) has lag 0 on
 *       every unit that has state somewhere (a prior owner, or a reported lag): it keeps no state,
 *       so such a unit moves to it at once, never waiting for a warmup. On a unit nobody has state
 *       of, its lag is unknown like everyone's, so the engine places that unit freely rather than
 *       prefer the members without state.</li>
 * </ul>
 * Why per class and not per unit ("stateful when someone ran it with a listener or reported a
 * lag"): that property changes while a unit moves (under COOPERATIVE a withheld unit has no owner
 * for a rebalance; a unit that moved to a member without a listener loses its stateful owner),
 * and the engine balances stateful and stateless units apart, so each change of kind moved units
 * back and forth without end. A unit nobody has state of is placed freely either way: the engine
 * then prefers every member alike.
 *
 * <p>Example, acceptable lag 10,000: A (listener) owns 4:0 and 4:1; C (listener) reports 4:1 at
 * 3,000; B has no listener; 4:2 and 4:3 are new. Lags: A 4:0 = 0, 4:1 = 0; C 4:1 = 3,000, 4:0
 * unknown; B 4:0 = 0, 4:1 = 0; 4:2 and 4:3 unknown everywhere. The engine may move 4:1 to C or B
 * at once, 4:0 to B at once and to C only after C has warmed it up, and places 4:2 and 4:3 on
 * any member.
 */
public final class StatefulUnits {

    private static final StatefulUnits NONE = new StatefulUnits(Set.of(), Set.of(), Map.of(), Map.of());

    private final Set<String> unitIds;
    private final Set<String> statefulMembers;
    /** Member to unit id to lag, for members with a listener. */
    private final Map<String, Map<String, Long>> lags;
    /** Lag 0 on every unit with state somewhere: the lags of members without a listener. */
    private final Map<String, Long> caughtUp;

    private StatefulUnits(Set<String> unitIds, Set<String> statefulMembers, Map<String, Map<String, Long>> lags,
                          Map<String, Long> caughtUp) {
        this.unitIds = unitIds;
        this.statefulMembers = statefulMembers;
        this.lags = lags;
        this.caughtUp = caughtUp;
    }

    /**
     * @param units the class's units
     * @param topics the class's topics
     * @param members the class's members
     * @param reports the members' reports, by member id (members without one have no listener)
     * @param priorOwner unit id to its prior owner, a member of the class
     * @param layout the layout the units come from
     */
    public static StatefulUnits of(Units units, Set<String> topics, Collection<String> members, Map<String, MemberReport> reports,
                            Map<String, String> priorOwner, GroupLayout layout) {
        Set<String> statefulMembers = new HashSet<>();
        for (String member : members) {
            MemberReport report = reports.get(member);
            if (report != null && report.stateful()) {
                statefulMembers.add(member);
            }
        }
        if (statefulMembers.isEmpty()) {
            return NONE;
        }
        Set<String> unitIds = new HashSet<>();
        units.units().forEach(unit -> unitIds.add(unit.id()));
        Map<String, Map<String, Long>> lags = new HashMap<>();
        for (String member : statefulMembers) {
            Map<String, Long> memberLags = new TreeMap<>();
            reports.get(member).lags().forEach((topic, topicLags) -> {
                boolean current = topics.contains(topic)
                        && layout.topic(topic).map(t -> t.taskCount() == topicLags.taskCount).orElse(false);
                if (current) {
                    topicLags.lags.forEach((task, lag) -> units.unitOfTask(topic, task)
                            .ifPresent(unit -> memberLags.merge(unit.id(), lag, Math::max)));
                }
            });
            lags.put(member, memberLags);
        }
        Map<String, Long> caughtUp = new HashMap<>();
        lags.values().forEach(memberLags -> memberLags.keySet().forEach(unit -> caughtUp.put(unit, 0L)));
        priorOwner.forEach((unit, owner) -> {
            caughtUp.put(unit, 0L);
            if (statefulMembers.contains(owner)) {
                lags.get(owner).put(unit, 0L);
            }
        });
        return new StatefulUnits(unitIds, statefulMembers, lags, Collections.unmodifiableMap(caughtUp));
    }

    /** @return whether the class's units are stateful */
    public boolean any() {
        return !statefulMembers.isEmpty();
    }

    /** @return whether the unit is stateful */
    public boolean isStateful(String unitId) {
        return unitIds.contains(unitId);
    }

    /** @return whether the member has a listener */
    public boolean isStatefulMember(String member) {
        return statefulMembers.contains(member);
    }

    /** @return the member's lags by unit id, for its {@code ClientDescription}; empty when the units are stateless */
    public Map<String, Long> lags(String member) {
        if (statefulMembers.isEmpty()) {
            return Map.of();
        }
        return statefulMembers.contains(member) ? lags.get(member) : caughtUp;
    }
}
