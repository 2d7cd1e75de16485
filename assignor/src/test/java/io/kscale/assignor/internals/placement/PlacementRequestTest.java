package io.kscale.assignor.internals.placement;

import static io.kscale.assignor.internals.placement.PlacementFixtures.A;
import static io.kscale.assignor.internals.placement.PlacementFixtures.B;
import static io.kscale.assignor.internals.placement.PlacementFixtures.C;
import static io.kscale.assignor.internals.placement.PlacementFixtures.FAR_BEHIND;
import static io.kscale.assignor.internals.placement.PlacementFixtures.activeOwners;
import static io.kscale.assignor.internals.placement.PlacementFixtures.client;
import static io.kscale.assignor.internals.placement.PlacementFixtures.concat;
import static io.kscale.assignor.internals.placement.PlacementFixtures.place;
import static io.kscale.assignor.internals.placement.PlacementFixtures.request;
import static io.kscale.assignor.internals.placement.PlacementFixtures.stateful;
import static io.kscale.assignor.internals.placement.PlacementFixtures.stateless;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Edge inputs: what is rejected with which message, and what is a documented degraded result. */
class PlacementRequestTest {

    @Test
    void shouldRejectDuplicateTaskIds() {
        assertThatThrownBy(() -> request(List.of(TaskDescription.stateful("t"), TaskDescription.stateless("t")), client(A).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicate task id 't'");
    }

    @Test
    void shouldRejectDuplicateClientIds() {
        assertThatThrownBy(() -> request(stateful("t", 1), client(A).build(), client(A).capacity(2).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicate client id 'a'");
    }

    @Test
    void shouldRejectATaskThatIsPriorActiveOnTwoClients() {
        assertThatThrownBy(() -> request(stateful("t", 1), client(A).priorActive("t00").build(), client(B).priorActive("t00").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("task 't00' is a prior active task of two clients, 'a' and 'b'");
    }

    @Test
    void shouldRejectUnknownTaskIds() {
        assertThatThrownBy(() -> request(stateful("t", 1), client(A).lag("gone", 0).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a lag for task 'gone'");
        assertThatThrownBy(() -> request(stateful("t", 1), client(A).priorActive("gone").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prior active task 'gone'");
        assertThatThrownBy(() -> request(stateful("t", 1), client(A).priorStandby("gone").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prior standby task 'gone'");
    }

    @Test
    void shouldRejectAClientThatHoldsTwoCopiesOfATask() {
        assertThatThrownBy(() -> client(A).priorActive("t00").priorStandby("t00").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("both prior active and prior standby");
    }

    @Test
    void shouldRejectNegativeNumbers() {
        assertThatThrownBy(() -> client(A).capacity(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity -1");
        assertThatThrownBy(() -> client(A).lag("t00", -2)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lag -2");
        assertThatThrownBy(() -> TaskDescription.stateful("t").withWeight(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("weight 0");
        assertThatThrownBy(() -> PlacementSettings.builder().maxWarmups(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxWarmups is -1");
    }

    @Test
    void shouldRejectAMinimumFollowUpDelayAboveTheProbingInterval() {
        assertThatThrownBy(() -> PlacementSettings.builder().probingInterval(Duration.ofSeconds(5)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("minFollowUpDelay PT10S is longer than probingInterval PT5S");
    }

    @Test
    void shouldRejectATotalWeightThatCouldOverflow() {
        List<TaskDescription> tasks = List.of(TaskDescription.stateless("x").withWeight(Long.MAX_VALUE / 4),
                TaskDescription.stateless("y").withWeight(1));
        assertThatThrownBy(() -> request(tasks, client(A).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("total weight");
    }

    @Test
    void shouldPlaceNothingWithoutClients() {
        Placement placement = place(request(stateful("t", 2)));

        assertThat(placement.outcome()).isEqualTo(PlacementOutcome.NO_CAPACITY);
        assertThat(placement.unassignedTasks()).containsExactly("t00", "t01");
        assertThat(placement.clients()).isEmpty();
    }

    @Test
    void shouldPlaceNothingWhenNoClientHasCapacity() {
        Placement placement = place(request(stateful("t", 1), client(A).capacity(0).priorActive("t00").build()));

        assertThat(placement.outcome()).isEqualTo(PlacementOutcome.NO_CAPACITY);
        assertThat(placement.client(A).active()).isEmpty();
        assertThat(placement.unassignedTasks()).containsExactly("t00");
    }

    @Test
    void shouldCompleteWithoutTasks() {
        Placement placement = place(request(List.of(), client(A).build()));

        assertThat(placement.outcome()).isEqualTo(PlacementOutcome.COMPLETE);
        assertThat(placement.client(A).active()).isEmpty();
    }

    @Test
    void shouldMoveTasksOffAClientWhoseCapacityDroppedToZero() {
        Placement placement = place(request(stateful("t", 2), client(A).capacity(0).priorActive("t00", "t01").build(),
                client(B).build()));

        assertThat(placement.client(B).active()).containsExactly("t00", "t01");
        assertThat(placement.client(A).active()).isEmpty();
    }

    @Test
    void shouldIgnoreStandbysAndLagsOfStatelessTasks() {
        PlacementSettings oneStandby = PlacementSettings.builder().standbyCount(1).build();
        Placement placement = place(request(stateless("s", 1), oneStandby,
                client(A).priorActive("s00").build(), client(B).priorStandby("s00").lag("s00", 0).build()));

        assertThat(placement.client(A).active()).containsExactly("s00");
        assertThat(placement.client(B).standby()).isEmpty();
    }

    @Test
    void shouldKeepStatefulTasksOnTheirOwnersWhenLagsAreUnknownAndNoWarmupsAreAllowed() {
        // Kafka Streams' -3 (lags unknown) fallback: the adapter passes no lags and maxWarmups 0.
        PlacementSettings fallback = PlacementSettings.builder().maxWarmups(0).build();
        Placement placement = place(request(concat(stateful("t", 4), stateless("s", 4)), fallback,
                client(A).priorActive("t00", "t01", "t02", "t03", "s00", "s01", "s02", "s03").build(),
                client(B).build()));

        assertThat(placement.client(A).active()).containsExactly("t00", "t01", "t02", "t03");
        assertThat(placement.client(B).active()).containsExactly("s00", "s01", "s02", "s03");
        assertThat(placement.followUp().isScheduled()).isFalse();
    }

    @Test
    void shouldTreatAPriorOwnerThatLostItsStateLikeAnyOtherClient() {
        Placement placement = place(request(stateful("t", 1),
                client(A).priorActive("t00").lag("t00", FAR_BEHIND).build(),
                client(B).priorStandby("t00").lag("t00", 0).build(),
                client(C).build()));

        assertThat(activeOwners(placement)).containsEntry("t00", B);
    }

    @Test
    void shouldCopyCollectionsSoLaterChangesDoNotLeakIn() {
        List<TaskDescription> tasks = new java.util.ArrayList<>(stateful("t", 1));
        PlacementRequest request = request(tasks, client(A).build());
        tasks.add(TaskDescription.stateful("late"));

        assertThat(request.tasks()).hasSize(1);
        assertThatThrownBy(() -> request.tasks().add(TaskDescription.stateful("x"))).isInstanceOf(UnsupportedOperationException.class);
    }
}
