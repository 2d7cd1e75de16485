package io.kscale.assignor.internals.placement;

import static io.kscale.assignor.internals.placement.PlacementFixtures.A;
import static io.kscale.assignor.internals.placement.PlacementFixtures.B;
import static io.kscale.assignor.internals.placement.PlacementFixtures.C;
import static io.kscale.assignor.internals.placement.PlacementFixtures.D;
import static io.kscale.assignor.internals.placement.PlacementFixtures.FAR_BEHIND;
import static io.kscale.assignor.internals.placement.PlacementFixtures.RACK_1;
import static io.kscale.assignor.internals.placement.PlacementFixtures.RACK_2;
import static io.kscale.assignor.internals.placement.PlacementFixtures.client;
import static io.kscale.assignor.internals.placement.PlacementFixtures.converge;
import static io.kscale.assignor.internals.placement.PlacementFixtures.ids;
import static io.kscale.assignor.internals.placement.PlacementFixtures.place;
import static io.kscale.assignor.internals.placement.PlacementFixtures.request;
import static io.kscale.assignor.internals.placement.PlacementFixtures.stateful;
import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.assignor.internals.placement.PlacementFixtures.Round;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Examples of standby placement: state first, then rack, stickiness, pending targets and load. */
class StandbyPlacementTest {

    private static final PlacementSettings ONE_STANDBY = PlacementSettings.builder().standbyCount(1).build();

    @Test
    void shouldPlaceTheStandbyOnAClientThatAlreadyHoldsState() {
        PlacementRequest request = request(stateful("t", 1), ONE_STANDBY,
                client(A).priorActive("t00").build(),
                client(B).build(),
                client(C).lag("t00", 40).build());

        Placement placement = place(request);

        assertThat(placement.client(C).standby()).containsExactly("t00");
    }

    @Test
    void shouldPreferAClientWithSomeStateToOneWithNone() {
        PlacementRequest request = request(stateful("t", 1), ONE_STANDBY,
                client(A).priorActive("t00").build(),
                client(B).build(),
                client(C).lag("t00", FAR_BEHIND).build());

        assertThat(place(request).client(C).standby()).containsExactly("t00");
    }

    @Test
    void shouldPreferARackOtherThanTheActivesAmongEquallyCaughtUpClients() {
        PlacementRequest request = request(stateful("t", 1), ONE_STANDBY,
                client(A).rack(RACK_1).priorActive("t00").build(),
                client(B).rack(RACK_1).lag("t00", 0).build(),
                client(C).rack(RACK_2).lag("t00", 0).build());

        assertThat(place(request).client(C).standby()).containsExactly("t00");
    }

    @Test
    void shouldPreferARackOtherThanTheActivesAmongClientsWithoutState() {
        PlacementRequest request = request(stateful("t", 1), ONE_STANDBY,
                client(A).rack(RACK_1).priorActive("t00").build(),
                client(B).rack(RACK_1).build(),
                client(C).rack(RACK_2).build());

        assertThat(place(request).client(C).standby()).containsExactly("t00");
    }

    @Test
    void shouldKeepThePriorStandbyWhenAnotherClientIsEquallyGood() {
        PlacementRequest request = request(stateful("t", 1), ONE_STANDBY,
                client(A).priorActive("t00").build(),
                client(B).lag("t00", 0).build(),
                client(C).priorStandby("t00").lag("t00", 0).build());

        assertThat(place(request).client(C).standby()).containsExactly("t00");
    }

    @Test
    void shouldPutTheStandbyOnTheTargetOfAPendingMoveSoItDoublesAsWarmup() {
        PlacementRequest request = request(stateful("t", 3), ONE_STANDBY,
                client(A).priorActive("t00", "t01", "t02").build(),
                client(B).build(),
                client(C).build());

        Placement placement = place(request);

        // Target: t00 to B, t01 to C; both wait on A while the standbys on B and C catch up.
        assertThat(placement.client(B).standby()).contains("t00");
        assertThat(placement.client(C).standby()).contains("t01");
        placement.clients().values().forEach(client -> assertThat(client.warmup()).isEmpty());
        assertThat(placement.pendingMoves()).isEqualTo(2);
        assertThat(placement.deferredMoves()).isZero();
        assertThat(placement.followUp().isScheduled()).isTrue();
    }

    @Test
    void shouldSpreadStandbysByCapacityInsteadOfPilingThemOnTheFormerOwner() {
        List<TaskDescription> tasks = stateful("t", 8);
        PlacementRequest request = request(tasks, ONE_STANDBY,
                client(A).priorActive(ids(tasks)).build(), client(B).build(), client(C).build(), client(D).build());

        List<Round> rounds = converge(request, 12);

        Placement last = rounds.get(rounds.size() - 1).placement();
        for (String id : List.of(A, B, C, D)) {
            assertThat(last.client(id).active()).as("actives of %s", id).hasSize(2);
            assertThat(last.client(id).standby()).as("standbys of %s", id).hasSize(2);
        }
    }

    @Test
    void shouldCountTheStandbysThatDoNotFit() {
        PlacementSettings twoStandbys = PlacementSettings.builder().standbyCount(2).build();
        PlacementRequest request = request(stateful("t", 3), twoStandbys,
                client(A).priorActive("t00", "t01", "t02").build(), client(B).build());

        Placement placement = place(request);

        assertThat(placement.client(B).standby()).containsExactly("t00", "t01", "t02");
        assertThat(placement.missingStandbys()).isEqualTo(3);
    }

    @Test
    void shouldGiveNoCopiesToAClientWithoutCapacity() {
        PlacementRequest request = request(stateful("t", 1), ONE_STANDBY,
                client(A).priorActive("t00").build(),
                client(B).capacity(0).priorStandby("t00").lag("t00", 0).build());

        Placement placement = place(request);

        assertThat(placement.client(B).standby()).isEmpty();
        assertThat(placement.missingStandbys()).isEqualTo(1);
    }
}
