package io.kscale.assignor.internals.server;

/**
 * The work of one assignment's placement, counted as it is done, and the budget that bounds it.
 * One instance per {@code assign()} call, threaded through {@link UnitPlacer} and
 * {@link SpreadNarrower}; plain fields, no synchronisation (one call runs on one thread).
 *
 * <p>What is counted, each a step of O(1) or O(log members):
 * <ul>
 *   <li>{@link #heapOps}: an add, poll or removal on a heap or a sorted set of members or units;</li>
 *   <li>{@link #scans}: an element looked at by a pass that is not once per unit or member of the
 *       input (a member-class pair a search visits, a member a level scan or a reset visits, a
 *       candidate the evening looks at and passes over);</li>
 *   <li>{@link #searches}: a path search started (its own steps are scans).</li>
 * </ul>
 * The passes made once per unit or member (reading targets, assembling) are linear in the
 * input and not counted, and neither are the comparisons of sorting the units to place by weight.
 *
 * <p>The budget is {@value #BUDGET_FACTOR} x (units + members + member-class pairs) x
 * log2(members). The pairs (a member and an eligibility class it may take units of, at most the
 * entries of the subscriptions) are there because reading the subscriptions is part of any
 * assignment: with every member reading a different subset of many one-partition topics, the
 * pairs outnumber units and members. The loops that could in principle search on (evening,
 * narrowing the spread) stop when it is spent, leaving a valid assignment that may be less
 * balanced than it could be. It is a guard against a runaway search, not a time limit: a million
 * units on 2,000 members get about 700 million steps, many seconds of a coordinator thread. The
 * shapes tested need a few percent of it, except a fresh group of a million partitions in 1,000
 * topics read by 2,000 members in mixed subscriptions, whose first evening of the units it placed
 * takes about half ({@code AssignmentWorkBoundTest}, {@code MixedSubscriptionBalanceTest}).
 */
final class AssignmentWork {

    /**
     * Steps per (unit + member + member-class pair) and per doubling of members. Placement costs
     * about 4 heap operations per unit placed and evening about 4 per class of the two members of
     * a move: one class's groups stay under 16 ({@code AssignmentWorkBoundTest}). Mixed
     * subscriptions add the narrower's searches, one per path shifted, each visiting up to every
     * member-class pair: on 240 seeded rounds of up to 300 members they took up to 38; 64 leaves
     * room above that.
     */
    static final long BUDGET_FACTOR = 64;

    long heapOps;
    long scans;
    long searches;
    /** Whether a loop stopped because the budget was spent. */
    boolean exhausted;
    private final long units;
    private final long members;
    private final long pairs;
    private final long budget;

    private AssignmentWork(long units, long members, long pairs) {
        this.units = units;
        this.members = members;
        this.pairs = pairs;
        this.budget = bound(BUDGET_FACTOR);
    }

    /** @return the work of placing these units on {@code members} members, with its budget */
    static AssignmentWork forGroup(TaskUnits units, int members) {
        return new AssignmentWork(units.count(), members, memberClassPairs(units));
    }

    /** @return {@code factor x (units + members + pairs) x log2(members)} for this group */
    long bound(long factor) {
        return bound(factor, units, members, pairs);
    }

    /**
     * @return {@code factor x (units + members + pairs) x log2(members)}, log2 rounded up and at
     *         least 1; {@code pairs} the member-class pairs (see the class comment)
     */
    static long bound(long factor, long units, long members, long pairs) {
        return factor * (units + members + pairs) * log2(members);
    }

    /** @return how many (member, eligibility class) pairs the group has: at most its subscriptions' entries */
    static long memberClassPairs(TaskUnits units) {
        long pairs = 0;
        for (int[] members : units.classMembers) {
            pairs += members.length;
        }
        return pairs;
    }

    /** @return the bit length of {@code members}: log2 rounded up, at least 1 */
    static int log2(long members) {
        return Math.max(1, 64 - Long.numberOfLeadingZeros(members));
    }

    long total() {
        return heapOps + scans + searches;
    }

    long budget() {
        return budget;
    }

    /** @return whether the budget is spent; marks the work {@link #exhausted} if so */
    boolean spent() {
        if (total() >= budget) {
            exhausted = true;
        }
        return exhausted;
    }

    @Override
    public String toString() {
        return "AssignmentWork[heapOps=" + heapOps + ", scans=" + scans + ", searches=" + searches + ", budget=" + budget
                + (exhausted ? ", exhausted" : "") + "]";
    }
}
