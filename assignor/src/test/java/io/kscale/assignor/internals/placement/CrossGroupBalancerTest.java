package io.kscale.assignor.internals.placement;

import static io.kscale.assignor.internals.placement.PlacementFixtures.A;
import static io.kscale.assignor.internals.placement.PlacementFixtures.B;
import static io.kscale.assignor.internals.placement.PlacementFixtures.C;
import static io.kscale.assignor.internals.placement.PlacementFixtures.client;
import static io.kscale.assignor.internals.placement.PlacementFixtures.place;
import static io.kscale.assignor.internals.placement.PlacementFixtures.request;
import static io.kscale.assignor.internals.placement.PlacementFixtures.stateless;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Balance across groups of clients (issue 17, finding 3): the engine's base load and the
 * cross-group pass that shifts units along chains of groups.
 */
class CrossGroupBalancerTest {

    @Test
    void shouldCountABaseLoadFromOutsideTheRequestWithoutMovingIt() {
        Placement placement = place(request(stateless("t", 4), client(A).baseLoad(2).build(), client(B).build()));

        assertThat(placement.client(A).active()).hasSize(1);
        assertThat(placement.client(B).active()).hasSize(3);
    }

    @Test
    void shouldKeepABalancedPriorAssignmentWhoseBaseLoadsEvenItOut() {
        Placement placement = place(request(stateless("t", 4),
                client(A).baseLoad(2).priorActive("t00").build(), client(B).priorActive("t01", "t02", "t03").build()));

        assertThat(placement.client(A).active()).containsExactly("t00");
        assertThat(placement.client(B).active()).containsExactly("t01", "t02", "t03");
    }

    @Test
    void shouldRejectANegativeBaseLoad() {
        assertThatThrownBy(() -> client(A).baseLoad(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("base load -1");
    }

    /**
     * A reads x (3 partitions, only A) and y; B reads y and z; C reads z. A holds x and y1 (4), B
     * holds y2, z1, z2 (3), C holds z3, z4 (2): no single move lowers a pair, a chain does.
     */
    @Test
    void shouldShiftAUnitAlongAChainOfGroupsThatNoSingleMoveEvens() {
        CrossGroupBalancer balancer = new CrossGroupBalancer();
        balancer.load(A, 4);
        balancer.load(B, 3);
        balancer.load(C, 2);
        int y = balancer.group(List.of(A, B));
        int z = balancer.group(List.of(B, C));
        int y1 = balancer.unit(y, 1, A, A);
        int y2 = balancer.unit(y, 1, B, B);
        int z1 = balancer.unit(z, 1, B, B);
        int z2 = balancer.unit(z, 1, B, null);
        int z3 = balancer.unit(z, 1, C, C);
        int z4 = balancer.unit(z, 1, C, C);

        assertThat(balancer.balance()).as("units moved").isEqualTo(2);

        assertThat(balancer.owner(y1)).isEqualTo(B);
        assertThat(balancer.owner(y2)).isEqualTo(B);
        assertThat(balancer.owner(z1)).as("B's prior unit stays").isEqualTo(B);
        assertThat(balancer.owner(z2)).as("B gives the unit it did not own before").isEqualTo(C);
        assertThat(List.of(balancer.owner(z3), balancer.owner(z4))).containsOnly(C);
    }

    @Test
    void shouldMoveNothingWhenNoChainLowersTheLargerLoad() {
        CrossGroupBalancer balancer = new CrossGroupBalancer();
        balancer.load(A, 3);
        balancer.load(B, 2);
        balancer.load(C, 2);
        int y = balancer.group(List.of(A, B));
        int z = balancer.group(List.of(B, C));
        balancer.unit(y, 1, A, A);
        balancer.unit(z, 1, B, B);
        balancer.unit(z, 1, C, C);

        assertThat(balancer.balance()).isZero();
    }

    @Test
    void shouldMoveOnlyUnitsOfOneWeightAlongAPath() {
        // A holds a unit of 2 in y, B one of 1 in z: A -> B -> C would change B's load; no path.
        CrossGroupBalancer balancer = new CrossGroupBalancer();
        balancer.load(A, 6);
        balancer.load(B, 3);
        balancer.load(C, 0);
        int y = balancer.group(List.of(A, B));
        int z = balancer.group(List.of(B, C));
        int heavy = balancer.unit(y, 2, A, A);
        int light = balancer.unit(z, 1, B, B);

        balancer.balance();

        assertThat(balancer.owner(heavy)).as("3 + 2 < 6: a direct move").isEqualTo(B);
        assertThat(balancer.owner(light)).as("then 0 + 1 < 5").isEqualTo(C);
    }
}
