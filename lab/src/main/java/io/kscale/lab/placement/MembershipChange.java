package io.kscale.lab.placement;

import java.util.List;

/**
 * What happens to the group at the start of a phase, followed by one rebalance. A client that
 * leaves takes its local state with it; a crash whose replacement starts on an empty disk is a
 * change with one client leaving and a fresh one joining.
 *
 * @param label how the report names the phase
 * @param leaving ids of clients that leave (or crash)
 * @param joining clients that join, with no local state
 */
public record MembershipChange(String label, List<String> leaving, List<SimClient> joining) {

    public MembershipChange {
        leaving = List.copyOf(leaving);
        joining = List.copyOf(joining);
    }

    /** @return "join", "leave", or "crash" for a change where clients leave and others join */
    public String kind() {
        return leaving.isEmpty() ? "join" : joining.isEmpty() ? "leave" : "crash";
    }

    /** Clients join. */
    public static MembershipChange join(String label, List<SimClient> clients) {
        return new MembershipChange(label, List.of(), clients);
    }

    /** Clients leave for good. */
    public static MembershipChange leave(String label, List<String> clientIds) {
        return new MembershipChange(label, clientIds, List.of());
    }

    /** A client crashes, loses its disk, and a fresh client takes its place in the same rebalance. */
    public static MembershipChange crashAndReplace(String label, String crashed, SimClient replacement) {
        return new MembershipChange(label, List.of(crashed), List.of(replacement));
    }
}
