package io.kscale.assignor.internals.placement;

import static io.kscale.assignor.internals.placement.PlacementFixtures.A;
import static io.kscale.assignor.internals.placement.PlacementFixtures.ACCEPTABLE_LAG;
import static io.kscale.assignor.internals.placement.PlacementFixtures.B;
import static io.kscale.assignor.internals.placement.PlacementFixtures.C;
import static io.kscale.assignor.internals.placement.PlacementFixtures.E;
import static io.kscale.assignor.internals.placement.PlacementFixtures.client;
import static io.kscale.assignor.internals.placement.PlacementFixtures.concat;
import static io.kscale.assignor.internals.placement.PlacementFixtures.ids;
import static io.kscale.assignor.internals.placement.PlacementFixtures.place;
import static io.kscale.assignor.internals.placement.PlacementFixtures.stateful;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Orphans after a crash without standbys ({@link OrphanRestores}): spread where they are caught
 * up sooner when that beats the move it costs, pinned for the placement, and the replacement's
 * warmups held back while it restores an active task.
 */
class OrphanRestoresTest {

    private static final long RATE = 10_000;
    private static final long ORPHAN = ACCEPTABLE_LAG + 100 * RATE;
    private static final PlacementSettings SETTINGS = PlacementSettings.builder().restoreRecordsPerSecond(RATE).build();

    /**
     * The worked example of {@link OrphanRestores}: A, B and C run a0..a3, b0..b3, c0..c3; D
     * crashed with d0..d3 and a fresh E replaces it. Every client lags {@code orphanLags} on d's
     * tasks and {@code ORPHAN} on tasks it does not run.
     */
    private static PlacementRequest crash(PlacementSettings settings, long... orphanLags) {
        List<TaskDescription> tasks = concat(stateful("a", 4), stateful("b", 4), stateful("c", 4), stateful("d", 4));
        List<ClientDescription> clients = List.of(survivor(A, "a", orphanLags).build(), survivor(B, "b", orphanLags).build(),
                survivor(C, "c", orphanLags).build(), survivor(E, null, orphanLags).build());
        return PlacementRequest.of(tasks, clients, settings);
    }

    private static ClientDescription.Builder survivor(String id, String prefix, long[] orphanLags) {
        ClientDescription.Builder client = client(id).priorActive(prefix == null ? List.of() : ids(prefix, 4));
        for (String other : List.of("a", "b", "c")) {
            if (!other.equals(prefix)) {
                ids(other, 4).forEach(task -> client.lag(task, ORPHAN));
            }
        }
        for (int i = 0; i < 4; i++) {
            client.lag(String.format("d%02d", i), orphanLags[i]);
        }
        return client;
    }

    @Test
    void shouldSpreadOrphansOfEqualSizeOverTheSurvivorsAndTheReplacement() {
        Placement placement = place(crash(SETTINGS, ORPHAN, ORPHAN, ORPHAN, ORPHAN));

        assertThat(owners(placement, "d")).containsExactly(Map.entry("d00", E), Map.entry("d01", A),
                Map.entry("d02", B), Map.entry("d03", C));
        assertThat(placement.pendingMoves()).as("a caught-up task each from A, B and C to E").isEqualTo(3);
    }

    @Test
    void shouldSpreadTheLargestFirstWhereEachIsCaughtUpSoonest() {
        Placement placement = place(crash(SETTINGS, ACCEPTABLE_LAG + 100 * RATE, ACCEPTABLE_LAG + 80 * RATE,
                ACCEPTABLE_LAG + 60 * RATE, ACCEPTABLE_LAG + 40 * RATE));

        assertThat(owners(placement, "d")).containsExactly(Map.entry("d00", E), Map.entry("d01", A),
                Map.entry("d02", B), Map.entry("d03", C));
    }

    @Test
    void shouldHoldBackWarmupsOnAClientRestoringAnActiveTaskAndFollowUpWhenItHasCaughtUp() {
        Placement placement = place(crash(SETTINGS, ORPHAN, ORPHAN, ORPHAN, ORPHAN));

        assertThat(placement.client(E).warmup()).as("E restores d00, which is down").isEmpty();
        assertThat(placement.deferredMoves()).as("held back, not waiting for budget").isZero();
        assertThat(placement.followUp()).as("d00 caught up: 1,000,000 records at 10,000/s")
                .isEqualTo(FollowUp.after(Duration.ofSeconds(100)));
    }

    @Test
    void shouldWarmUpCaughtUpTasksOnTheReplacementOnceItsOrphanIsCaughtUpAndLeaveTheOthersRestoring() {
        // The next rebalance: E has caught up on d00; A, B and C are half way through theirs.
        PlacementRequest first = crash(SETTINGS, ORPHAN, ORPHAN, ORPHAN, ORPHAN);
        Placement placement = place(next(first, place(first), ACCEPTABLE_LAG + 50 * RATE));

        assertThat(owners(placement, "d")).as("no orphan moves again").containsExactly(Map.entry("d00", E),
                Map.entry("d01", A), Map.entry("d02", B), Map.entry("d03", C));
        assertThat(placement.client(E).warmup()).hasSize(2).noneMatch(task -> task.startsWith("d"));
    }

    @Test
    void shouldGiveAFasterClientMoreOrphans() {
        // A restores 40,000 records/s, E 10,000 (100 s per orphan, E's home for all three by
        // balance). On A, d00 is caught up in 25 s, and d01 in 50 s plus the 25 s it delays d00:
        // both beat 100 s; d02 would take 125 s there, so it stays on E.
        List<TaskDescription> tasks = concat(stateful("a", 4), stateful("d", 3));
        ClientDescription.Builder a = client(A).priorActive(ids("a", 4)).restoreRecordsPerSecond(4 * RATE);
        ClientDescription.Builder e = client(E).restoreRecordsPerSecond(RATE);
        for (String task : ids("d", 3)) {
            a.lag(task, ORPHAN);
            e.lag(task, ORPHAN);
        }
        ids("a", 4).forEach(task -> e.lag(task, ORPHAN));

        Placement placement = place(PlacementRequest.of(tasks, List.of(a.build(), e.build()), SETTINGS));

        assertThat(placement.client(A).active()).contains("d00", "d01");
        assertThat(placement.client(E).active()).containsExactly("d02");
    }

    @Test
    void shouldNotSpreadEqualOrphansOfAClientThatLeftWithoutAReplacement() {
        // C leaves with c0..c1: A and B each get one, and nothing more moves.
        List<TaskDescription> tasks = concat(stateful("a", 2), stateful("b", 2), stateful("c", 2));
        ClientDescription.Builder a = client(A).priorActive(ids("a", 2));
        ClientDescription.Builder b = client(B).priorActive(ids("b", 2));
        for (String task : ids("c", 2)) {
            a.lag(task, ORPHAN);
            b.lag(task, ORPHAN);
        }

        Placement placement = place(PlacementRequest.of(tasks, List.of(a.build(), b.build()), SETTINGS));

        assertThat(placement.client(A).active()).hasSize(3);
        assertThat(placement.client(B).active()).hasSize(3);
        assertThat(placement.pendingMoves()).isZero();
    }

    @Test
    void shouldNotTreatATaskWithACaughtUpCopyAsAnOrphan() {
        // D crashed, but B kept a standby of d00: it fails over there, nothing restores it.
        List<TaskDescription> tasks = concat(stateful("a", 2), stateful("d", 1));
        Placement placement = place(PlacementRequest.of(tasks, List.of(client(A).priorActive(ids("a", 2))
                .lag("d00", ORPHAN).build(), client(B).priorStandby("d00").lag("d00", 0).build()), SETTINGS));

        assertThat(placement.client(B).active()).containsExactly("d00");
    }

    /** The next request: copies and actives as placed, E caught up on what it runs, the others at {@code lag} on d's. */
    private static PlacementRequest next(PlacementRequest request, Placement placement, long lag) {
        List<ClientDescription> clients = new java.util.ArrayList<>();
        for (ClientDescription client : request.clients()) {
            ClientPlacement now = placement.client(client.id());
            ClientDescription.Builder next = client(client.id()).priorActive(now.active()).priorStandby(now.standby());
            client.lags().forEach((task, old) -> {
                if (!now.active().contains(task)) {
                    next.lag(task, old);
                } else if (task.startsWith("d") && !client.id().equals(E)) {
                    next.lag(task, lag);
                }
            });
            clients.add(next.build());
        }
        return PlacementRequest.of(request.tasks(), clients, request.settings());
    }

    /** @return the active owner of each task with the prefix */
    private static Map<String, String> owners(Placement placement, String prefix) {
        Map<String, String> owners = new TreeMap<>();
        placement.clients().values().forEach(client -> client.active().stream().filter(task -> task.startsWith(prefix))
                .forEach(task -> owners.put(task, client.clientId())));
        return owners;
    }
}
